import { DataSource } from 'typeorm';
import { GroupsRepository } from '../../src/groups/groups.repository';
import { expireJournalEvents } from '../../src/sweeper/journal-expiry';
import { AUTO, befriend, friendsGame, uid, type FriendsGame } from '../helpers/friends';
import { insertAuditSql, journalRows, type JournalRow } from '../helpers/journal';
import { startTestApp, type TestApp } from '../helpers/test-app';

/**
 * The journal (docs/design/write-path.md step 5): from release 1.4.0 every change is written once,
 * to the journal, an audit entry and its event in one row, and nothing to audit_entries and
 * outbox_events (emptied by 1.6.0's OldTablesEmptied, dropped by 1.7.0's OldTablesDropped). What
 * later happens to a change (an erasure, retention, a purged group) happens to its journal row.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ WEBHOOK_WORKER_ENABLED: 'false' });
});
afterAll(() => t.close());

/** A string's hash as the journal keeps it (svc_name_hash). */
const hashes = new Map<string, number>();
async function hashOf(s: string): Promise<number> {
  if (!hashes.has(s)) hashes.set(s, (await t.db.query<{ h: number }>(`SELECT svc_name_hash($1) AS h`, [s]))[0].h);
  return hashes.get(s)!;
}

async function groupWith(g: FriendsGame, owner: string, members: string[]): Promise<string> {
  const r = await g.post('/v1/groups', { kind: 'guild', name: `G ${uid()}`, visibility: 'public', creatorUserId: owner });
  expect(r.status).toBe(201);
  for (const userId of members) expect((await g.post(`/v1/groups/${r.body.id}/join`, { userId })).status).toBe(201);
  return r.body.id as string;
}

it('writes each change once, to the journal alone: an audit entry and its event share one row and one key', async () => {
  const g = await friendsGame(t, AUTO);
  const groupId = await groupWith(g, 'ana', ['bob', 'cy']);
  expect((await g.post(`/v1/groups/${groupId}/leave`, { userId: 'cy' })).status).toBeLessThan(300);

  // The old tables are gone (1.7.0's OldTablesDropped).
  const [old] = await t.db.query<{ a: string | null; o: string | null }>(`SELECT to_regclass('audit_entries') AS a, to_regclass('outbox_events') AS o`);
  expect(old).toEqual({ a: null, o: null });
  const journal = await journalRows(t.db, g.gameId);
  const joins = journal.filter((r) => r.action === 'member.joined');
  expect(joins.length).toBeGreaterThanOrEqual(2);
  for (const row of joins) {
    expect(row.type).toBe('member.joined');
    expect(row.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{4}00000000$/);
    // Its body is stored without what the row holds (the event id is the key's first 12 bytes).
    expect(row.body).not.toHaveProperty('id');
  }
  const feed = (await g.get('/v1/events/feed?limit=100')).body.items as { id: string; type: string }[];
  expect(feed.filter((e) => e.type === 'member.joined').map((e) => e.id).sort()).toEqual(joins.map((r) => r.id.replace(/-/g, '').slice(0, 24)).sort());
  // The events of one transaction keep the order they were staged in: the creator's join, then the group's creation.
  const created = journal.find((r) => r.type === 'group.created')!;
  const own = journal.filter((r) => r.xid === created.xid && r.type !== null).sort((a, b) => Number(a.seq) - Number(b.seq));
  expect(own.map((r) => r.type)).toEqual(['member.joined', 'group.created']);
});

it('keeps a change with only an audit entry, or only an event, in a row of its own', async () => {
  const g = await friendsGame(t, AUTO);
  await befriend(g, 'dee', 'eli');
  const hook = await g.post('/v1/webhooks', { url: 'https://example.com/hook', events: [] });
  expect(hook.status).toBe(201);

  const journal = await journalRows(t.db, g.gameId);
  expect(journal.some((r) => r.type?.startsWith('friend.') && r.action === null)).toBe(true);
  expect(journal.some((r) => r.action?.startsWith('webhook.') && r.type === null && r.body === null)).toBe(true);
});

