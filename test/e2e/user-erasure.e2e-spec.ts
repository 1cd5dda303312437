import { createHash } from 'node:crypto';
import { expectError } from '../helpers/errors';
import { accept, befriend, block, friendsClient, send, sendPending, type FriendsGame } from '../helpers/friends';
import { pseudonymiseStatement } from '../../src/users/user-erasure.repository';
import { untakenSql } from '../../src/webhooks/position-sql';
import { identityOf } from '../helpers/identities';
import { journalAudit, journalEvents } from '../helpers/journal';
import { asAdmin, newGame, startTestApp, type TestApp } from '../helpers/test-app';

/**
 * A player's erasure (EXTENSIONS X7): DELETE /v1/users/:userId and its admin twin. What goes, what
 * is pseudonymised, what stays; and that no trace of either id is left anywhere in the database.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ WEBHOOK_WORKER_ENABLED: 'false' });
});
afterAll(() => t.close());

const enc = encodeURIComponent;
const erase = (g: FriendsGame, userId: string) => g.del(`/v1/users/${enc(userId)}`);
const subjectHash = (gameId: string, userId: string) => createHash('sha256').update(`${gameId}:${userId}`).digest('hex');

async function game(): Promise<FriendsGame> {
  const { gameId, key } = await newGame(t, 'erasure');
  return friendsClient(t, gameId, key);
}

async function group(g: FriendsGame, body: Record<string, unknown>): Promise<string> {
  const r = await g.post('/v1/groups', { kind: 'guild', name: `G ${Math.random()}`, visibility: 'public', ...body });
  expect(r.status).toBe(201);
  return r.body.id as string;
}

const join = async (g: FriendsGame, groupId: string, userId: string) => expect((await g.post(`/v1/groups/${groupId}/join`, { userId })).status).toBe(201);

/** Every row of every table of the database, as text, but the erasure's own record of itself. */
async function rowsNaming(needle: string): Promise<string[]> {
  const tables = await t.db.query<{ table_name: string }>(
    `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name`,
  );
  const found: string[] = [];
  for (const { table_name: table } of tables) {
    const rows = await t.db.query<{ row: string }>(`SELECT x::text AS row FROM ${table} x WHERE strpos(x::text, $1) > 0`, [needle]);
    // The erasure's own event names the player, as the feed says it does.
    for (const { row } of rows) if (!(table === 'journal' && row.includes('user.erased'))) found.push(`${table}: ${row}`);
  }
  return found;
}

/** A player with something in every part of the game: the erasure's subject. */
async function seedPlayer(g: FriendsGame, eve: string) {
  const owned = await group(g, { creatorUserId: eve });
  await join(g, owned, 'bob');
  await join(g, owned, 'carl');
  const joined = await group(g, { creatorUserId: 'bob' });
  await join(g, joined, eve);
  const role = await g.post(`/v1/groups/${joined}/roles`, { name: 'officer', priority: 10, permissions: ['chat'] });
  expect(role.status).toBe(201);
  expect((await g.post(`/v1/groups/${joined}/members/${enc(eve)}/roles/${role.body.id}`)).status).toBeLessThan(300);
  const banning = await group(g, { creatorUserId: 'bob' });
  await join(g, banning, eve);
  expect((await g.post(`/v1/groups/${banning}/bans`, { userId: eve, reason: 'spam' })).status).toBe(201);
  expect((await g.post('/v1/bans', { userId: 'mallory', actorUserId: eve })).status).toBe(201);
  const closed = await group(g, { creatorUserId: 'bob', visibility: 'invite-only' });
  expect((await g.post(`/v1/groups/${closed}/join-requests`, { userId: eve, message: 'let me in' })).status).toBe(201);
  const invitedTo = await group(g, { creatorUserId: 'carl' });
  expect((await g.post(`/v1/groups/${invitedTo}/invitations`, { targetUserId: eve, invitedByUserId: 'carl' })).status).toBe(201);
  const sent = await g.post(`/v1/groups/${owned}/invitations`, { targetUserId: 'dan', invitedByUserId: eve });
  expect(sent.status).toBe(201);
  await befriend(g, eve, 'bob');
  await befriend(g, 'carl', eve);
  await sendPending(g, eve, 'dan');
  await sendPending(g, 'fay', eve);
  expect((await block(g, eve, 'gus')).status).toBe(201);
  expect((await g.post(`/v1/users/${enc(eve)}/friend-tags`, { name: 'raid' })).status).toBe(201);
  expect((await g.patch(`/v1/users/${enc(eve)}/visibility`, { friendsListVisibility: 'private' })).status).toBe(200);
  expect((await g.post('/v1/bans', { userId: eve, reason: 'cheating', actorUserId: 'mod' })).status).toBe(201);
  return { owned, joined, banning, closed, invitedTo, invitationSent: sent.body.id as string };
}

