import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { friendsClient, type FriendsGame } from '../helpers/friends';
import { identityOf } from '../helpers/identities';
import { cleanEnv, CLI_JS, lines, requireBuild, ROOT, runNode, runProgram } from '../helpers/process';
import { createTestDatabase, type TestDatabase } from '../helpers/test-db';
import { newGame, startTestApp, type TestApp } from '../helpers/test-app';

/** The erasure ledger's operator commands (EXTENSIONS X7), as the built CLI process. */
jest.setTimeout(300_000);

let t: TestApp;
let dir: string;
/** A folder inside the checkout (ignored by git): `npm run` finds the package from there, as from an operator's shell in it. */
let inCheckout: string;
let g: FriendsGame;
beforeAll(async () => {
  requireBuild();
  t = await startTestApp({ WEBHOOK_WORKER_ENABLED: 'false' });
  dir = mkdtempSync(join(tmpdir(), 'guildhall-ledger-'));
  mkdirSync(join(ROOT, 'node_modules', '.cache'), { recursive: true });
  inCheckout = mkdtempSync(join(ROOT, 'node_modules', '.cache', 'guildhall-ledger-'));
  const { gameId, key } = await newGame(t, 'cli ledger');
  g = friendsClient(t, gameId, key);
});
afterAll(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
  rmSync(inCheckout, { recursive: true, force: true });
});

const cli = (args: string[]) => runNode(CLI_JS, args, cleanEnv({ DATABASE_URL: t.db.url, SVC_DATA_DIR: dir }), 30_000);
/** A shell line as an operator types it in `cwd`, npm included. */
const shell = (line: string, databaseUrl: string, cwd = inCheckout) =>
  runProgram(
    'sh',
    ['-c', line],
    cleanEnv({ DATABASE_URL: databaseUrl, SVC_DATA_DIR: dir, npm_config_cache: join(dir, 'npm-cache'), npm_config_update_notifier: 'false' }),
    60_000,
    cwd,
  );
const comeBack = async (userId: string, game = g) =>
  expect((await game.post('/v1/groups', { kind: 'guild', name: 'back', visibility: 'public', creatorUserId: userId })).status).toBe(201);
const hashOf = (gameId: string, userId: string) => createHash('sha256').update(`${gameId}:${userId}`).digest('hex');

/** The shell lines the ledger section of docs/privacy.md gives, in its order: run as written, so the docs cannot drift. */
function documentedLedgerCommands(): string[] {
  const doc = readFileSync(join(ROOT, 'docs', 'privacy.md'), 'utf8');
  const start = doc.indexOf('\n## The erasure ledger');
  expect(start).toBeGreaterThan(0);
  const end = doc.indexOf('\n## ', start + 1);
  const section = doc.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((block) => block[1].split('\n')).filter((line) => line.startsWith('npm run'));
}

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

  it('export --out writes a new file only its owner may read, as stdout has it; it never replaces a file', async () => {
    const file = join(dir, 'private.json');
    const r = await cli(['erasures:export', '--out', file]);
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
    const { items } = JSON.parse(readFileSync(file, 'utf8')) as { items: unknown[] };
    expect(lines(r.stdout)).toEqual([`wrote ${items.length} ledger entries to ${file}`]);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8')).toBe((await cli(['erasures:export'])).stdout);

    writeFileSync(file, 'an older ledger');
    const again = await cli(['erasures:export', '--out', file]);
    expect({ code: again.code, stdout: again.stdout }).toEqual({ code: 1, stdout: '' });
    expect(lines(again.stderr)).toEqual([
      `guildhall: ${file} exists; nothing was written: --out never replaces a file (an export from a restored database may lack entries it holds): name a new one`,
    ]);
    expect(readFileSync(file, 'utf8')).toBe('an older ledger');

    const nowhere = join(dir, 'no-such-folder', 'ledger.json');
    const unwritable = await cli(['erasures:export', '--out', nowhere]);
    expect(unwritable.code).toBe(1);
    expect(lines(unwritable.stderr)).toEqual([expect.stringMatching(new RegExp(`^guildhall: cannot create ${nowhere} \\(ENOENT`))]);
    expect(existsSync(nowhere)).toBe(false);
  });

  it('a malformed ledger file is one line naming its line and field, exit 1, and nothing applied', async () => {
    await comeBack('mia');
    expect((await g.del('/v1/users/mia')).status).toBe(200);
    const { items } = JSON.parse((await cli(['erasures:export'])).stdout) as { items: Record<string, string>[] };
    await comeBack('mia');
    const write = (name: string, text: string) => {
      writeFileSync(join(dir, name), text);
      return { file: join(dir, name), text };
    };
    const lineWith = (text: string, part: string) => text.split('\n').findIndex((l) => l.includes(part)) + 1;
    const undated = { id: items[0].id, gameId: items[0].gameId, subjectHash: items[0].subjectHash };
    const broken = write('broken.json', JSON.stringify({ items: [...items, { ...items[0], subjectHash: 'nope' }] }, null, 1));
    const lacking = write('lacking.json', JSON.stringify({ items: [...items, undated] }, null, 2));
    const listed = write('listed.json', JSON.stringify(items, null, 1));
    const notJson = write('not.json', '{"items": [');
    const missing = join(dir, 'missing.json');
    const cases: [file: string, says: string][] = [
      [broken.file, `${broken.file} line ${lineWith(broken.text, '"nope"')}: field "subjectHash" must be 64 lowercase hex characters; nothing was applied`],
      [
        lacking.file,
        `${lacking.file} line ${lacking.text.split('\n').lastIndexOf('    {') + 1}: field "erasedAt" must be a timestamp as the ledger lists it: ` +
          'UTC with milliseconds, years 1-9999 (2026-01-01T00:00:00.000Z); nothing was applied',
      ],
      [listed.file, `${listed.file} line 1: not a ledger: the file must hold one JSON object, { "items": [...] }, as erasures:export writes it; nothing was applied`],
      [notJson.file, `${notJson.file} line 1: not JSON: expected a value (the text ends there); nothing was applied`],
      [missing, `cannot read ${missing} (ENOENT: no such file or directory, open '${missing}'); usage: erasures:apply <file>`],
    ];
    for (const [file, says] of cases) {
      const r = await cli(['erasures:apply', file]);
      expect({ file, code: r.code, stderr: lines(r.stderr) }).toEqual({ file, code: 1, stderr: [`guildhall: ${says}`] });
    }
    expect(await identityOf(t, g.gameId, 'mia')).not.toBeNull();
  });

  it("a file that npm's banner got into (npm run without --silent, redirected) is refused naming its line", async () => {
    const r = await shell('npm run svc -- erasures:export > banner.json', t.db.url);
    expect(r.code).toBe(0);
    const file = join(inCheckout, 'banner.json');
    expect(readFileSync(file, 'utf8').split('\n')[1]).toMatch(/^> guildhall@\S+ svc$/);
    const applied = await cli(['erasures:apply', file]);
    expect({ code: applied.code, stderr: lines(applied.stderr) }).toEqual({ code: 1, stderr: [`guildhall: ${file} line 2: not JSON: expected a value; nothing was applied`] });
  });
});

