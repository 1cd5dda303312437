import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { HISTORY_BATCHES, JournalHistory1767300000000, READERS_INDEXES } from '../../migrations/1767300000000-journal-history';
import { OldTablesEmptied1767800000000 } from '../../migrations/1767800000000-old-tables-emptied';
import { OldTablesDropped1767900000000 } from '../../migrations/1767900000000-old-tables-dropped';
import { oldestReleaseFor } from '../../migrations/release';
import { AUTO, friendsGame, uid, type FriendsGame } from '../helpers/friends';
import { expectJournalMirrors, journalRows, mirrorIntoOldTables } from '../helpers/journal';
import { withQueryRunner } from '../helpers/query-runner';
import { startTestApp, type TestApp } from '../helpers/test-app';

/**
 * The journal's second release (migration JournalHistory, docs/design/write-path.md section 4): the
 * history an earlier release wrote to the old tables alone is copied, what such a release writes
 * while it still runs is copied by the statement, and the readers' indexes are built. The database
 * starts as 1.2.0 left it (this migration and 1.6.0's OldTablesEmptied rolled back), with rows
 * "release 1.1.0" wrote: the rows of a game written again under new keys, straight into the old
 * tables.
 */
jest.setTimeout(60_000);

let t: TestApp;
const migration = new JournalHistory1767300000000();
const run = (step: 'up' | 'down') => withQueryRunner(t.app.get(DataSource), (q) => migration[step](q));

beforeAll(async () => {
  t = await startTestApp({ WEBHOOK_WORKER_ENABLED: 'false' });
  // The tables that 1.7.0 drops (OldTablesDropped), and the triggers that 1.6.0 drops (OldTablesEmptied), were there when this migration ran.
  await withQueryRunner(t.app.get(DataSource), (q) => new OldTablesDropped1767900000000().down(q));
  await withQueryRunner(t.app.get(DataSource), (q) => new OldTablesEmptied1767800000000().down(q));
  await run('down');
});
afterAll(() => t.close());

async function playedGame(): Promise<FriendsGame> {
  const g = await friendsGame(t, AUTO);
  const r = await g.post('/v1/groups', { kind: 'guild', name: `G ${uid()}`, visibility: 'public', creatorUserId: 'ana' });
  expect(r.status).toBe(201);
  for (const userId of ['bob', 'cy']) expect((await g.post(`/v1/groups/${r.body.id}/join`, { userId })).status).toBe(201);
  expect((await g.post(`/v1/groups/${r.body.id}/leave`, { userId: 'cy' })).status).toBe(200);
  // As 1.2.0 and 1.3.0 wrote the changes, beside the journal (this build writes the journal alone).
  await mirrorIntoOldTables(t.db, g.gameId);
  return g;
}

/** What release 1.1.0 would have written for the game's changes: the same rows, a day older, under keys of their own, in the old tables only. */
async function writeAsEarlierRelease(gameId: string): Promise<void> {
  await t.db.query(
    `INSERT INTO audit_entries (id, game_id, group_id, actor_user_id, actor_pseudonym, action, target_id, payload, created_at)
     SELECT svc_uuidv7(), game_id, group_id, actor_user_id, actor_pseudonym, action, target_id, payload, created_at - interval '1 day'
     FROM audit_entries WHERE game_id = $1`,
    [gameId],
  );
  await t.db.query(
    `INSERT INTO outbox_events (id, game_id, group_id, type, body, trace_context, created_at)
     SELECT k, game_id, group_id, type, jsonb_set(body, '{id}', to_jsonb(k)), trace_context, created_at - interval '1 day'
     FROM (SELECT substr(md5(random()::text || id), 1, 24) AS k, * FROM outbox_events WHERE game_id = $1) o`,
    [gameId],
  );
}

const oldRows = async (gameId: string) =>
  (
    await t.db.query<{ n: number }>(
      `SELECT (SELECT count(*) FROM audit_entries WHERE game_id = $1) + (SELECT count(*) FROM outbox_events WHERE game_id = $1) AS n`,
      [gameId],
    )
  )[0].n;

const readersIndexes = () =>
  t.db.query<{ name: string; valid: boolean }>(
    `SELECT c.relname AS name, i.indisvalid AS valid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
     WHERE c.relname = ANY ($1) ORDER BY 1`,
    [READERS_INDEXES.map((i) => i.name)],
  );

const insertTriggers = () =>
  t.db.query<{ name: string }>(`SELECT tgname AS name FROM pg_trigger WHERE tgname LIKE 'svc_journal_%_inserted' ORDER BY 1`);

it('is an expand of 1.3.0 that lets 1.2.0 run beside it, outside a transaction', () => {
  expect(migration.release).toEqual({ version: '1.3.0', kind: 'expand' });
  expect(oldestReleaseFor(migration.release)).toBe('1.2.0');
  expect(migration.transaction).toBe(false);
});