describe('DELETE /v1/users/:userId', () => {
  it('removes the user from every part of the game, counts what went, and leaves no trace of either id anywhere', async () => {
    const g = await game();
    const eve = 'eve-the-erased';
    const groups = await seedPlayer(g, eve);
    const svcUserId = (await identityOf(t, g.gameId, eve))!;
    const auditBefore = await t.db.query<{ id: string }>(`SELECT id FROM ${journalAudit()} WHERE game_id = $1 ORDER BY created_at, id`, [g.gameId]);
    const eventsBefore = await t.db.query<{ id: string }>(`SELECT id FROM ${journalEvents()} WHERE game_id = $1 ORDER BY era, xid, seq`, [g.gameId]);
    expect((await rowsNaming(eve)).length).toBeGreaterThan(20);

    const r = await erase(g, eve);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      userId: eve,
      pseudonym: expect.stringMatching(/^erased_[0-9a-f]{32}$/),
      erasedAt: expect.any(String),
      removed: { memberships: 2, friendships: 2, friendRequests: 2, blocks: 1, tags: 1, invitations: 1, joinRequests: 1, bans: 2 },
    });
    const { pseudonym, erasedAt } = r.body as { pseudonym: string; erasedAt: string };

    expect(await rowsNaming(eve)).toEqual([]);
    expect(await rowsNaming(svcUserId)).toEqual([]);

    // The history keeps its ids, order and counts; what named the user names the pseudonym.
    const auditAfter = await t.db.query<{ id: string; action: string; target_id: string | null; actor: string | null }>(
      `SELECT id, action, target_id, actor_pseudonym AS actor FROM ${journalAudit()} WHERE game_id = $1 ORDER BY created_at, id`,
      [g.gameId],
    );
    expect(auditAfter.slice(0, auditBefore.length).map((a) => a.id)).toEqual(auditBefore.map((a) => a.id));
    expect(auditAfter).toHaveLength(auditBefore.length + 1);
    expect(auditAfter.filter((a) => a.target_id === pseudonym && a.action === 'member.joined').length).toBe(3);
    expect(auditAfter.some((a) => a.actor === pseudonym)).toBe(true);
    const erasedEntry = auditAfter[auditAfter.length - 1];
    expect(erasedEntry).toMatchObject({ action: 'user.erased', target_id: pseudonym, actor: null });
    const [entry] = await t.db.query<{ group_id: string | null; payload: unknown }>(`SELECT group_id, payload FROM ${journalAudit()} WHERE id = $1`, [erasedEntry.id]);
    expect(entry).toEqual({ group_id: null, payload: { removed: r.body.removed } });

    const eventsAfter = await t.db.query<{ id: string; type: string; body: Record<string, unknown> }>(
      `SELECT id, type, body FROM ${journalEvents()} WHERE game_id = $1 ORDER BY era, xid, seq`,
      [g.gameId],
    );
    expect(eventsAfter.slice(0, eventsBefore.length).map((e) => e.id)).toEqual(eventsBefore.map((e) => e.id));
    expect(eventsAfter).toHaveLength(eventsBefore.length + 1);
    expect(eventsAfter.filter((e) => JSON.stringify(e.body).includes(pseudonym)).length).toBeGreaterThan(5);
    expect(eventsAfter[eventsAfter.length - 1].body).toEqual({
      id: eventsAfter[eventsAfter.length - 1].id,
      type: 'user.erased',
      gameId: g.gameId,
      occurredAt: expect.any(String),
      userId: eve,
      erasedAt,
    });

    // Ownership passed to the longest-standing other active member; counts followed.
    const owned = await g.get(`/v1/groups/${groups.owned}`);
    expect(owned.body).toMatchObject({ ownerUserId: 'bob', memberCount: 2 });
    expect((await g.get(`/v1/groups/${groups.joined}`)).body.memberCount).toBe(1);
    // The invitation eve sent stays, naming the pseudonym as its sender.
    const [sentRow] = await t.db.query<{ invited_by_user_id: string }>('SELECT invited_by_user_id FROM invitations WHERE id = $1', [groups.invitationSent]);
    expect(sentRow.invited_by_user_id).toBe(pseudonym);
    // The ban eve set on mallory names the pseudonym.
    const mallory = await g.get('/v1/bans/mallory');
    expect(mallory.body.bannedBy).toBe(pseudonym);

    // The ledger holds a one-way hash, never the id.
    const ledger = await t.http.get(`/v1/admin/erasures?since=${enc(erasedAt)}`).set(asAdmin);
    expect(ledger.status).toBe(200);
    expect(ledger.body.items).toContainEqual({ id: expect.any(String), gameId: g.gameId, subjectHash: subjectHash(g.gameId, eve), erasedAt });
  });

  it('afterwards the game has never seen the user: the same id is a new user with no past', async () => {
    const g = await game();
    const groupId = await group(g, { creatorUserId: 'bob' });
    await join(g, groupId, 'eve');
    await befriend(g, 'eve', 'bob');
    const before = await identityOf(t, g.gameId, 'eve');
    expect((await erase(g, 'eve')).status).toBe(200);
    expect(await identityOf(t, g.gameId, 'eve')).toBeNull();
    expect((await g.get('/v1/users/eve/friends')).body.items).toEqual([]);
    await join(g, groupId, 'eve');
    const after = await identityOf(t, g.gameId, 'eve');
    expect(after).not.toBeNull();
    expect(after).not.toBe(before);
    const members = await g.get(`/v1/groups/${groupId}/members`);
    expect(members.body.items.map((m: { userId: string }) => m.userId).sort()).toEqual(['bob', 'eve']);
  });

  it('a user the game has never seen: 200 with zero counts, recorded in the ledger, the event and audit entry written', async () => {
    const g = await game();
    const r = await erase(g, 'nobody');
    expect(r.status).toBe(200);
    expect(r.body.removed).toEqual({ memberships: 0, friendships: 0, friendRequests: 0, blocks: 0, tags: 0, invitations: 0, joinRequests: 0, bans: 0 });
    const [row] = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM erasures WHERE game_id = $1 AND subject_hash = $2', [g.gameId, subjectHash(g.gameId, 'nobody')]);
    expect(row.n).toBe(1);
    const types = await t.db.query<{ type: string }>(`SELECT type FROM ${journalEvents()} WHERE game_id = $1`, [g.gameId]);
    expect(types.map((e) => e.type)).toEqual(['user.erased']);
    expect(await identityOf(t, g.gameId, 'nobody')).toBeNull();
  });

  it('touches only the calling game: the same external id in another game keeps everything', async () => {
    const a = await game();
    const b = await game();
    for (const g of [a, b]) {
      const groupId = await group(g, { creatorUserId: 'eve' });
      await join(g, groupId, 'bob');
      await befriend(g, 'eve', 'bob');
    }
    expect((await erase(a, 'eve')).status).toBe(200);
    expect((await b.get('/v1/users/eve/friends')).body.items).toHaveLength(1);
    const [left] = await t.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM ${journalAudit()} WHERE game_id = $1 AND (target_id = 'eve' OR payload::text LIKE '%"eve"%')`,
      [b.gameId],
    );
    expect(left.n).toBeGreaterThan(0);
  });

  it('keeps the internal user of an identity linked into another game, and only forgets it here', async () => {
    const a = await game();
    const b = await game();
    await group(a, { creatorUserId: 'eve' });
    const svcUserId = (await identityOf(t, a.gameId, 'eve'))!;
    expect((await t.http.put(`/v1/admin/games/${b.gameId}/users/eve-b`).set(asAdmin).send({ svcUserId })).status).toBe(200);
    const groupB = await group(b, { creatorUserId: 'eve-b' });
    expect((await erase(a, 'eve')).status).toBe(200);
    expect(await identityOf(t, a.gameId, 'eve')).toBeNull();
    expect(await identityOf(t, b.gameId, 'eve-b')).toBe(svcUserId);
    expect((await b.get(`/v1/groups/${groupB}`)).body).toMatchObject({ ownerUserId: 'eve-b', memberCount: 1 });
  });

  it('a group the user owned alone is left without an owner', async () => {
    const g = await game();
    const solo = await group(g, { creatorUserId: 'eve' });
    expect((await erase(g, 'eve')).status).toBe(200);
    expect((await g.get(`/v1/groups/${solo}`)).body).toMatchObject({ ownerUserId: null, memberCount: 0 });
  });

  it('pending webhook deliveries keep their ids and carry the pseudonym', async () => {
    const g = await game();
    const hook = await g.post('/v1/webhooks', { url: 'https://hooks.example.com/in', secret: 's'.repeat(32) });
    expect(hook.status).toBe(201);
    const groupId = await group(g, { creatorUserId: 'bob' });
    await join(g, groupId, 'eve');
    // A commit writes no delivery row: the pending deliveries are the events queued after the
    // endpoint's position, under the ids their rows will have, and what the worker will send is
    // the event's body as it is then.
    const queued = () =>
      t.db.query<{ id: string; body: unknown }>(
        `SELECT u.id, o.body FROM (${untakenSql('p.endpoint_id = $1')}) u JOIN ${journalEvents('o')} ON o.id = u.event_id ORDER BY u.id`,
        [hook.body.id],
      );
    const pendingBefore = await queued();
    expect(pendingBefore.length).toBeGreaterThanOrEqual(2);
    const r = await erase(g, 'eve');
    const deliveries = (await queued()).filter((d) => pendingBefore.some((b) => b.id === d.id));
    expect(deliveries.map((d) => d.id)).toEqual(pendingBefore.map((d) => d.id));
    const joined = deliveries.map((d) => JSON.stringify(d.body)).filter((b) => b.includes('member.joined') && b.includes(r.body.pseudonym));
    expect(joined).toHaveLength(1);
    expect(deliveries.some((d) => JSON.stringify(d.body).includes('"eve"'))).toBe(false);
  });

  it('the admin audit names an erased actor by the pseudonym, and filters by it', async () => {
    const g = await game();
    expect((await g.post('/v1/bans', { userId: 'mallory', actorUserId: 'eve' })).status).toBe(201);
    const { pseudonym } = (await erase(g, 'eve')).body as { pseudonym: string };
    const audit = await t.http.get(`/v1/admin/games/${g.gameId}/audit?actorUserId=${pseudonym}`).set(asAdmin);
    expect(audit.status).toBe(200);
    expect(audit.body.items.map((a: { action: string; actorUserId: string }) => [a.action, a.actorUserId])).toEqual([['game.user.banned', pseudonym]]);
  });
});

describe('a player named only as an object key', () => {
  type Row = { id: string; doc: Record<string, unknown> };
  const historyOf = async (gameId: string) => ({
    events: await t.db.query<Row>(`SELECT id, body AS doc FROM ${journalEvents()} WHERE game_id = $1 AND type <> 'user.erased' ORDER BY era, xid, seq`, [gameId]),
    audit: await t.db.query<Row>(`SELECT id, payload AS doc FROM ${journalAudit()} WHERE game_id = $1 AND action <> 'user.erased' ORDER BY created_at, id`, [gameId]),
    operator: await t.db.query<Row>(`SELECT id::text, details AS doc FROM operator_audit WHERE game_id = $1 AND action <> 'user.erased' ORDER BY id`, [gameId]),
  });

  it('is pseudonymised in events, audit entries and operator audit entries: the key becomes the pseudonym, its value stays', async () => {
    const g = await game();
    const eve = 'eve-the-keyed';
    // Eve is named by the game's writes only as a key: of a group's metadata, deep in another's, of a member's.
    const ranked = await group(g, { creatorUserId: 'bob', metadata: { ranks: { [eve]: 'officer', bob: 'leader' } } });
    const deep = await group(g, { metadata: { seasons: [{ standings: { top: { [eve]: { wins: 3 } } } }] } });
    await join(g, ranked, 'carl');
    expect((await g.patch(`/v1/groups/${ranked}/members/carl`, { metadata: { rivals: { [eve]: 'sworn' } } })).status).toBe(200);
    // Operator audit details are free JSON; no admin route writes a map keyed by player yet, so the
    // entry is written as one would be.
    await t.db.query(`INSERT INTO operator_audit (operator_id, operator_name, action, game_id, target_id, details) VALUES (NULL, 'root', 'group.deleted', $1, $2, $3)`, [
      g.gameId,
      deep,
      { name: 'Deep', standings: { [eve]: 2 } },
    ]);
    const before = await historyOf(g.gameId);
    const naming = (rows: Row[]) => rows.filter((r) => JSON.stringify(r.doc).includes(JSON.stringify(eve))).map((r) => r.id);
    expect([naming(before.events).length, naming(before.audit).length, naming(before.operator).length]).toEqual([3, 3, 1]);

    const r = await erase(g, eve);
    expect(r.status).toBe(200);
    const { pseudonym } = r.body as { pseudonym: string };
    const after = await historyOf(g.gameId);
    for (const part of ['events', 'audit', 'operator'] as const) {
      expect(naming(after[part])).toEqual([]);
      // The same rows, each with the key swapped and nothing else changed.
      const swapped = before[part].map((row) => ({ id: row.id, doc: JSON.parse(JSON.stringify(row.doc).split(JSON.stringify(eve)).join(JSON.stringify(pseudonym))) }));
      expect(after[part]).toEqual(swapped);
    }
    const event = after.events.find((e) => (e.doc as { type: string; group?: { id: string } }).type === 'group.created' && (e.doc as { group: { id: string } }).group.id === ranked);
    expect(event?.doc).toMatchObject({ group: { metadata: { ranks: { [pseudonym]: 'officer', bob: 'leader' } } } });
    expect(after.audit.find((a) => (a.doc as { after?: unknown }).after)?.doc).toMatchObject({ after: { metadata: { rivals: { [pseudonym]: 'sworn' } } } });
    expect(after.operator.map((o) => o.doc)).toContainEqual({ name: 'Deep', standings: { [pseudonym]: 2 } });
  });

  it('a key that only contains the id, or the id inside a longer string, is not the player and stays', async () => {
    const g = await game();
    const eve = 'eve-the-keyed';
    const kept = { ranks: { [`${eve}-alt`]: 'officer' }, motto: `ask ${eve}` };
    await group(g, { creatorUserId: 'bob', metadata: kept });
    const before = await historyOf(g.gameId);
    expect((await erase(g, eve)).status).toBe(200);
    expect(await historyOf(g.gameId)).toEqual(before);
  });
});

describe('the rows to rewrite are found by the indexes of names', () => {
  interface PlanNode {
    'Node Type': string;
    'Relation Name'?: string;
    'Index Name'?: string;
    Plans?: PlanNode[];
  }
  const flatten = (n: PlanNode): PlanNode[] => [n, ...(n.Plans ?? []).flatMap(flatten)];

  it("in a game with thousands of audit entries, events and operator entries, no rewrite reads the game's history", async () => {
    const g = await game();
    const groupId = await group(g, { creatorUserId: 'bob' });
    await join(g, groupId, 'eve');
    const svcUserId = (await identityOf(t, g.gameId, 'eve'))!;
    // Other players' history, and some of eve's: each table as a game's history is, mostly about others.
    await t.db.query(
      `INSERT INTO journal (id, game_id, group_id, action, target_id, payload, names)
       SELECT svc_uuidv7(), $1, $2, 'member.updated', x.target, x.payload, svc_journal_names(NULL, x.target, x.payload, NULL)
       FROM generate_series(1, 30000) n, LATERAL (
         SELECT CASE WHEN n % 400 = 0 THEN 'eve' ELSE 'p' || n END AS target,
           jsonb_build_object('memberId', gen_random_uuid(), 'after', jsonb_build_object('metadata', jsonb_build_object('rivals', jsonb_build_object('p' || (n + 1), 'sworn')))) AS payload
       ) x`,
      [g.gameId, groupId],
    );
    await t.db.query(
      `INSERT INTO journal (id, game_id, group_id, type, body, names)
       SELECT (e.id || '00000000')::uuid, $1, $2, 'member.updated', b.body, svc_journal_names(NULL, NULL, NULL, b.body)
       FROM generate_series(1, 30000) n, LATERAL (SELECT substr(md5(random()::text || n), 1, 24) AS id) e,
         LATERAL (SELECT jsonb_build_object('id', e.id, 'type', 'member.updated', 'member', jsonb_build_object('userId', CASE WHEN n % 400 = 0 THEN 'eve' ELSE 'p' || n END)) AS body) b`,
      [g.gameId, groupId],
    );
    await t.db.query(
      `INSERT INTO operator_audit (operator_name, action, game_id, target_id, details)
       SELECT 'root', 'member.kicked', $1, 'p' || n, jsonb_build_object('groupId', $2::text, 'reason', 'spam') FROM generate_series(1, 3000) n`,
      [g.gameId, groupId],
    );
    await t.db.query('ANALYZE journal, operator_audit');

    const { sql, params } = pseudonymiseStatement({ gameId: g.gameId, externalUserId: 'eve', svcUserId, pseudonym: 'erased_00000000000000000000000000000000' });
    const [row] = await t.db.query<{ 'QUERY PLAN': { Plan: PlanNode }[] }>(`EXPLAIN (FORMAT JSON) ${sql}`, params);
    const nodes = flatten(row['QUERY PLAN'][0].Plan);
    if (process.env.SHOW_PLANS) console.log(JSON.stringify(row['QUERY PLAN'][0].Plan, null, 1));
    expect(nodes.filter((n) => n['Node Type'] === 'Seq Scan').map((n) => n['Relation Name'])).toEqual([]);
    const indexes = new Set(nodes.map((n) => n['Index Name']).filter(Boolean));
    expect([...indexes].filter((i) => /_names$/.test(i!)).sort()).toEqual(['journal_names', 'operator_audit_names']);
    // The operator entries whose target is the user, by a hash of the id: a b-tree could not hold the longest ids.
    expect(indexes).toContain('operator_audit_by_target_hash');
  });
});

describe('DELETE /v1/admin/games/:gameId/users/:userId', () => {
  it('erases like the game route', async () => {
    const g = await game();
    const groupId = await group(g, { creatorUserId: 'eve' });
    const r = await t.http.delete(`/v1/admin/games/${g.gameId}/users/eve`).set(asAdmin);
    expect(r.status).toBe(200);
    expect(r.body.removed.memberships).toBe(1);
    expect((await g.get(`/v1/groups/${groupId}`)).body.memberCount).toBe(0);
  });

  it('an unknown game is 404; an over-long id 400 naming userId', async () => {
    expectError(await t.http.delete('/v1/admin/games/00000000-0000-4000-8000-000000000000/users/eve').set(asAdmin), 404, 'not_found');
    expectError(await t.http.delete('/v1/admin/games/not-a-uuid/users/eve').set(asAdmin), 404, 'not_found');
    const long = 'x'.repeat(16_385);
    const r = await t.http.delete(`/v1/admin/games/00000000-0000-4000-8000-000000000000/users/${long}`).set(asAdmin);
    expectError(r, 400, 'bad_request');
    expect(r.body.message).toContain('userId');
  });
});

describe('bad input', () => {
  it('an over-long user id is 400 naming userId, and erases nothing; an id at the limit is erased', async () => {
    const g = await game();
    const r = await erase(g, 'y'.repeat(16_385));
    expectError(r, 400, 'bad_request');
    expect(r.body.message).toContain('userId');
    expect((await t.db.query('SELECT 1 FROM erasures WHERE game_id = $1', [g.gameId])).length).toBe(0);
    expect((await erase(g, 'y'.repeat(16_384))).status).toBe(200);
  });

  it('an empty user id is 400 naming userId, here and on the admin twin, and erases nothing; other empty segments stay 404', async () => {
    const g = await game();
    const pub = await g.del('/v1/users/');
    expectError(pub, 400, 'bad_request');
    expect(pub.body.message).toBe('userId must not be empty');
    const twin = await t.http.delete(`/v1/admin/games/${g.gameId}/users/`).set(asAdmin);
    expectError(twin, 400, 'bad_request');
    expect(twin.body.message).toBe('externalUserId must not be empty');
    const [row] = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM erasures WHERE game_id = $1', [g.gameId]);
    expect(row.n).toBe(0);
    expectError(await g.get('/v1/groups//members'), 404, 'not_found');
    expectError(await g.del('/v1/nothing/'), 404, 'not_found');
  });

  it('without an API key: 401', async () => {
    expectError(await t.http.delete('/v1/users/eve'), 401, 'invalid_api_key');
  });
});

describe('friend requests to the user are gone for the other side too', () => {
  it("a request eve received no longer appears in the sender's outbound list, and can be sent again to the new eve", async () => {
    const g = await game();
    const requestId = await sendPending(g, 'fay', 'eve');
    expect((await erase(g, 'eve')).status).toBe(200);
    expectError(await accept(g, requestId), 404, 'not_found');
    expect((await send(g, 'fay', 'eve')).status).toBe(201);
  });
});
