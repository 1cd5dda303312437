import fc from 'fast-check';
import { http, TEST_ADMIN_TOKEN, withTimeout } from '../helpers/process';
import { arrangeGame, type Arranged } from './helpers/arrange';
import { send } from './helpers/fuzz-client';
import { operationsOf, valueOf, type Operation } from './helpers/openapi-fuzz';
import { caseContext, expectStatus, startInstance, type Instance } from './helpers/service';

/* eslint-disable @typescript-eslint/no-explicit-any -- the API document is untyped JSON */

/** Path parameters that name a row of one game (the others are external user ids, free per game). */
const ROW_PARAMS = /^(id|groupId|roleId|code|keyId|deliveryId)$/;

describe('isolation: one game never reaches another game’s rows', () => {
  let ctx: Awaited<ReturnType<typeof caseContext>>;
  let one: Instance;
  let two: Instance;
  let doc: any;
  let world: Arranged;

  beforeAll(async () => {
    ctx = await caseContext();
    [one, two] = await Promise.all([startInstance(ctx.db), startInstance(ctx.db)]);
    world = await arrangeGame(one.base, ctx.secrets);
    doc = (await http(`${one.base}/openapi.json`)).body;
  }, 120_000);

  afterAll(async () => {
    await Promise.all([one?.stop(), two?.stop()]);
    await ctx?.done();
  }, 60_000);

  /** Game A's rows as game A reads them, to show nothing changed them. */
  const snapshot = async () => {
    const auth = { authorization: `Bearer ${world.gameA.key}` };
    const paths = [`/v1/groups/${world.a.group}`, `/v1/groups/${world.a.group}/members`, `/v1/groups/${world.a.group}/roles`, `/v1/groups/${world.a.closed}/invitations`, `/v1/webhooks`, '/v1/bans'];
    return Promise.all(paths.map(async (p) => (await expectStatus(http(`${one.base}${p}`, { headers: auth }), 200)).text));
  };

  it('answers every route of the API document called with game B’s key and game A’s ids with 404, leaking and changing nothing', async () => {
    const before = await snapshot();
    const aIds = [world.gameA.id, ...Object.values(world.a).filter(Boolean)];
    const problems: string[] = [];
    const echoed = new Set<string>();
    // Public operations (`security: []`, e.g. the invitation preview: SPEC reads it by code alone) are not game-scoped.
    const ops = operationsOf(doc).filter((op) => op.auth === 'apiKey');
    for (const op of ops) {
      const rowScoped = op.parameters.some((p) => p.in === 'path' && ROW_PARAMS.test(p.name));
      const url = pathWithRowsOfA(op, world);
      // Bodies must pass validation, or the 400 would hide what the lookup does: try a few.
      const bodies = op.body ? fc.sample(valueOf(doc, op.body, world.pools, ''), { numRuns: 30, seed: 7 }) : [undefined];
      let answer;
      for (const body of bodies) {
        // An id game B itself writes into its own rows (a defaultRoleId is not verified) comes back as its own.
        for (const id of aIds) if (body !== undefined && JSON.stringify(body).includes(id)) echoed.add(id);
        answer = await send(two.base, { method: op.method, url, body: body === undefined ? undefined : JSON.stringify(body), contentType: body === undefined ? undefined : 'application/json', auth: 'other' }, `Bearer ${world.gameB.key}`);
        if (answer.status !== 400) break;
      }
      const label = `${op.method} ${op.path}`;
      if (!answer) continue;
      if (answer.status >= 500) problems.push(`${label}: ${answer.status}`);
      if (rowScoped && answer.status !== 404) problems.push(`${label} → ${answer.status} (want 404): ${answer.text.slice(0, 200)}`);
      const leaked = aIds.filter((id) => !echoed.has(id) && answer.text.includes(id));
      if (leaked.length) problems.push(`${label} → ${answer.status} shows game A’s ${leaked.join(', ')}`);
    }
    expect(problems).toEqual([]);
    expect(await snapshot()).toEqual(before);
  }, 300_000);

  it('answers every admin route called with a game key with 401', async () => {
    const problems: string[] = [];
    for (const op of operationsOf(doc).filter((o) => o.auth === 'adminToken')) {
      const r = await send(one.base, { method: op.method, url: pathWithRowsOfA(op, world), auth: 'other' }, `Bearer ${world.gameA.key}`);
      if (r.status !== 401) problems.push(`${op.method} ${op.path} → ${r.status}`);
    }
    expect(problems).toEqual([]);
  }, 120_000);

  it('refuses a revoked key with 401 on every instance at once', async () => {
    const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
    const minted = await expectStatus(http(`${one.base}/v1/admin/games/${world.gameA.id}/api-keys`, { method: 'POST', headers: admin }), 201);
    ctx.secrets.add(minted.body.key);
    const auth = { authorization: `Bearer ${minted.body.key}` };
    // Both instances have the key cached.
    for (const i of [one, two]) await expectStatus(http(`${i.base}/v1/whoami`, { headers: auth }), 200);
    await expectStatus(http(`${one.base}/v1/admin/games/${world.gameA.id}/api-keys/${minted.body.id}/revoke`, { method: 'POST', headers: admin }), 200);
    const t0 = Date.now();
    const refusedAfter = await withTimeout(
      (async () => {
        while ((await http(`${two.base}/v1/whoami`, { headers: auth })).status !== 401);
        return Date.now() - t0;
      })(),
      1_000,
      () => 'the other instance still accepted the revoked key after 1 s',
    );
    process.stdout.write(`revoked key refused by the other instance after ${refusedAfter} ms\n`);
    expect((await http(`${one.base}/v1/whoami`, { headers: auth })).status).toBe(401);
    expect((await http(`${two.base}/v1/whoami`, { headers: auth })).status).toBe(401);
  });

  it('keeps the secrets out of both instances’ logs', () => {
    expect(ctx.secrets.leaks(one.logs() + two.logs())).toEqual([]);
  });
});

/** The operation's path with each parameter filled by a row of game A (or an external user id). */
function pathWithRowsOfA(op: Operation, world: Arranged): string {
  return op.parameters
    .filter((p) => p.in === 'path')
    .reduce((path, p) => {
      const segment = p.name === 'id' ? `id:${op.path.split('/{id}')[0].split('/').pop()}` : p.name;
      const value = world.pools[segment]?.[0] ?? world.pools[p.name]?.[0] ?? 'alice';
      return path.replace(`{${p.name}}`, encodeURIComponent(value));
    }, op.path);
}
