import type { DataSource } from 'typeorm';
import { WHOLE_AGAIN } from '../../migrations/1768400000000-event-envelope-from-columns';
import { MEMBERS_WHOLE } from '../../migrations/1768500000000-member-snapshots-short';
import { backfillInBatches } from '../../migrations/online';
import { loadUnindexedWords } from '../../src/db/journal-names';
import { eventBodySql } from '../../src/db/journal-sql';
import { withQueryRunner } from './query-runner';
import type { TestDatabase } from './test-db';

/** A journal row as the tests compare it (positions as text). */
export interface JournalRow {
  id: string;
  game_id: string;
  group_id: string | null;
  created_at: Date;
  action: string | null;
  actor_user_id: string | null;
  actor_pseudonym: string | null;
  target_id: string | null;
  payload: unknown;
  type: string | null;
  body: unknown;
  trace_context: unknown;
  era: number;
  xid: string;
  seq: string;
  names: number[];
}

/** A game's journal, by key. */
export const journalRows = (db: TestDatabase, gameId: string) =>
  db.query<JournalRow>(`SELECT *, xid::text AS xid, seq::text AS seq FROM journal WHERE game_id = $1 ORDER BY id`, [gameId]);

/** The journal as the old tables say it should be: each audit entry and event under its key, paired when they share one. */
const expectedJournal = (db: TestDatabase, gameId: string) =>
  db.query<JournalRow>(
    `SELECT coalesce(a.id, (o.id || '00000000')::uuid) AS id, coalesce(a.game_id, o.game_id) AS game_id,
            coalesce(a.group_id, o.group_id) AS group_id, coalesce(a.created_at, o.created_at) AS created_at,
            a.action, a.actor_user_id, a.actor_pseudonym, a.target_id, a.payload, o.type, o.body, o.trace_context,
            o.era, o.xid::text AS xid, o.seq::text AS seq,
            svc_journal_names(a.actor_user_id, a.target_id, a.payload, o.body) AS names
     FROM (SELECT * FROM audit_entries WHERE game_id = $1) a
     FULL JOIN (SELECT * FROM outbox_events WHERE game_id = $1) o ON a.id = (o.id || '00000000')::uuid
     ORDER BY 1`,
    [gameId],
  );

/**
 * A row's comparable form: its names without the words writers leave out (rows the service wrote
 * lack them, rows computed from the documents hold them). The positions of an audit-only row are
 * the journal's own; a row whose event has expired keeps its event's name and position (its feed
 * index entries stay), and answers as a row without one.
 */
const comparable = (unindexed: ReadonlySet<number>) => (r: JournalRow) => ({
  ...r,
  names: r.names.filter((h) => !unindexed.has(h)).sort((x, y) => x - y),
  ...(r.body === null ? { type: null, era: 0, xid: '', seq: '' } : {}),
});

/**
 * The game's journal matches the old tables row for row. Its names are those of the parts it holds,
 * or, once a part has gone (`kept`), at least those: a part's removal leaves the row's names alone.
 */
export async function expectJournalMirrors(db: TestDatabase, gameId: string, names: 'exact' | 'kept' = 'exact'): Promise<JournalRow[]> {
  const [journal, expected, unindexed] = [await journalRows(db, gameId), await expectedJournal(db, gameId), await loadUnindexedWords((sql) => db.query(sql))];
  const compared = comparable(unindexed);
  if (names === 'exact') {
    expect(journal.map(compared)).toEqual(expected.map(compared));
    return journal;
  }
  const without = ({ names: _n, ...r }: JournalRow) => compared({ ...r, names: [] });
  expect(journal.map(without)).toEqual(expected.map(without));
  journal.forEach((row, i) => expect(row.names).toEqual(expect.arrayContaining(compared(expected[i]).names)));
  return journal;
}

/**
 * The events the journal keeps, with the columns and values of the old `outbox_events` table (each
 * body whole, as published and as that table held it), as a FROM item named `alias`: what a test
 * reads to see what the service stored (the journal is the record the service reads, and from 1.4.0
 * the only one it writes). An expired event is absent.
 */
export const journalEvents = (alias = 'e'): string =>
  `(SELECT left(replace(id::text, '-', ''), 24) AS id, game_id, group_id, type, ${eventBodySql('journal')} AS body, trace_context, created_at, era, xid, seq
    FROM journal WHERE type IS NOT NULL AND body IS NOT NULL) AS ${alias}`;

/** The audit entries the journal keeps, with the columns and values of the old `audit_entries` table, as a FROM item named `alias`. */
export const journalAudit = (alias = 'a'): string =>
  `(SELECT id, game_id, group_id, actor_user_id, actor_pseudonym, action, target_id, payload, created_at
    FROM journal WHERE action IS NOT NULL) AS ${alias}`;

/**
 * Writes the game's changes into the old tables as releases 1.2.0 and 1.3.0 wrote them beside the
 * journal (same keys, times and positions; the journal's rows of every game whole, as they wrote them), for the tests of what still reaches those tables' history:
 * from 1.4.0 the service writes the journal alone.
 */
