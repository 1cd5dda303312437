import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { friendsClient, type FriendsGame } from '../helpers/friends';
import { identityOf } from '../helpers/identities';
import { cleanEnv, CLI_JS, lines, requireBuild, runNode } from '../helpers/process';
import { newGame, startTestApp, type TestApp } from '../helpers/test-app';

/** The erasure ledger's operator commands (EXTENSIONS X7), as the built CLI process. */
jest.setTimeout(60_000);

let t: TestApp;
let dir: string;
let g: FriendsGame;
beforeAll(async () => {
  requireBuild();
  t = await startTestApp({ WEBHOOK_WORKER_ENABLED: 'false' });
  dir = mkdtempSync(join(tmpdir(), 'guildhall-ledger-'));
  const { gameId, key } = await newGame(t, 'cli ledger');
  g = friendsClient(t, gameId, key);
});
afterAll(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

const cli = (args: string[]) => runNode(CLI_JS, args, cleanEnv({ DATABASE_URL: t.db.url, SVC_DATA_DIR: dir }), 30_000);
const comeBack = async (userId: string) =>
  expect((await g.post('/v1/groups', { kind: 'guild', name: 'back', visibility: 'public', creatorUserId: userId })).status).toBe(201);

describe('erasures:export and erasures:apply', () => {
  it('export prints the whole ledger as JSON; apply of that file erases again the users it names', async () => {
    await comeBack('eve');
    expect((await g.del('/v1/users/eve')).status).toBe(200);
    expect((await g.del('/v1/users/zed')).status).toBe(200);
    const exported = await cli(['erasures:export']);
    expect(exported.code).toBe(0);
    const ledger = JSON.parse(exported.stdout) as { items: { gameId: string; subjectHash: string }[] };
    expect(ledger.items.filter((i) => i.gameId === g.gameId)).toHaveLength(2);
    expect(exported.stdout).not.toContain('"eve"');

    // As after a restore: the player is back, the ledger table lost its entries.
    await comeBack('eve');
    await t.db.query('DELETE FROM erasures');
    const file = join(dir, 'ledger.json');
    writeFileSync(file, exported.stdout);
    const applied = await cli(['erasures:apply', file]);
    expect({ code: applied.code, out: lines(applied.stdout) }).toEqual({ code: 0, out: ['applied 2 ledger entries; erased 1 user again'] });
    expect(await identityOf(t, g.gameId, 'eve')).toBeNull();
    const [row] = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM erasures');
    expect(row.n).toBe(2);
  });

  it('export takes a since; a bad one is one line and exit 1', async () => {
    const later = await cli(['erasures:export', new Date(Date.now() + 60_000).toISOString()]);
    expect(later.code).toBe(0);
    expect(JSON.parse(later.stdout)).toEqual({ items: [] });
    const bad = await cli(['erasures:export', 'yesterday']);
    expect(bad.code).toBe(1);
    expect(lines(bad.stderr)).toHaveLength(1);
    expect(bad.stderr).toContain('ISO 8601');
  });

  it('a malformed ledger file is one line, exit 1, and nothing applied', async () => {
    await comeBack('mia');
    expect((await g.del('/v1/users/mia')).status).toBe(200);
    const { items } = JSON.parse((await cli(['erasures:export'])).stdout) as { items: Record<string, string>[] };
    await comeBack('mia');
    const broken = join(dir, 'broken.json');
    writeFileSync(broken, JSON.stringify({ items: [...items, { ...items[0], subjectHash: 'nope' }] }));
    const notJson = join(dir, 'not.json');
    writeFileSync(notJson, '{"items": [');
    for (const [file, says] of [
      [broken, 'subjectHash'],
      [notJson, 'JSON'],
      [join(dir, 'missing.json'), 'missing.json'],
    ]) {
      const r = await cli(['erasures:apply', file]);
      expect(r.code).toBe(1);
      expect(lines(r.stderr)).toHaveLength(1);
      expect(r.stderr).toContain(says);
    }
    expect(await identityOf(t, g.gameId, 'mia')).not.toBeNull();
  });
});