describe('the ledger commands docs/privacy.md gives', () => {
  it('run as written in a folder of the checkout, they write ledger files (mode 0600) that erase a player again in a copy of the database from before the erasure', async () => {
    const commands = documentedLedgerCommands();
    const exports = commands.filter((c) => c.includes(' erasures:export '));
    const applies = commands.filter((c) => c.includes(' erasures:apply '));
    expect(exports.length).toBeGreaterThan(0);
    expect(applies.length).toBeGreaterThan(0);
    expect(exports.length + applies.length).toBe(commands.length);

    const db = await createTestDatabase();
    let backup: TestDatabase | undefined;
    const here = mkdtempSync(join(inCheckout, 'operator-'));
    try {
      let app = await startTestApp({ WEBHOOK_WORKER_ENABLED: 'false' }, db);
      const { gameId, key } = await newGame(app, 'restored');
      await comeBack('eve', friendsClient(app, gameId, key));
      await app.close();
      backup = await db.copy();
      app = await startTestApp({ WEBHOOK_WORKER_ENABLED: 'false' }, db);
      expect((await friendsClient(app, gameId, key).del('/v1/users/eve')).status).toBe(200);
      await app.close();

      for (const line of exports) {
        const r = await shell(line, db.url, here);
        expect({ line, code: r.code, stderr: r.stderr }).toEqual({ line, code: 0, stderr: '' });
        expect(lines(r.stdout)).toEqual([expect.stringMatching(/^wrote \d+ ledger entr(y|ies) to \S+$/)]);
      }
      const written = readdirSync(here);
      expect(written).toHaveLength(exports.length);
      for (const name of written) {
        expect({ name, mode: statSync(join(here, name)).mode & 0o777 }).toEqual({ name, mode: 0o600 });
        expect(JSON.parse(readFileSync(join(here, name), 'utf8'))).toEqual({ items: expect.any(Array) });
      }

      // The copy is the database as a backup from before the erasure restores it: eve is there.
      const eve = () => backup!.query('SELECT 1 FROM user_identities WHERE game_id = $1 AND external_id = $2', [gameId, 'eve']);
      expect(await eve()).toHaveLength(1);
      for (const line of applies) {
        const r = await shell(line, backup.url, here);
        expect({ line, code: r.code, stderr: r.stderr }).toEqual({ line, code: 0, stderr: '' });
        expect(lines(r.stdout)).toEqual(['applied 1 ledger entry; erased 1 user again']);
      }
      expect(await eve()).toEqual([]);
      expect(await backup.query('SELECT subject_hash FROM erasures WHERE game_id = $1', [gameId])).toHaveLength(1);
      expect(JSON.stringify(await backup.query('SELECT subject_hash FROM erasures'))).toContain(hashOf(gameId, 'eve'));

      // Run again, an export meets the file it wrote: refused in one line, the file kept.
      const before = readFileSync(join(here, written[0]), 'utf8');
      const again = await shell(exports[0], db.url, here);
      expect({ code: again.code, stdout: again.stdout }).toEqual({ code: 1, stdout: '' });
      expect(lines(again.stderr)).toEqual([expect.stringMatching(/^guildhall: \S+ exists; nothing was written: /)]);
      expect(readFileSync(join(here, written[0]), 'utf8')).toBe(before);
    } finally {
      await backup?.drop();
      await db.drop();
    }
  });
});
