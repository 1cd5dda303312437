import { randomUUID } from 'node:crypto';
import { insertAuditSql, journalAudit } from '../helpers/journal';
import { asAdmin, bearer, newGame, startTestApp, type TestApp } from '../helpers/test-app';

/**
 * SPEC §4 Admin surface: GET /v1/admin/games/:gameId/audit (before as an id or a timestamp,
 * since, repeated actions, actorUserId, targetId, all AND-combined); §8 (default 50, cap 100,
 * filter lengths 1-255); DECISIONS §18 (exact keyset over equal timestamps).
 */

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

interface Item {
  id: string;
  action: string;
  gameId: string;
  groupId: string | null;
  actorUserId: string | null;
  targetId: string | null;
  createdAt: string;
}

describe('GET /v1/admin/games/:gameId/audit', () => {
  let t: TestApp;
  let gameId: string;
  let other: string;
  const groupId = randomUUID();
  const deletedGroupId = randomUUID();
  const actorA = randomUUID();
  const actorB = randomUUID();
  /** Every seeded entry, newest first (createdAt descending, id descending). */
  let expected: Item[];

  const T = (s: number, msPart = 0) => new Date(Date.UTC(2024, 5, 1, 12, 0, s, msPart)).toISOString();

  beforeAll(async () => {
    t = await startTestApp();
    gameId = (await newGame(t, 'audited game')).gameId;
    other = (await newGame(t, 'other game')).gameId;
    await t.db.query(
      `INSERT INTO groups (id, game_id, kind, name, visibility) VALUES ($1, $3, 'guild', 'Live', 'public'),
              ($2, $3, 'guild', 'Gone', 'public')`,
      [groupId, deletedGroupId, gameId],
    );
    await t.db.query('UPDATE groups SET soft_deleted_at = now() WHERE id = $1', [deletedGroupId]);
    const rows: [string | null, string | null, string, string | null, string][] = [
      // group, actor, action, target, createdAt
      [groupId, null, 'group.created', groupId, T(0)],
      [groupId, actorA, 'member.joined', 'alice', T(1)],
      [groupId, actorB, 'member.joined', 'bob', T(1)], // same instant as the one above
      [groupId, actorB, 'member.joined', 'carol', T(1)], // and again
      [groupId, actorA, 'role.created', 'role-1', T(2)],
      [null, actorA, 'game.user.banned', 'bob', T(3)], // game-wide: no group
      [deletedGroupId, null, 'group.created', deletedGroupId, T(4)],
      [deletedGroupId, null, 'group.deleted', deletedGroupId, T(5, 500)],
      [groupId, actorA, 'member.left', 'alice', T(6)],
    ];
    for (const [g, actor, action, target, createdAt] of rows) {
      await t.db.query(
        insertAuditSql(['id', 'game_id', 'group_id', 'actor_user_id', 'action', 'target_id', 'payload', 'created_at'], `VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`),
        [randomUUID(), gameId, g, actor, action, target, { seeded: action }, createdAt],
      );
    }
    await t.db.query(
      insertAuditSql(['id', 'game_id', 'action', 'target_id', 'created_at'], `VALUES ($1, $2, 'member.joined', 'alice', $3)`),
      [randomUUID(), other, T(1)],
    );
    expected = (
      await t.db.query<{ id: string }>(
        `SELECT id FROM ${journalAudit()} WHERE game_id = $1 ORDER BY created_at DESC, id DESC`,
        [gameId],
      )
    ).map((r) => ({ id: r.id }) as Item);
  });
  afterAll(() => t.close());

  const audit = (qs = '', id = gameId) => t.http.get(`/v1/admin/games/${id}/audit${qs}`).set(asAdmin);
  const ids = (items: { id: string }[]) => items.map((i) => i.id);
  function expectError(r: { status: number; body: { code?: string; message?: string } }, status: number, code: string, field?: string) {
    expect(r.status).toBe(status);
    expect(r.body.code).toBe(code);
    if (field) expect(r.body.message).toMatch(new RegExp(`^${field}\\b`));
  }

  it('needs the admin token', async () => {
    const key = (await newGame(t, 'key')).key;
    for (const headers of [{}, bearer(key), bearer('jadm_wrong')]) {
      const r = await t.http.get(`/v1/admin/games/${gameId}/audit`).set(headers);
      expect(r.status).toBe(401);
      expect(r.body.code).toBe('invalid_admin_token');
    }
  });

  it("lists every entry of the game, newest first (id descending within a millisecond), soft-deleted groups and game-wide entries included", async () => {
    const r = await audit();
    expect(r.status).toBe(200);
    expect(ids(r.body.items)).toEqual(ids(expected));
    expect(r.body.nextCursor).toBeNull();
    const ban = r.body.items.find((i: Item) => i.action === 'game.user.banned');
    expect(ban).toEqual({
      id: expect.any(String),
      action: 'game.user.banned',
      gameId,
      gameName: 'audited game',
      groupId: null,
      groupName: null,
      groupSoftDeleted: false,
      actorUserId: actorA,
      targetId: 'bob',
      payload: { seeded: 'game.user.banned' },
      createdAt: T(3),
    });
    const gone = r.body.items.filter((i: Item) => i.groupId === deletedGroupId);
    expect(gone.map((i: { groupName: string; groupSoftDeleted: boolean }) => [i.groupName, i.groupSoftDeleted])).toEqual([
      ['Gone', true],
      ['Gone', true],
    ]);
    expect(r.body.items[0].createdAt).toMatch(ISO_MS);
  });

  it('before=<nextCursor> walks the log exactly, even across entries sharing a millisecond', async () => {
    for (const limit of [1, 2, 4]) {
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const r = await audit(`?limit=${limit}${cursor ? `&before=${cursor}` : ''}`);
        expect(r.status).toBe(200);
        seen.push(...ids(r.body.items));
        cursor = r.body.nextCursor;
        if (cursor) expect(cursor).toBe(r.body.items[r.body.items.length - 1].id);
      } while (cursor);
      expect(seen).toEqual(ids(expected));
    }
  });

  it('before as a timestamp is an exclusive upper bound; since is an inclusive lower bound', async () => {
    const r = await audit(`?before=${T(1)}`);
    expect(r.body.items.map((i: Item) => i.createdAt)).toEqual([T(0)]);
    const s = await audit(`?since=${T(5, 500)}`);
    expect(s.body.items.map((i: Item) => i.action)).toEqual(['member.left', 'group.deleted']);
    const both = await audit(`?since=${T(1)}&before=${T(2)}`);
    expect(both.body.items).toHaveLength(3);
    expect(both.body.items.every((i: Item) => i.createdAt === T(1))).toBe(true);
  });

  it('actions is repeatable and OR-combined', async () => {
    const r = await audit('?actions=member.left&actions=game.user.banned');
    expect(r.body.items.map((i: Item) => i.action)).toEqual(['member.left', 'game.user.banned']);
  });

  it('actorUserId and targetId match exactly; every filter is AND-combined', async () => {
    expect((await audit(`?actorUserId=${actorB}`)).body.items.map((i: Item) => i.targetId).sort()).toEqual(['bob', 'carol']);
    expect((await audit('?targetId=bob')).body.items.map((i: Item) => i.action)).toEqual(['game.user.banned', 'member.joined']);
    expect((await audit('?targetId=bo')).body.items).toEqual([]);
    const combined = await audit(`?actions=member.joined&actorUserId=${actorA}&since=${T(1)}&targetId=alice`);
    expect(combined.body.items.map((i: Item) => [i.action, i.targetId])).toEqual([['member.joined', 'alice']]);
    expect((await audit(`?actions=member.left&actorUserId=${actorB}`)).body.items).toEqual([]);
  });

  it('an actorUserId that is no stored id (external id, uppercase uuid) matches nothing', async () => {
    expect((await audit('?actorUserId=alice')).body).toEqual({ items: [], nextCursor: null });
    expect((await audit(`?actorUserId=${actorA.toUpperCase()}`)).body.items).toEqual([]);
  });

  it('limit: default 50, 100 accepted, 0 / 101 / abc refused', async () => {
    await t.db.query(
      insertAuditSql(
        ['id', 'game_id', 'action', 'created_at'],
        `SELECT gen_random_uuid(), $1, 'member.updated', '2023-01-01T00:00:00Z'::timestamptz + i * interval '1 second' FROM generate_series(1, 120) i`,
      ),
      [other],
    );
    const d = await audit('', other);
    expect(d.body.items).toHaveLength(50);
    expect(typeof d.body.nextCursor).toBe('string');
    expect((await audit('?limit=100', other)).body.items).toHaveLength(100);
    for (const bad of ['0', '101', 'abc']) expectError(await audit(`?limit=${bad}`), 400, 'bad_request', 'limit');
  });

  it.each<[string, string, string]>([
    ['an unknown action', '?actions=group.created&actions=no.such', 'actions'],
    ['an unparseable since', '?since=last-week', 'since'],
    ['an unparseable before', '?before=garbage', 'before'],
    ['an empty actorUserId', '?actorUserId=', 'actorUserId'],
    ['an empty targetId', '?targetId=', 'targetId'],
    ['an actorUserId of 256 characters', `?actorUserId=${'a'.repeat(256)}`, 'actorUserId'],
    ['a targetId of 256 characters', `?targetId=${'t'.repeat(256)}`, 'targetId'],
  ])('%s is 400 naming the field', async (_case, qs, field) => {
    expectError(await audit(qs), 400, 'bad_request', field);
  });

  it('filters of 255 characters are accepted', async () => {
    expect((await audit(`?targetId=${'t'.repeat(255)}&actorUserId=${'a'.repeat(255)}`)).status).toBe(200);
  });

  it('a before id that names no entry of this game is 400 (another game, unknown)', async () => {
    const foreign = (await audit('', other)).body.items[0].id;
    expectError(await audit(`?before=${foreign}`), 400, 'bad_request', 'before');
    expectError(await audit(`?before=${randomUUID()}`), 400, 'bad_request', 'before');
  });

  it('the game and group routes read the journal, its audit entries only', async () => {
    const game = (await newGame(t, 'journal')).gameId;
    const group = randomUUID();
    await t.db.query(`INSERT INTO groups (id, game_id, kind, name, visibility) VALUES ($1, $2, 'guild', 'Read', 'public')`, [group, game]);
    const entries = [randomUUID(), randomUUID(), randomUUID()];
    for (const [i, id] of entries.entries()) {
      await t.db.query(insertAuditSql(['id', 'game_id', 'group_id', 'action', 'created_at'], `VALUES ($1, $2, $3, 'member.joined', $4)`), [
        id,
        game,
        group,
        T(i),
      ]);
    }
    // gone from the journal: no reader answers it
    await t.db.query('DELETE FROM journal WHERE id = $1', [entries[1]]);
    // the newest row of the group, an event only: never an audit entry
    const [event] = await t.db.query<{ id: string }>(
      `INSERT INTO journal (id, game_id, group_id, created_at, type, body, names)
       VALUES (gen_random_uuid(), $1, $2, $3, 'member.joined', '{}', '{}') RETURNING id`,
      [game, group, T(9)],
    );
    for (const path of [`/v1/admin/games/${game}/audit`, `/v1/admin/games/${game}/groups/${group}/audit`]) {
      expect(ids((await t.http.get(path).set(asAdmin)).body.items)).toEqual([entries[2], entries[0]]);
      for (const before of [entries[1], event.id]) {
        expectError(await t.http.get(`${path}?before=${before}`).set(asAdmin), 400, 'bad_request', 'before');
      }
    }
  });

  it('404 only for an unknown (or malformed) game; a game with no entries is 200 with items []', async () => {
    expectError(await audit('', randomUUID()), 404, 'not_found');
    expectError(await audit('', 'not-a-uuid'), 404, 'not_found');
    const quiet = (await newGame(t, 'quiet')).gameId;
    expect((await audit('', quiet)).body).toEqual({ items: [], nextCursor: null });
  });
});
