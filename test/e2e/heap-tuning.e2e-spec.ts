import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, type TestDatabase } from '../helpers/test-db';
import { cleanEnv, DEV_JS, freePort, http, killAll, MAIN_JS, requireBuild, runNode, serverEnv, spawnNode, TEST_ADMIN_TOKEN, waitForHttp } from '../helpers/process';

/**
 * The server runs without V8's allocation-site pretenuring (src/heap-tuning.ts): a process that
 * pretenured its request path's literals kept them in the old generation for its whole life. V8's
 * own trace tells: with pretenuring on, it prints its decisions ("pretenuring: AllocationSite…")
 * as it weighs the feedback of each scavenge; with it off, it weighs nothing and prints nothing.
 */
const TRACE = ['--trace-pretenuring', '--trace-pretenuring-statistics'];

/** Objects of one literal that live across scavenges: the pattern V8 pretenures. */
const SURVIVORS = `const ring = new Array(300000);
for (let i = 0; i < 2000000; i++) ring[i % ring.length] = { id: i, tags: [i, i + 1] };`;

jest.setTimeout(60_000);

describe('V8 pretenuring in the server process', () => {
  let db: TestDatabase;
  let dataDir: string;

  beforeAll(async () => {
    requireBuild();
    db = await createTestDatabase();
    dataDir = mkdtempSync(join(tmpdir(), 'guildhall-test-heap-'));
  });

  afterAll(async () => {
    await killAll();
    await db?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("is traced by this Node: a plain process prints V8's pretenuring decisions", async () => {
    const plain = await runNode(TRACE[0], [TRACE[1], '-e', SURVIVORS], cleanEnv());
    expect(plain.code).toBe(0);
    expect(plain.stdout).toMatch(/pretenuring: /);
  });

  it('is off from the first line of the server, through a burst of requests', async () => {
    const port = await freePort();
    const server = spawnNode(TRACE[0], [TRACE[1], MAIN_JS], serverEnv(db.url, port));
    const url = `http://127.0.0.1:${port}`;
    await waitForHttp(url, 20_000, server);
    const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
    const game = await http(`${url}/v1/admin/games`, { method: 'POST', headers: admin, body: { name: 'heap' } });
    const { key } = (await http(`${url}/v1/admin/games/${game.body.id}/api-keys`, { method: 'POST', headers: admin })).body;
    const auth = { authorization: `Bearer ${key}` };
    const group = (await http(`${url}/v1/groups`, { method: 'POST', headers: auth, body: { kind: 'guild', name: 'heap', creatorUserId: 'u1' } })).body;
    const checks = Array.from({ length: 100 }, (_, i) => ({ userId: 'u1', groupId: group.id, permission: `heap.k${i}` }));
    // 2,000 batches, 25 at a time: enough scavenges for V8 to weigh feedback many times over.
    for (let wave = 0; wave < 80; wave++) {
      const answers = await Promise.all(
        Array.from({ length: 25 }, () => http(`${url}/v1/permissions/check-batch`, { method: 'POST', headers: auth, body: { checks } })),
      );
      expect(answers.map((a) => a.status)).toEqual(Array(25).fill(200));
    }
    expect(server.exit()).toBeNull();
    expect(server.stdout()).not.toMatch(/pretenuring: /);
  });

  it('is off in the newcomer\'s server (npm start) too', async () => {
    const port = await freePort();
    const server = spawnNode(TRACE[0], [TRACE[1], DEV_JS], cleanEnv({ DATABASE_URL: db.url, SVC_DATA_DIR: dataDir, PORT: String(port) }));
    await waitForHttp(`http://127.0.0.1:${port}`, 20_000, server);
    await server.waitForOutput(/is listening/, 10_000);
    expect(server.stdout()).not.toMatch(/pretenuring: /);
  });
});
