import { randomUUID } from 'node:crypto';
import { insertAuditSql, journalAudit } from '../helpers/journal';
import { asAdmin, bearer, newGame, startTestApp, type TestApp } from '../helpers/test-app';

/**
 * SPEC §4 Admin surface (the five analytics routes), §8 (growth buckets, topN, top 10 / top 15).
 * Every figure below is computed by hand from a small fixed dataset written straight into the
 * tables, with bins and buckets hit exactly on their edges.
 */

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const ms = (iso: string) => Date.parse(iso);
const at = (base: string, plus: number) => new Date(ms(base) + plus).toISOString();
/** A fixed lowercase uuid whose text order follows `n`. */
const fixedId = (prefix: string, n: number) => `${prefix}-0000-7000-8000-${n.toString(16).padStart(12, '0')}`;

describe('admin analytics', () => {
  let t: TestApp;
  let gameKey: string;

  beforeAll(async () => {
    t = await startTestApp();
    gameKey = (await newGame(t, 'analytics key holder')).key;
  });
  afterAll(() => t.close());

  const get = (path: string) => t.http.get(path).set(asAdmin);

  async function game(name: string): Promise<string> {
    const created = await t.http.post('/v1/admin/games').set(asAdmin).send({ name });
    if (created.status !== 201) throw new Error(`create game: ${created.status} ${created.text}`);
    return created.body.id as string;
  }

  async function insertGroup(gameId: string, id: string, createdAt: string, opts: { deleted?: boolean; name?: string } = {}) {
    await t.db.query(
      `INSERT INTO groups (id, game_id, kind, name, visibility, created_at, updated_at, soft_deleted_at)
       VALUES ($1, $2, 'guild', $3, 'public', $4, $4, $5)`,
      [id, gameId, opts.name ?? `group ${id.slice(-4)}`, createdAt, opts.deleted ? createdAt : null],
    );
  }

  interface MemberSpec {
    status?: string;
    joinedAt: string;
    leftAt?: string | null;
  }
  /** A member with a user of its own; returns the member id. */
  async function insertMember(groupId: string, m: MemberSpec): Promise<string> {
    const id = randomUUID();
    const userId = randomUUID();
    await t.db.query('INSERT INTO users (id) VALUES ($1)', [userId]);
    await t.db.query(
      `INSERT INTO members (id, group_id, user_id, external_user_id, status, joined_at, left_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [id, groupId, userId, `ext-${userId}`, m.status ?? 'active', m.joinedAt, m.leftAt ?? null],
    );
    return id;
  }

  async function insertRole(groupId: string, name: string, permissions: string[] = []): Promise<string> {
    const id = randomUUID();
    await t.db.query('INSERT INTO roles (id, group_id, name, priority) VALUES ($1, $2, $3, 0)', [id, groupId, name]);
    for (const p of permissions) await t.db.query('INSERT INTO role_permissions (role_id, permission) VALUES ($1, $2)', [id, p]);
    return id;
  }

  const assign = (memberId: string, roleId: string) =>
    t.db.query('INSERT INTO member_roles (member_id, role_id) VALUES ($1, $2)', [memberId, roleId]);
  const override = (memberId: string, permission: string, allowed = true) =>
    t.db.query('INSERT INTO member_permission_overrides (member_id, permission, allowed) VALUES ($1, $2, $3)', [
      memberId,
      permission,
      allowed,
    ]);

  function expectError(r: { status: number; body: { code?: string; message?: string } }, status: number, code: string, field?: string) {
    expect(r.status).toBe(status);
    expect(r.body.code).toBe(code);
    if (field) expect(r.body.message).toMatch(new RegExp(`^${field}\\b`));
  }

  describe('every analytics route', () => {
    const routes = ['group-churn', 'group-growth', 'member-activity', 'role-distribution', 'permission-usage'];

    it.each(routes)('%s needs the admin token: none, a wrong one or an API key is 401 invalid_admin_token', async (route) => {
      const gameId = await game('auth');
      const path = `/v1/admin/games/${gameId}/analytics/${route}`;
      for (const headers of [{}, bearer('jadm_wrong'), bearer(gameKey)]) {
        const r = await t.http.get(path).set(headers);
        expectError(r, 401, 'invalid_admin_token');
      }
    });

    it.each(routes)('%s answers 404 not_found for an unknown or malformed game id', async (route) => {
      for (const id of [randomUUID(), 'not-a-uuid']) {
        expectError(await get(`/v1/admin/games/${id}/analytics/${route}`), 404, 'not_found');
      }
    });
  });

  describe('group-churn', () => {
    let gameId: string;
    const A = '2024-01-01T00:00:00.000Z';
    const B = '2024-02-01T00:00:00.000Z';
    const D = '2024-01-15T00:00:00.000Z';
    const churn = (qs = '') => get(`/v1/admin/games/${gameId}/analytics/group-churn${qs}`);

    beforeAll(async () => {
      gameId = await game('churn');
      const gA = randomUUID();
      const gB = randomUUID();
      const gC = randomUUID();
      await insertGroup(gameId, gA, A);
      await insertGroup(gameId, gB, B);
      await insertGroup(gameId, gC, '2024-03-01T00:00:00.000Z', { deleted: true });
      await insertGroup(gameId, randomUUID(), D); // no members
      // gA: tenures on and just under every boundary (ms): bins <1h: 2, 1h-1d: 2, 1d-1w: 2 (one kicked), 1w-1mo: 2, 1mo+: 1.
      const tenures: [number, string][] = [
        [0, 'left'],
        [HOUR - 1, 'left'],
        [HOUR, 'left'],
        [DAY - 1, 'left'],
        [DAY, 'left'],
        [DAY, 'kicked'],
        [7 * DAY, 'left'],
        [30 * DAY - 1, 'left'],
        [30 * DAY, 'left'],
      ];
      for (const [tenure, status] of tenures) await insertMember(gA, { status, joinedAt: A, leftAt: at(A, tenure) });
      // Not departures: still active, banned (even with leftAt), left without a leftAt.
      await insertMember(gA, { joinedAt: A });
      await insertMember(gA, { status: 'banned', joinedAt: A, leftAt: at(A, HOUR) });
      await insertMember(gA, { status: 'left', joinedAt: A, leftAt: null });
      // gB: one departure after 2 hours (1h - 1d). gC is soft-deleted: its departure never counts.
      await insertMember(gB, { status: 'left', joinedAt: B, leftAt: at(B, 2 * HOUR) });
      await insertMember(gC, { status: 'left', joinedAt: B, leftAt: at(B, 5 * 60_000) });
      // Another game's departures never count.
      const other = await game('churn other');
      const gO = randomUUID();
      await insertGroup(other, gO, A);
      await insertMember(gO, { status: 'left', joinedAt: A, leftAt: at(A, 1) });
    });

    it('bins every departure of the live groups; a tenure exactly on a boundary falls in the higher bin', async () => {
      const r = await churn();
      expect(r.status).toBe(200);
      expect(r.body).toEqual({
        from: null,
        to: null,
        totalGroupsInWindow: 3,
        totalDeparturesInWindow: 10,
        bins: [
          { label: '< 1h', minMs: null, maxMs: 3600000, count: 2 },
          { label: '1h - 1d', minMs: 3600000, maxMs: 86400000, count: 3 },
          { label: '1d - 1w', minMs: 86400000, maxMs: 604800000, count: 2 },
          { label: '1w - 1mo', minMs: 604800000, maxMs: 2592000000, count: 2 },
          { label: '1mo+', minMs: 2592000000, maxMs: null, count: 1 },
        ],
      });
    });

    it('from is inclusive on Group.createdAt (a group created exactly at from counts)', async () => {
      const r = await churn(`?from=${D}`);
      expect(r.status).toBe(200);
      expect(r.body.from).toBe(D);
      expect(r.body.to).toBeNull();
      expect(r.body.totalGroupsInWindow).toBe(2); // the empty group (created at from) and gB
      expect(r.body.totalDeparturesInWindow).toBe(1);
      expect(r.body.bins.map((b: { count: number }) => b.count)).toEqual([0, 1, 0, 0, 0]);
    });

    it('to is exclusive (a group created exactly at to is left out)', async () => {
      const r = await churn(`?from=${A}&to=${B}`);
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ from: A, to: B, totalGroupsInWindow: 2, totalDeparturesInWindow: 9 });
      expect(r.body.bins.map((b: { count: number }) => b.count)).toEqual([2, 2, 2, 2, 1]);
    });

    it('echoes from and to as ISO 8601 with milliseconds, whatever zone they were given in', async () => {
      const r = await churn(`?from=${encodeURIComponent('2024-01-01T02:00:00+02:00')}&to=2024-01-02`);
      expect(r.status).toBe(200);
      expect(r.body.from).toBe('2024-01-01T00:00:00.000Z');
      expect(r.body.to).toBe('2024-01-02T00:00:00.000Z');
      expect(r.body.totalGroupsInWindow).toBe(1);
    });

    it('a window from after to simply counts nothing', async () => {
      const r = await churn(`?from=${B}&to=${A}`);
      expect(r.status).toBe(200);
      expect(r.body.totalGroupsInWindow).toBe(0);
      expect(r.body.bins.map((b: { count: number }) => b.count)).toEqual([0, 0, 0, 0, 0]);
    });

    it.each([
      ['from', '?from=yesterday'],
      ['to', '?to=2024-13-01'],
      ['from', '?from=2024-01-01&from=2024-01-02'],
    ])('a malformed %s is 400 naming it', async (field, qs) => {
      expectError(await churn(qs), 400, 'bad_request', field);
    });
  });

  describe('group-growth', () => {
    let gameId: string;
    const FROM = '2024-06-01T00:00:00.000Z';
    const TO = '2024-06-02T00:00:00.000Z';
    const g1 = fixedId('00000000', 1);
    const g2 = fixedId('00000000', 0xb2);
    const g3 = fixedId('00000000', 0xa3); // ties with g2 at `to` and wins: its id sorts first
    const g5 = fixedId('00000000', 0xc5); // no members
    const growth = (qs: string) => get(`/v1/admin/games/${gameId}/analytics/group-growth${qs}`);
    const hours = (n: number) => at(FROM, n * HOUR);
    // Hand-computed active counts at the 24 hourly boundaries 01:00 ... 24:00 (see beforeAll).
    const G1 = [4, 5, 5, 5, 4, 4, 4, 4, 4, 4, 5, 5, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 5];
    const G2 = [3, 3, ...Array(22).fill(2)];
    const G3 = Array(24).fill(2);
    const G5 = Array(24).fill(0);
    const plus = (...rows: number[][]) => rows[0].map((_, i) => rows.reduce((s, r) => s + r[i], 0));

    beforeAll(async () => {
      gameId = await game('growth');
      for (const id of [g1, g2, g3, g5]) await insertGroup(gameId, id, '2024-04-01T00:00:00.000Z', { name: `name ${id.slice(-2)}` });
      const gone = randomUUID();
      await insertGroup(gameId, gone, '2024-04-01T00:00:00.000Z', { deleted: true });
      for (let i = 0; i < 10; i++) await insertMember(gone, { joinedAt: '2024-05-01T00:00:00.000Z' });

      // g1: m1 and m8 (banned: status is not consulted) active throughout; m2 joins exactly on the
      // first boundary, m3 a millisecond later; m4 leaves exactly on the 05:00 boundary; m5 is in
      // between 10:30 and 12:00:00.001; m6 joins exactly at `to`, m7 a millisecond after it.
      await insertMember(g1, { joinedAt: '2024-05-01T00:00:00.000Z' });
      await insertMember(g1, { status: 'banned', joinedAt: '2024-05-01T00:00:00.000Z' });
      await insertMember(g1, { joinedAt: hours(1) });
      await insertMember(g1, { joinedAt: at(FROM, HOUR + 1) });
      await insertMember(g1, { status: 'left', joinedAt: '2024-05-20T00:00:00.000Z', leftAt: hours(5) });
      await insertMember(g1, { status: 'left', joinedAt: at(FROM, 10.5 * HOUR), leftAt: at(FROM, 12 * HOUR + 1) });
      await insertMember(g1, { joinedAt: TO });
      await insertMember(g1, { joinedAt: at(TO, 1) });
      // g2: a throughout, b leaves exactly at 03:00, c leaves after `to`.
      await insertMember(g2, { joinedAt: '2024-05-01T00:00:00.000Z' });
      await insertMember(g2, { status: 'kicked', joinedAt: '2024-05-01T00:00:00.000Z', leftAt: hours(3) });
      await insertMember(g2, { status: 'left', joinedAt: '2024-05-01T00:00:00.000Z', leftAt: '2024-06-10T00:00:00.000Z' });
      // g3: two members throughout.
      await insertMember(g3, { joinedAt: '2024-05-01T00:00:00.000Z' });
      await insertMember(g3, { joinedAt: '2024-05-01T00:00:00.000Z' });
    });

    it('a 1-day window: 24 hourly buckets ending at each boundary, the last one `to`; active counts read at each', async () => {
      const r = await growth(`?from=${FROM}&to=${TO}&topN=5`);
      expect(r.status).toBe(200);
      expect(r.body.from).toBe(FROM);
      expect(r.body.to).toBe(TO);
      expect(r.body.bucketSizeMs).toBe(HOUR);
      expect(r.body.buckets).toEqual(Array.from({ length: 24 }, (_, i) => hours(i + 1)));
      expect(r.body.series).toEqual([
        { key: `group:${g1}`, name: 'name 01', groupId: g1, data: G1 },
        { key: `group:${g3}`, name: 'name a3', groupId: g3, data: G3 },
        { key: `group:${g2}`, name: 'name b2', groupId: g2, data: G2 },
        { key: `group:${g5}`, name: 'name c5', groupId: g5, data: G5 },
      ]);
    });

    it('more groups than topN: the top ones by active members at `to` (ties by id), then all-others summing the rest', async () => {
      const r = await growth(`?from=${FROM}&to=${TO}&topN=2`);
      expect(r.status).toBe(200);
      expect(r.body.series).toEqual([
        { key: `group:${g1}`, name: 'name 01', groupId: g1, data: G1 },
        { key: `group:${g3}`, name: 'name a3', groupId: g3, data: G3 },
        { key: 'all-others', name: 'All others', groupId: null, data: plus(G2, G5) },
      ]);
      const one = await growth(`?from=${FROM}&to=${TO}&topN=1`);
      expect(one.body.series.map((s: { key: string }) => s.key)).toEqual([`group:${g1}`, 'all-others']);
      expect(one.body.series[1].data).toEqual(plus(G2, G3, G5));
    });

    it('exactly as many groups as topN: no all-others series', async () => {
      const r = await growth(`?from=${FROM}&to=${TO}&topN=4`);
      expect(r.body.series.map((s: { key: string }) => s.key)).toEqual([g1, g3, g2, g5].map((id) => `group:${id}`));
    });

    it('a window 1 ms longer than a day: 6-hour buckets, the last one cut short at `to`', async () => {
      const to = at(TO, 1);
      const r = await growth(`?from=${FROM}&to=${to}&topN=1`);
      expect(r.status).toBe(200);
      expect(r.body.bucketSizeMs).toBe(6 * HOUR);
      expect(r.body.buckets).toEqual([hours(6), hours(12), hours(18), TO, to]);
      // 06:00: m1 m8 m2 m3; 12:00: + m5; 18:00: as 06:00; 24:00: + m6; 24:00:00.001: + m7.
      expect(r.body.series[0]).toEqual({ key: `group:${g1}`, name: 'name 01', groupId: g1, data: [4, 5, 4, 5, 6] });
      expect(r.body.series[1].data).toEqual([2 + 2 + 0, 2 + 2, 2 + 2, 2 + 2, 2 + 2]);
    });

    it.each<[string, number, number, number]>([
      ['7 days', 7 * DAY, 6 * HOUR, 28],
      ['7 days + 1 ms', 7 * DAY + 1, DAY, 8],
      ['30 days', 30 * DAY, DAY, 30],
      ['90 days', 90 * DAY, 3 * DAY, 30],
      ['90 days + 1 ms', 90 * DAY + 1, 7 * DAY, 13],
      ['700 days (100 weekly buckets)', 700 * DAY, 7 * DAY, 100],
    ])('a window of %s: its bucket size and count, the last bucket ending at `to`', async (_case, length, size, count) => {
      const r = await growth(`?from=${at(TO, -length)}&to=${TO}`);
      expect(r.status).toBe(200);
      expect(r.body.bucketSizeMs).toBe(size);
      expect(r.body.buckets).toHaveLength(count);
      expect(r.body.buckets[count - 1]).toBe(TO);
      expect(r.body.series[0].data).toHaveLength(count);
      expect(r.body.series[0].data[count - 1]).toBe(5); // g1 at `to`, whatever the buckets
    });

    it('defaults: to is now, from is to minus 30 days (daily buckets), topN 5', async () => {
      const before = Date.now();
      const r = await growth('');
      const after = Date.now();
      expect(r.status).toBe(200);
      expect(ms(r.body.to)).toBeGreaterThanOrEqual(before);
      expect(ms(r.body.to)).toBeLessThanOrEqual(after);
      expect(ms(r.body.to) - ms(r.body.from)).toBe(30 * DAY);
      expect(r.body.bucketSizeMs).toBe(DAY);
      expect(r.body.buckets).toHaveLength(30);
      expect(r.body.buckets[29]).toBe(r.body.to);
      // Today g1 holds m1 m8 m2 m3 m6 m7 (m4 and m5 left): 6; g3: 2; g2 only a (c left in June 2024): 1.
      expect(r.body.series.map((s: { key: string; data: number[] }) => [s.key, s.data[29]])).toEqual([
        [`group:${g1}`, 6],
        [`group:${g3}`, 2],
        [`group:${g2}`, 1],
        [`group:${g5}`, 0],
      ]);
    });

    it('only from: to defaults to now', async () => {
      const r = await growth(`?from=${encodeURIComponent(new Date(Date.now() - 2 * DAY).toISOString())}`);
      expect(r.status).toBe(200);
      expect(r.body.bucketSizeMs).toBe(6 * HOUR);
    });

    it('a game without groups has series []', async () => {
      const empty = await game('growth empty');
      const r = await get(`/v1/admin/games/${empty}/analytics/group-growth`);
      expect(r.status).toBe(200);
      expect(r.body.series).toEqual([]);
      expect(r.body.buckets).toHaveLength(30);
    });

    it.each<[string, string, string]>([
      ['from equal to to', `?from=${FROM}&to=${FROM}`, 'from'],
      ['from after to', `?from=${TO}&to=${FROM}`, 'from'],
      ['101 weekly buckets', `?from=${at(TO, -700 * DAY - 1)}&to=${TO}`, 'from'],
      ['a malformed from', '?from=garbage', 'from'],
      ['a malformed to', '?to=2024-06-01T25:00:00Z', 'to'],
      ['topN 0', '?topN=0', 'topN'],
      ['topN 11', '?topN=11', 'topN'],
      ['a fractional topN', '?topN=2.5', 'topN'],
    ])('%s is 400 bad_request', async (_case, qs, field) => {
      expectError(await growth(qs), 400, 'bad_request', field);
    });
  });

  describe('member-activity', () => {
    let gameId: string;
    const activity = (qs = '') => get(`/v1/admin/games/${gameId}/analytics/member-activity${qs}`);

    beforeAll(async () => {
      gameId = await game('activity');
      const live = randomUUID();
      const gone = randomUUID();
      await insertGroup(gameId, live, '2024-05-01T00:00:00.000Z');
      await insertGroup(gameId, gone, '2024-05-01T00:00:00.000Z', { deleted: true });
      const entry = (gid: string, group: string | null, createdAt: string) =>
        t.db.query(
          insertAuditSql(['id', 'game_id', 'group_id', 'action', 'created_at'], `VALUES ($1, $2, $3, 'member.joined', $4)`),
          [randomUUID(), gid, group, createdAt],
        );
      await entry(gameId, live, '2024-06-02T00:00:00.000Z'); // Sunday 00h, twice
      await entry(gameId, live, '2024-06-02T00:59:59.999Z');
      await entry(gameId, live, '2024-06-01T23:59:59.999Z'); // Saturday 23h
      await entry(gameId, gone, '2024-06-03T13:30:00.000Z'); // Monday 13h, soft-deleted group: counts
      await entry(gameId, live, '2024-06-05T07:00:00.000Z'); // Wednesday 07h
      await entry(gameId, null, '2024-06-05T07:10:00.000Z'); // game-wide: not a group's entry
      const other = await game('activity other');
      await entry(other, null, '2024-06-05T07:00:00.000Z');
    });

    const grid = (cells: [number, number, number][]) => {
      const g = Array.from({ length: 7 }, () => Array<number>(24).fill(0));
      for (const [d, h, n] of cells) g[d][h] = n;
      return g;
    };

    it("counts every entry of the game's groups, soft-deleted ones included, at [UTC day][UTC hour], day 0 Sunday", async () => {
      const r = await activity();
      expect(r.status).toBe(200);
      expect(r.body).toEqual({
        from: null,
        to: null,
        totalEvents: 5,
        cells: grid([
          [0, 0, 2],
          [6, 23, 1],
          [1, 13, 1],
          [3, 7, 1],
        ]),
      });
    });

    it('from is inclusive and to exclusive on the entry time', async () => {
      const r = await activity('?from=2024-06-02T00:00:00.000Z&to=2024-06-05T07:00:00.000Z');
      expect(r.status).toBe(200);
      expect(r.body.from).toBe('2024-06-02T00:00:00.000Z');
      expect(r.body.to).toBe('2024-06-05T07:00:00.000Z');
      expect(r.body.totalEvents).toBe(3);
      expect(r.body.cells).toEqual(
        grid([
          [0, 0, 2],
          [1, 13, 1],
        ]),
      );
    });

    it("reads the journal's audit entries only", async () => {
      const [{ id, group_id }] = await t.db.query<{ id: string; group_id: string }>(
        `SELECT id, group_id FROM ${journalAudit()} WHERE game_id = $1 AND created_at = '2024-06-05T07:00:00.000Z'`,
        [gameId],
      );
      // gone from the journal: no reader answers it
      await t.db.query('DELETE FROM journal WHERE id = $1', [id]);
      // an event only, in a group of the game: never an audit entry
      await t.db.query(
        `INSERT INTO journal (id, game_id, group_id, created_at, type, body, names)
         VALUES (gen_random_uuid(), $1, $2, '2024-06-05T08:00:00.000Z', 'member.joined', '{}', '{}')`,
        [gameId, group_id],
      );
      const r = await activity();
      expect(r.body.totalEvents).toBe(4);
      expect(r.body.cells).toEqual(
        grid([
          [0, 0, 2],
          [6, 23, 1],
          [1, 13, 1],
        ]),
      );
    });

    it('an empty game has an all-zero 7 × 24 grid', async () => {
      const empty = await game('activity empty');
      const r = await get(`/v1/admin/games/${empty}/analytics/member-activity`);
      expect(r.body).toEqual({ from: null, to: null, totalEvents: 0, cells: grid([]) });
    });

    it.each([
      ['from', '?from=nope'],
      ['to', '?to=2024-02-30'],
    ])('a malformed %s is 400', async (field, qs) => {
      expectError(await activity(qs), 400, 'bad_request', field);
    });
  });

  describe('role-distribution', () => {
    let gameId: string;

    beforeAll(async () => {
      gameId = await game('roles');
      const g1 = randomUUID();
      const g2 = randomUUID();
      const gone = randomUUID();
      for (const id of [g1, g2]) await insertGroup(gameId, id, '2024-05-01T00:00:00.000Z');
      await insertGroup(gameId, gone, '2024-05-01T00:00:00.000Z', { deleted: true });
      const joined = '2024-05-02T00:00:00.000Z';
      const active = () => insertMember(g1, { joinedAt: joined });
      // Officer: 2 in g1 + 1 in g2; Member: 3 in g1 (one of them also an Officer: once per role).
      const o1 = await insertRole(g1, 'Officer');
      const o2 = await insertRole(g2, 'Officer');
      const m1 = await insertRole(g1, 'Member');
      const lower = await insertRole(g1, 'member'); // a different name: grouping is exact
      const both = await active();
      await assign(both, o1);
      await assign(both, m1);
      await assign(await active(), o1);
      await assign(await insertMember(g2, { joinedAt: joined }), o2);
      await assign(await active(), m1);
      await assign(await active(), m1);
      await assign(await active(), lower);
      // R01 ... R09: one assignment each.
      for (let i = 1; i <= 9; i++) await assign(await active(), await insertRole(g1, `R0${i}`));
      // Not counted: members who left or were banned, a soft-deleted group, a role nobody holds.
      await assign(await insertMember(g1, { status: 'left', joinedAt: joined, leftAt: joined }), o1);
      await assign(await insertMember(g1, { status: 'banned', joinedAt: joined }), m1);
      await assign(await insertMember(gone, { joinedAt: joined }), await insertRole(gone, 'Officer'));
      await insertRole(g1, 'Empty');
    });

    it('counts active assignments by role name: top 10 by count then name, the rest in otherCount', async () => {
      const r = await get(`/v1/admin/games/${gameId}/analytics/role-distribution`);
      expect(r.status).toBe(200);
      expect(r.body).toEqual({
        totalAssignments: 16,
        uniqueRoleNames: 12,
        topRoles: [
          { name: 'Member', count: 3 },
          { name: 'Officer', count: 3 },
          ...[1, 2, 3, 4, 5, 6, 7, 8].map((i) => ({ name: `R0${i}`, count: 1 })),
        ],
        otherCount: 2, // R09 and member
      });
    });

    it('an empty game: zeros and topRoles []', async () => {
      const empty = await game('roles empty');
      const r = await get(`/v1/admin/games/${empty}/analytics/role-distribution`);
      expect(r.body).toEqual({ totalAssignments: 0, uniqueRoleNames: 0, topRoles: [], otherCount: 0 });
    });
  });

  describe('permission-usage', () => {
    let gameId: string;

    beforeAll(async () => {
      gameId = await game('permissions');
      const g1 = randomUUID();
      const g2 = randomUUID();
      const gone = randomUUID();
      for (const id of [g1, g2]) await insertGroup(gameId, id, '2024-05-01T00:00:00.000Z');
      await insertGroup(gameId, gone, '2024-05-01T00:00:00.000Z', { deleted: true });
      const joined = '2024-05-02T00:00:00.000Z';
      await insertRole(g1, 'r1', ['chat.send', 'guild.kick']);
      await insertRole(g1, 'r2', ['chat.send']);
      await insertRole(g2, 'r3', ['chat.send', ...Array.from({ length: 14 }, (_, i) => `k${String(i + 1).padStart(2, '0')}`)]);
      await insertRole(g2, 'no grants');
      // Overrides of any member status, allowed or denied.
      await override(await insertMember(g1, { joinedAt: joined }), 'chat.send');
      await override(await insertMember(g1, { joinedAt: joined }), 'guild.kick', false);
      await override(await insertMember(g2, { status: 'left', joinedAt: joined, leftAt: joined }), 'guild.kick');
      await override(await insertMember(g2, { joinedAt: joined }), 'bank.withdraw');
      // A soft-deleted group's grants and overrides never count.
      await insertRole(gone, 'ghost', ['ghost.key', 'chat.send']);
      await override(await insertMember(gone, { joinedAt: joined }), 'ghost.key');
    });

    it('counts role grants and member overrides per key: top 15 by total then key, the rest in otherCount', async () => {
      const r = await get(`/v1/admin/games/${gameId}/analytics/permission-usage`);
      expect(r.status).toBe(200);
      expect(r.body).toEqual({
        totalCount: 22,
        uniqueKeys: 17,
        items: [
          { permission: 'chat.send', roleGrants: 3, memberOverrides: 1, total: 4 },
          { permission: 'guild.kick', roleGrants: 1, memberOverrides: 2, total: 3 },
          { permission: 'bank.withdraw', roleGrants: 0, memberOverrides: 1, total: 1 },
          ...Array.from({ length: 12 }, (_, i) => ({
            permission: `k${String(i + 1).padStart(2, '0')}`,
            roleGrants: 1,
            memberOverrides: 0,
            total: 1,
          })),
        ],
        otherCount: 2, // k13 and k14
      });
    });

    it('an empty game: zeros and items []', async () => {
      const empty = await game('permissions empty');
      const r = await get(`/v1/admin/games/${empty}/analytics/permission-usage`);
      expect(r.body).toEqual({ totalCount: 0, uniqueKeys: 0, items: [], otherCount: 0 });
    });
  });
});