it('holds, hashed, every string the erasure and the export look for in the change, but the service\'s own words', async () => {
  const g = await friendsGame(t, AUTO);
  const groupId = await groupWith(g, 'fay', ['gus']);
  const journal = await journalRows(t.db, g.gameId);
  const join = journal.find((r) => r.action === 'member.joined' && (r.body as { member?: { userId?: string } }).member?.userId === 'gus');
  expect(join).toBeDefined();
  const memberId = (join!.body as { member: { id: string } }).member.id;
  for (const s of ['gus', memberId]) expect(join!.names).toContain(await hashOf(s));
  // Neither the service's own words nor what the row's columns hold (the game, the event id, and the
  // group: the member is stored short, src/db/member-snapshot.ts).
  for (const s of ['member.joined', 'userId', 'status', 'active', g.gameId, groupId]) expect(join!.names).not.toContain(await hashOf(s));
  expect(join!.names).toHaveLength(new Set(join!.names).size);
  const strings = await t.db.query<{ n: string }>(
    `SELECT DISTINCT n FROM journal j, jsonb_array_elements_text(svc_audit_names(j.actor_user_id, j.target_id, j.payload) || svc_names(j.body)) n
     WHERE j.id = $1 AND n IS NOT NULL AND n NOT IN (SELECT name FROM journal_unindexed_names)`,
    [join!.id],
  );
  const expected = new Set<number>();
  for (const { n } of strings) expected.add(await hashOf(n));
  expect([...join!.names].sort()).toEqual([...expected].sort());
});

it('an erasure rewrites every row of the history that named the player, names included', async () => {
  const g = await friendsGame(t, AUTO);
  const eve = uid('eve');
  await groupWith(g, eve, ['hal']);
  await groupWith(g, 'hal', [eve]);
  const [internal] = await t.db.query<{ user_id: string }>(
    `SELECT user_id FROM user_identities WHERE game_id = $1 AND external_id = $2`,
    [g.gameId, eve],
  );
  const before = await journalRows(t.db, g.gameId);
  const [eveHash, internalHash] = [await hashOf(eve), await hashOf(internal.user_id)];
  expect(before.some((r) => r.names.includes(eveHash))).toBe(true);

  expect((await g.del(`/v1/users/${eve}`)).status).toBeLessThan(300);

  const after = await journalRows(t.db, g.gameId);
  expect(after.length).toBe(before.length + 1);
  // The erasure's own event names the player, as the event feed says it does.
  for (const row of after.filter((r) => r.type !== 'user.erased')) {
    expect(JSON.stringify(row)).not.toContain(eve);
    expect(JSON.stringify(row)).not.toContain(internal.user_id);
    expect(row.names).not.toContain(eveHash);
    expect(row.names).not.toContain(internalHash);
  }
});

it("an erasure's rewritten rows keep their writers' names, the ids' hashes swapped for the pseudonym's", async () => {
  const g = await friendsGame(t, AUTO);
  const eve = uid('eve');
  const groupId = await groupWith(g, 'hal', [eve]);
  expect((await g.post(`/v1/groups/${groupId}/leave`, { userId: eve })).status).toBeLessThan(300);
  const [{ user_id: internal }] = await t.db.query<{ user_id: string }>(`SELECT user_id FROM user_identities WHERE game_id = $1 AND external_id = $2`, [g.gameId, eve]);
  const gone = new Set([await hashOf(eve), await hashOf(internal)]);
  const before = new Map((await journalRows(t.db, g.gameId)).map((r) => [r.id, r]));
  const naming = [...before.values()].filter((r) => r.names.some((h) => gone.has(h)));
  expect(naming.map((r) => r.action).sort()).toEqual(['member.joined', 'member.left']);

  const erased = await g.del(`/v1/users/${eve}`);
  expect(erased.status).toBe(200);
  const pseudonymHash = await hashOf(erased.body.pseudonym);

  const after = new Map((await journalRows(t.db, g.gameId)).map((r) => [r.id, r]));
  for (const row of naming) {
    // What the writer left out (the service's own words) stays out: nothing is added but the pseudonym.
    const expected = [...row.names.filter((h) => !gone.has(h)), pseudonymHash].sort((a, b) => a - b);
    expect(after.get(row.id)!.names).toEqual(expected);
  }
  for (const [id, row] of before) if (!naming.includes(row)) expect(after.get(id)!.names).toEqual(row.names);
});