export async function mirrorIntoOldTables(db: TestDatabase, gameId: string): Promise<void> {
  // Those releases stored every event's body whole, and its names with it (as the downs of 1.13.0
  // and 1.11.0 do, in that order).
  await db.query(MEMBERS_WHOLE);
  await db.query(WHOLE_AGAIN);
  await db.query(
    `INSERT INTO audit_entries (id, game_id, group_id, actor_user_id, actor_pseudonym, action, target_id, payload, created_at)
     SELECT id, game_id, group_id, actor_user_id, actor_pseudonym, action, target_id, payload, created_at
     FROM journal WHERE game_id = $1 AND action IS NOT NULL ON CONFLICT (id) DO NOTHING`,
    [gameId],
  );
  await db.query(
    `INSERT INTO outbox_events (id, game_id, group_id, type, body, trace_context, created_at, era, xid, seq) OVERRIDING SYSTEM VALUE
     SELECT left(replace(id::text, '-', ''), 24), game_id, group_id, type, ${eventBodySql('journal')}, trace_context, created_at, era, xid, seq
     FROM journal WHERE game_id = $1 AND type IS NOT NULL AND body IS NOT NULL ON CONFLICT (id) DO NOTHING`,
    [gameId],
  );
}

const AUDIT_COLUMNS = {
  id: { type: 'uuid', otherwise: 'svc_uuidv7()' },
  game_id: { type: 'uuid', otherwise: null },
  group_id: { type: 'uuid', otherwise: 'NULL::uuid' },
  actor_user_id: { type: 'uuid', otherwise: 'NULL::uuid' },
  action: { type: 'text', otherwise: null },
  target_id: { type: 'text', otherwise: 'NULL::text' },
  payload: { type: 'jsonb', otherwise: `'{}'::jsonb` },
  created_at: { type: 'timestamptz', otherwise: 'now()' },
} as const;
export type AuditColumn = keyof typeof AUDIT_COLUMNS;

/**
 * An INSERT of audit entries into the journal as the service keeps them, for seeds of history:
 * `rows` (a SELECT or VALUES) yields the `columns` named, in order; the others take what the
 * service writes when it has nothing (no group, no actor, no target, an empty payload, now), and
 * the names are those the erasure and the export look for (svc_journal_names).
 */
export function insertAuditSql(columns: readonly AuditColumn[], rows: string): string {
  const all = Object.keys(AUDIT_COLUMNS) as AuditColumn[];
  const value = (c: AuditColumn) => (columns.includes(c) ? `s.${c}::${AUDIT_COLUMNS[c].type}` : AUDIT_COLUMNS[c].otherwise);
  return `INSERT INTO journal (${all.join(', ')}, names)
    SELECT a.*, svc_journal_names(a.actor_user_id, a.target_id, a.payload, NULL)
    FROM (SELECT ${all.map((c) => `${value(c)} AS ${c}`).join(', ')} FROM (${rows}) AS s(${columns.join(', ')})) a`;
}

/**
 * Rows for insertEventsSql: `n` game.user.banned events of the game `$1`, keyed by now's millisecond
 * and their number.
 */
export const bannedEventRows = (n: number): string =>
  `SELECT lpad(to_hex((extract(epoch FROM now()) * 1000)::bigint), 12, '0') || lpad(to_hex(i), 12, '0'), $1::text, NULL, 'game.user.banned', '{}'
   FROM generate_series(1, ${n}) AS i`;

/**
 * An INSERT of events into the journal as the service keeps them, for seeds of history: `rows`
 * yields (id, game_id, group_id, type, body), and then created_at when `timed` (else now); the id
 * 24 hex characters (the journal's key is it and four zero bytes). It answers each row's event id.
 */
export function insertEventsSql(rows: string, timed = false): string {
  return `INSERT INTO journal (id, game_id, group_id, type, body, created_at, names)
    SELECT (s.id::text || '00000000')::uuid, s.game_id::uuid, s.group_id::uuid, s.type::text, s.body::jsonb,
           ${timed ? 's.created_at::timestamptz' : 'now()'}, svc_journal_names(NULL, NULL, NULL, s.body::jsonb)
    FROM (${rows}) AS s(id, game_id, group_id, type, body${timed ? ', created_at' : ''})
    RETURNING left(replace(id::text, '-', ''), 24) AS id`;
}

/** A journal row as a rewrite of the stored documents leaves it. */
export interface StoredRow {
  id: string;
  body: Record<string, unknown> | null;
  names: number[];
}

/**
 * A rewrite of the journal run two ways: `oneStatement` in a transaction rolled back (what it would
 * leave of the game's rows), then `batch` through backfillInBatches one row at a time, each batch
 * its own transaction. Checks there was one batch a row and the one that finds none left, and
 * that the batches left the game's rows as the one statement would; answers those rows.
 */
export async function expectBatchesAsOneStatement(ds: DataSource, db: TestDatabase, gameId: string, oneStatement: string, batch: string): Promise<StoredRow[]> {
  const rows = `SELECT id, body, names FROM journal WHERE game_id = $1 ORDER BY id`;
  const expected = await withQueryRunner(ds, async (q) => {
    await q.startTransaction();
    try {
      await q.query(oneStatement);
      return (await q.query(rows, [gameId])) as StoredRow[];
    } finally {
      await q.rollbackTransaction();
    }
  });
  const [{ n }] = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM journal`);
  const batches = await withQueryRunner(ds, (q) => backfillInBatches(q, { batch, rows: 1, minRows: 1, maxRows: 1 }));
  expect(batches).toBe(n + 1);
  expect(await db.query<StoredRow>(rows, [gameId])).toEqual(expected);
  return expected;
}

/** Runs `up` (a migration that only says what its release is) and checks it changed no table. */
export async function expectNoTableChanged(db: TestDatabase, up: () => Promise<void>): Promise<void> {
  const columns = () => db.query(`SELECT table_name, column_name, data_type FROM information_schema.columns WHERE table_schema = 'public' ORDER BY 1, 2`);
  const before = await columns();
  await up();
  expect(await columns()).toEqual(before);
}