it('copies the history an earlier release wrote, each audit entry and event a row of its own, with its time and feed position', async () => {
  const g = await playedGame();
  await writeAsEarlierRelease(g.gameId);
  expect((await journalRows(t.db, g.gameId)).length).toBeLessThan(Number(await oldRows(g.gameId)));

  await run('up');
  const journal = await expectJournalMirrors(t.db, g.gameId);
  // The earlier release's audit entries and events share no key: none of them is paired.
  const copied = journal.filter((r) => r.created_at.getTime() < Date.now() - 12 * 3600_000);
  expect(copied.length).toBeGreaterThan(0);
  for (const row of copied) expect(row.action === null || row.type === null).toBe(true);
  expect(await readersIndexes()).toEqual(READERS_INDEXES.map((i) => ({ name: i.name, valid: true })).sort((a, b) => a.name.localeCompare(b.name)));
  expect(await insertTriggers()).toEqual([{ name: 'svc_journal_audit_inserted' }, { name: 'svc_journal_event_inserted' }]);
});

it('running again copies nothing twice and rewrites nothing', async () => {
  const versions = () => t.db.query<{ id: string; v: string }>(`SELECT id, xmin::text AS v FROM journal ORDER BY id`);
  const before = await versions();
  await run('up');
  expect(await versions()).toEqual(before);
});

it('copies, in the same statement, a row an earlier release writes once it has run; a later release\'s own copy is kept as it wrote it', async () => {
  const g = await playedGame();
  const own = await journalRows(t.db, g.gameId);
  await writeAsEarlierRelease(g.gameId);
  const journal = await expectJournalMirrors(t.db, g.gameId);
  expect(journal.filter((r) => own.some((o) => o.id === r.id))).toEqual(own);
});

it('a rewrite of the old tables alone, as 1.2.0\'s erasure makes, still reaches the copies and their names', async () => {
  const g = await playedGame();
  await t.db.query(`UPDATE audit_entries SET target_id = 'renamed', payload = payload || '{"renamed": "yes"}' WHERE game_id = $1`, [g.gameId]);
  await t.db.query(`UPDATE outbox_events SET body = body || '{"renamed": "yes"}' WHERE game_id = $1`, [g.gameId]);
  const journal = await expectJournalMirrors(t.db, g.gameId);
  expect(journal.every((r) => JSON.stringify(r).includes('renamed'))).toBe(true);
});

it('an erasure that reaches a row while a batch copies it waits for the batch, then rewrites the copy', async () => {
  await run('down');
  expect(await insertTriggers()).toEqual([]);
  expect(await readersIndexes()).toEqual([]);
  const g = await playedGame();
  await writeAsEarlierRelease(g.gameId);
  const [old] = await t.db.query<{ id: string }>(
    `SELECT id FROM outbox_events o WHERE game_id = $1 AND NOT EXISTS (SELECT 1 FROM journal j WHERE j.id = (o.id || '00000000')::uuid) LIMIT 1`,
    [g.gameId],
  );

  const batch = new Client({ connectionString: t.db.url });
  const eraser = new Client({ connectionString: t.db.url });
  await Promise.all([batch.connect(), eraser.connect()]);
  try {
    await batch.query('BEGIN');
    await batch.query(HISTORY_BATCHES.events, [null, 100_000]);
    let erased = false;
    const erasure = eraser.query(`UPDATE outbox_events SET body = body || '{"erased": true}' WHERE id = $1`, [old.id]).then(() => (erased = true));
    await new Promise((r) => setTimeout(r, 300));
    expect(erased).toBe(false);
    await batch.query('COMMIT');
    await erasure;
  } finally {
    await Promise.all([batch.end(), eraser.end()]);
  }
  const [copy] = await t.db.query<{ body: { erased?: boolean } }>(`SELECT body FROM journal WHERE id = ($1 || '00000000')::uuid`, [old.id]);
  expect(copy.body.erased).toBe(true);

  await run('up');
  await expectJournalMirrors(t.db, g.gameId);
});

it('takes the type off the rows whose event 1.2.0 expired, and an expiry from then on takes it off too: the feed indexes hold no expired event', async () => {
  await run('down');
  const g = await playedGame();
  const expire = (type: string) => t.db.query(`DELETE FROM outbox_events WHERE game_id = $1 AND type = $2`, [g.gameId, type]);
  const expiredRows = () =>
    t.db.query<{ action: string | null; type: string | null }>(`SELECT action, type FROM journal WHERE game_id = $1 AND group_id IS NOT NULL AND body IS NULL ORDER BY id`, [g.gameId]);
  // 1.2.0's trigger keeps the type of an expired event whose row keeps its audit entry.
  await expire('group.created');
  expect(await expiredRows()).toEqual([{ action: 'group.created', type: 'group.created' }]);

  await run('up');
  expect(await expiredRows()).toEqual([{ action: 'group.created', type: null }]);
  await expire('member.joined');
  const expired = await expiredRows();
  expect(expired.map((r) => r.type)).toEqual(expired.map(() => null));
  expect(expired.filter((r) => r.action === 'member.joined')).toHaveLength(3);
  await expectJournalMirrors(t.db, g.gameId, 'kept');
});
