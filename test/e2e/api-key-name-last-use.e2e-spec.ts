import { SchedulerRegistry } from '@nestjs/schedule';
import { Client } from 'pg';
import { ServiceClient } from '../../src/db/prepared-client';
import { ApiKeyUses } from '../../src/games/api-key-uses';
import { asAdmin, bearer, newGame, startTestApp, type TestApp } from '../helpers/test-app';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Statements the service's pool connections send while `call` runs. */
async function statementsDuring(call: () => Promise<unknown>): Promise<string[]> {
  const sent: string[] = [];
  const original = Client.prototype.query;
  const spy = jest.spyOn(Client.prototype, 'query').mockImplementation(function (this: Client, ...args: unknown[]) {
    const [first] = args;
    if (this instanceof ServiceClient) sent.push(typeof first === 'string' ? first : String((first as { text?: string }).text));
    return (original as (...a: unknown[]) => unknown).apply(this, args);
  } as never);
  try {
    await call();
  } finally {
    spy.mockRestore();
  }
  return sent;
}

/** Until this process's clock has passed `ms`: the next use noted is later than any before it. */
async function pastMs(ms: number): Promise<void> {
  while (Date.now() <= ms) await sleep(1);
}

/** An API key's name, a label for operators, and when it was last used (written once a minute per instance). */
describe('API key name and last use', () => {
  let t: TestApp;
  let gameId: string;
  beforeAll(async () => {
    t = await startTestApp();
    // The tests write this instance's uses themselves: a timer's write inside a measured call would count.
    t.app.get(SchedulerRegistry).deleteInterval('api-key-uses');
    gameId = (await newGame(t, 'named keys')).gameId;
  });
  afterAll(() => t.close());

  const keysPath = (game = gameId) => `/v1/admin/games/${game}/api-keys`;
  type KeyView = { id: string; name: string | null; lastUsedAt: string | null };
  const listed = async (keyId: string, game = gameId, app = t) =>
    ((await app.http.get(keysPath(game)).set(asAdmin).expect(200)).body.items as KeyView[]).find((k) => k.id === keyId)!;
  const keyCount = async () => (await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM api_keys')).at(0)!.n;

  describe('name', () => {
    it('a mint with a name answers it; the list and the operator audit show it', async () => {
      const r = await t.http.post(keysPath()).set(asAdmin).send({ name: 'nightly export', scopes: ['read'] });
      expect(r.status).toBe(201);
      expect(r.body).toMatchObject({ name: 'nightly export', scopes: ['read'], lastUsedAt: null });
      const { key: _secret, ...record } = r.body;
      expect(await listed(r.body.id)).toEqual(record);
      const [entry] = await t.db.query<{ details: Record<string, unknown> }>(
        `SELECT details FROM operator_audit WHERE action = 'api_key.minted' AND target_id = $1`,
        [r.body.id],
      );
      expect(entry.details).toMatchObject({ name: 'nightly export' });
    });

    it('a mint without a name, with no body or {}, has name null', async () => {
      for (const req of [t.http.post(keysPath()).set(asAdmin), t.http.post(keysPath()).set(asAdmin).send({})]) {
        const r = await req;
        expect(r.status).toBe(201);
        expect(r.body.name).toBeNull();
        expect((await listed(r.body.id)).name).toBeNull();
      }
    });

    it('counts characters as the database does: 64 characters outside the basic plane are a name, 65 are not', async () => {
      const longest = '🗝'.repeat(64);
      const r = await t.http.post(keysPath()).set(asAdmin).send({ name: longest });
      expect(r.status).toBe(201);
      expect(r.body.name).toBe(longest);
      const over = await t.http.post(keysPath()).set(asAdmin).send({ name: `${longest}🗝` });
      expect(over.status).toBe(400);
      expect(over.body.message).toMatch(/^name /);
    });

    it.each([
      ['an empty name', ''],
      ['a blank name', '   '],
      ['65 characters', 'x'.repeat(65)],
      ['a number', 42],
      ['null', null],
      ['a list', ['ci']],
      ['a newline', 'two\nlines'],
      ['a control character', 'bell\u0007'],
    ])('refuses %s with 400 bad_request naming name, and mints nothing', async (_, name) => {
      const before = await keyCount();
      const r = await t.http.post(keysPath()).set(asAdmin).send({ name });
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ code: 'bad_request', status: 400 });
      expect(r.body.message).toMatch(/^name /);
      expect(await keyCount()).toBe(before);
    });

    it('the database holds any writer to 1-64 characters too', async () => {
      const { keyId } = await newGame(t, 'checked');
      for (const name of ['', 'x'.repeat(65)]) {
        await expect(t.db.query('UPDATE api_keys SET name = $2 WHERE id = $1', [keyId, name])).rejects.toThrow(/api_keys_name_length/);
      }
    });
  });

  describe('last use', () => {
    it('is null until the instance writes the uses it noted, then the time of the last request the key was accepted for', async () => {
      const g = await newGame(t, 'used');
      expect((await listed(g.keyId, g.gameId)).lastUsedAt).toBeNull();
      await t.http.get('/v1/whoami').set(bearer(g.key)).expect(200);
      await pastMs(Date.now());
      const lastFrom = Date.now();
      await t.http.get('/v1/whoami').set(bearer(g.key)).expect(200);
      const lastBy = Date.now();
      expect((await listed(g.keyId, g.gameId)).lastUsedAt).toBeNull();

      await t.app.get(ApiKeyUses).flush();
      const used = Date.parse((await listed(g.keyId, g.gameId)).lastUsedAt!);
      expect(used).toBeGreaterThanOrEqual(lastFrom);
      expect(used).toBeLessThanOrEqual(lastBy);
    });

    it('a request the key is refused for is no use of it', async () => {
      const g = await newGame(t, 'refused');
      const wrongSecret = `${g.key.slice(0, g.key.indexOf('.'))}.${Buffer.alloc(32, 7).toString('base64url')}`;
      await t.http.get('/v1/whoami').set(bearer(wrongSecret)).expect(401);
      await t.app.get(ApiKeyUses).flush();
      const [row] = await t.db.query<{ last_used_at: Date | null }>('SELECT last_used_at FROM api_keys WHERE id = $1', [g.keyId]);
      expect(row.last_used_at).toBeNull();
    });

    it("authenticating a request sends no statement about the key: the use is noted in memory, and written in one statement for every key", async () => {
      const keys = await Promise.all([newGame(t, 'a'), newGame(t, 'b'), newGame(t, 'c')]);
      // Cached first: the first request on a key reads it once.
      for (const k of keys) await t.http.get('/v1/whoami').set(bearer(k.key)).expect(200);
      await t.app.get(ApiKeyUses).flush();

      const onRequests = await statementsDuring(async () => {
        for (const k of keys) await t.http.get('/v1/whoami').set(bearer(k.key)).expect(200);
      });
      expect(onRequests.filter((sql) => /api_keys/.test(sql))).toEqual([]);

      const onWrite = await statementsDuring(() => t.app.get(ApiKeyUses).flush());
      expect(onWrite.filter((sql) => /api_keys/.test(sql))).toEqual([expect.stringMatching(/^\s*UPDATE api_keys k SET last_used_at = GREATEST/)]);
    });

    it('two instances writing out of order never move it back', async () => {
      const g = await newGame(t, 'two instances');
      const other = await startTestApp({}, t.db);
      try {
        await other.http.get('/v1/whoami').set(bearer(g.key)).expect(200);
        await pastMs(Date.now());
        const newerFrom = Date.now();
        await t.http.get('/v1/whoami').set(bearer(g.key)).expect(200);

        // The later use is written first, then the other instance writes its earlier one.
        await t.app.get(ApiKeyUses).flush();
        const newer = (await listed(g.keyId, g.gameId)).lastUsedAt!;
        expect(Date.parse(newer)).toBeGreaterThanOrEqual(newerFrom);
        const sent = await statementsDuring(() => other.app.get(ApiKeyUses).flush());
        expect(sent.filter((sql) => /UPDATE api_keys/.test(sql))).toHaveLength(1);
        expect((await listed(g.keyId, g.gameId, other)).lastUsedAt).toBe(newer);

        // A later use on the other instance moves it on.
        await pastMs(Date.parse(newer));
        await other.http.get('/v1/whoami').set(bearer(g.key)).expect(200);
        await other.app.get(ApiKeyUses).flush();
        expect(Date.parse((await listed(g.keyId, g.gameId)).lastUsedAt!)).toBeGreaterThan(Date.parse(newer));
      } finally {
        await other.close();
      }
    });

    it('an instance writes the uses it noted as it shuts down', async () => {
      const g = await newGame(t, 'shutdown');
      const other = await startTestApp({}, t.db);
      try {
        await other.http.get('/v1/whoami').set(bearer(g.key)).expect(200);
      } finally {
        await other.close();
      }
      expect((await listed(g.keyId, g.gameId)).lastUsedAt).not.toBeNull();
    });
  });
});