it("an id's hash stays in a rewritten row's names where another of its strings has the same hash", async () => {
  const g = await friendsGame(t, AUTO);
  // Two ids whose 32-bit hashes are equal (found by search): the row names both players.
  const [eve, ivo] = ['player-1567', 'player-64393'];
  expect(await hashOf(eve)).toBe(await hashOf(ivo));
  const groupId = await groupWith(g, 'hal', [eve, ivo]);
  expect((await g.patch(`/v1/groups/${groupId}/members/${eve}`, { metadata: { rival: ivo } })).status).toBe(200);
  const [row] = await t.db.query<JournalRow>(`SELECT * FROM journal WHERE game_id = $1 AND action = 'member.updated'`, [g.gameId]);
  expect(row.names).toContain(await hashOf(ivo));

  expect((await g.del(`/v1/users/${eve}`)).status).toBe(200);

  const [rewritten] = await t.db.query<JournalRow>(`SELECT * FROM journal WHERE id = $1`, [row.id]);
  expect(JSON.stringify(rewritten.payload)).not.toContain(`"${eve}"`);
  expect(JSON.stringify(rewritten.payload)).toContain(`"${ivo}"`);
  expect(rewritten.names).toContain(await hashOf(ivo));
  // So ivo's erasure still finds the change.
  expect((await g.del(`/v1/users/${ivo}`)).status).toBe(200);
  const [again] = await t.db.query<JournalRow>(`SELECT * FROM journal WHERE id = $1`, [row.id]);
  expect(JSON.stringify(again.payload)).not.toContain(`"${ivo}"`);
  expect(again.names).not.toContain(await hashOf(ivo));
});

it("an erasure merges the names it rewrites into the index itself, leaving writers at most 64 kB of them to merge", async () => {
  const g = await friendsGame(t, AUTO);
  const eve = uid('eve');
  await groupWith(g, eve, ['hal']);
  // 6,000 entries naming eve, as writers left them: some 60,000 names for the index's pending list.
  await t.db.query(
    insertAuditSql(
      ['game_id', 'action', 'target_id', 'payload'],
      `SELECT $1::uuid, 'member.updated', $2::text, jsonb_build_object('memberId', gen_random_uuid(), 'note', 'n' || n, 'at', clock_timestamp()::text)
       FROM generate_series(1, 6000) n`,
    ),
    [g.gameId, eve],
  );
  await t.db.query(`SELECT gin_clean_pending_list('journal_names')`);

  expect((await g.del(`/v1/users/${eve}`)).status).toBe(200);

  // What is still pending (pages of 8 kB) once the erasure has committed.
  const [{ pages }] = await t.db.query<{ pages: string }>(`SELECT gin_clean_pending_list('journal_names') AS pages`);
  expect(Number(pages)).toBeLessThanOrEqual(9);
});

it('the export and the erasure read a change that only the journal holds, as a release writing the journal alone leaves it', async () => {
  const g = await friendsGame(t, AUTO);
  const eve = uid('eve');
  await groupWith(g, eve, ['hal']);
  const [{ id }] = await t.db.query<{ id: string }>(
    `INSERT INTO journal (id, game_id, action, target_id, payload, type, body, names)
     SELECT (e || '00000000')::uuid, $1::uuid, 'game.user.banned', $2, p, 'game.user.banned', b, svc_journal_names(NULL, $2, p, b)
     FROM (SELECT left(replace(svc_uuidv7()::text, '-', ''), 24) AS e) k,
       LATERAL (SELECT jsonb_build_object('userId', $2::text) AS p,
         jsonb_build_object('id', e, 'type', 'game.user.banned', 'gameId', $1::text, 'occurredAt', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'userId', $2::text) AS b) x
     RETURNING id`,
    [g.gameId, eve],
  );
  const eveHash = await hashOf(eve);

  const exported = await g.get(`/v1/users/${eve}/export`);
  expect(exported.status).toBe(200);
  expect(exported.body.audit.map((a: { id: string }) => a.id)).toContain(id);
  expect(exported.body.events.map((e: { type: string }) => e.type)).toContain('game.user.banned');

  expect((await g.del(`/v1/users/${eve}`)).status).toBeLessThan(300);

  const [row] = await t.db.query<JournalRow>(`SELECT * FROM journal WHERE id = $1`, [id]);
  expect(JSON.stringify(row)).not.toContain(eve);
  expect(row.target_id).toMatch(/^erased_/);
  expect(row.body).toMatchObject({ type: 'game.user.banned', userId: row.target_id });
  expect(row.names).not.toContain(eveHash);
  expect(row.names).toContain(await hashOf(row.target_id!));
});

it('retention empties an event\'s row when it keeps an audit entry, and deletes a row that has none', async () => {
  const g = await friendsGame(t, AUTO);
  await groupWith(g, 'ivy', ['jo']);
  await befriend(g, 'ivy', 'jo');
  const before = await journalRows(t.db, g.gameId);
  expect(before.some((r) => r.action === null)).toBe(true);
  await t.db.query(`UPDATE journal SET created_at = now() - interval '30 days' WHERE game_id = $1`, [g.gameId]);

  await expireJournalEvents(t.app.get(DataSource).manager, 7, 1000);

  const journal = await journalRows(t.db, g.gameId);
  expect(journal.map((r) => r.id)).toEqual(before.filter((r) => r.action !== null).map((r) => r.id));
  // Each row keeps its audit entry and nothing of its event, its type included (it left the feed indexes).
  expect(journal.filter((r) => r.body !== null || r.trace_context !== null || r.type !== null)).toEqual([]);
  expect(journal.map(({ action, payload, target_id }) => ({ action, payload, target_id }))).toEqual(
    before.filter((r) => r.action !== null).map(({ action, payload, target_id }) => ({ action, payload, target_id })),
  );
});

it('a purged group\'s history leaves the journal; its events still within retention stay', async () => {
  const g = await friendsGame(t, AUTO);
  const groupId = await groupWith(g, 'kit', ['lu']);
  // The group's creation, its creator's join with it (the sweep expires a game's events in feed order).
  await t.db.query(
    `UPDATE journal SET created_at = now() - interval '30 days' WHERE game_id = $1 AND xid = (SELECT xid FROM journal WHERE game_id = $1 AND type = 'group.created')`,
    [g.gameId],
  );
  await expireJournalEvents(t.app.get(DataSource).manager, 7, 1000);
  // And an entry without an event.
  await t.db.query(
    `INSERT INTO journal (id, game_id, group_id, action, target_id, payload, names) VALUES (svc_uuidv7(), $1, $2::uuid, 'group.updated', $2::text, '{}', '{}')`,
    [g.gameId, groupId],
  );

  await t.db.query(`UPDATE groups SET soft_deleted_at = now() - interval '1 minute' WHERE id = $1`, [groupId]);
  const purged = await t.app.get(GroupsRepository).purgeSoftDeleted(t.app.get(DataSource).manager, 0);
  expect(purged).toBeGreaterThan(0);

  const journal = await journalRows(t.db, g.gameId);
  expect(journal.filter((r) => r.group_id === groupId && r.action !== null)).toEqual([]);
  expect(journal.filter((r) => r.type === 'group.created')).toEqual([]);
  const kept = journal.filter((r) => r.group_id === groupId);
  expect(kept.length).toBeGreaterThan(0);
  expect(kept.every((r) => r.body !== null && r.actor_user_id === null && r.payload === null && r.target_id === null)).toBe(true);
});
