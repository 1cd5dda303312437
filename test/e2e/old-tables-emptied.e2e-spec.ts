import { randomUUID } from 'node:crypto';
import type { QueryRunner } from 'typeorm';
import { OldTablesEmptied1767800000000 } from '../../migrations/1767800000000-old-tables-emptied';
import { OldTablesDropped1767900000000 } from '../../migrations/1767900000000-old-tables-dropped';
import { oldestReleaseFor } from '../../migrations/release';
import { onFreshDatabase } from '../helpers/query-runner';

/**
 * OldTablesEmptied1767800000000 (docs/design/write-path.md section 4, N+3): the history of
 * audit_entries and outbox_events, which the journal holds too, is deleted in batches once the
 * triggers that would carry the deletes into the journal are gone; the journal keeps every row as it
 * was. Its down puts the triggers back, working.
 */
jest.setTimeout(60_000);

const migration = new OldTablesEmptied1767800000000();

const triggers = async (q: QueryRunner) =>
  ((await q.query(
    `SELECT tgname FROM pg_trigger WHERE tgrelid IN ('audit_entries'::regclass, 'outbox_events'::regclass) AND NOT tgisinternal ORDER BY tgname`,
  )) as { tgname: string }[]).map((r) => r.tgname);

const count = async (q: QueryRunner, table: string) => ((await q.query(`SELECT count(*)::int AS n FROM ${table}`)) as { n: number }[])[0].n;

/** The journal as it stands, every column. */
const journal = (q: QueryRunner) => q.query(`SELECT *, xid::text AS xid FROM journal ORDER BY id`) as Promise<unknown[]>;

/**
 * History as releases before 1.4.0 wrote it: `n` audit entries and `n` events in the old tables,
 * each half paired under one key, which their insert triggers copy into the journal.
 */
async function oldHistory(q: QueryRunner, gameId: string, n: number): Promise<void> {
  await q.query(
    `INSERT INTO outbox_events (id, game_id, type, body)
     SELECT e.id, $1::uuid, 'member.joined', jsonb_build_object('id', e.id, 'type', 'member.joined', 'gameId', $1::uuid::text, 'userId', 'p' || i)
     FROM generate_series(1, $2) i CROSS JOIN LATERAL (SELECT left(md5(random()::text || i), 24) AS id) e`,
    [gameId, n],
  );
  await q.query(
    `INSERT INTO audit_entries (id, game_id, action, target_id, payload)
     SELECT CASE WHEN i % 2 = 0 THEN (o.id || '00000000')::uuid ELSE svc_uuidv7() END, $1::uuid, 'member.joined', o.body->>'userId', '{"via": "public-join"}'
     FROM (SELECT row_number() OVER (ORDER BY id) AS i, id, body FROM outbox_events WHERE game_id = $1::uuid) o`,
    [gameId],
  );
}

describe('OldTablesEmptied1767800000000', () => {
  it('is an expand of 1.6.0 that lets 1.5.0 run beside it, outside a transaction', () => {
    expect(migration.release).toEqual({ version: '1.6.0', kind: 'expand' });
    expect(oldestReleaseFor(migration.release)).toBe('1.5.0');
    expect(migration.transaction).toBe(false);
  });

  it('drops the update and delete triggers, then empties both tables in batches; the journal keeps every row as it was; down restores the triggers, up again empties', async () => {
    await onFreshDatabase(async (q) => {
      // The tables as 1.6.0 has them: 1.7.0 drops them.
      await q.startTransaction();
      await new OldTablesDropped1767900000000().down(q);
      await q.commitTransaction();
      expect(await triggers(q)).toEqual(['svc_journal_audit_inserted', 'svc_journal_event_inserted']);
      await migration.down(q);
      expect(await triggers(q)).toEqual([
        'svc_journal_audit_deleted',
        'svc_journal_audit_inserted',
        'svc_journal_audit_updated',
        'svc_journal_event_deleted',
        'svc_journal_event_inserted',
        'svc_journal_event_updated',
      ]);

      const gameId = randomUUID();
      await q.query(`INSERT INTO games (id, name) VALUES ($1, 'old history')`, [gameId]);
      // More rows than the largest batch (5,000), so the delete takes several batches.
      await oldHistory(q, gameId, 6_000);
      expect([await count(q, 'audit_entries'), await count(q, 'outbox_events')]).toEqual([6_000, 6_000]);
      // The restored triggers work: a rewrite of an old row reaches its copy.
      const [renamed] = (await q.query(`SELECT min(id) AS id FROM outbox_events`)) as { id: string }[];
      await q.query(`UPDATE outbox_events SET body = body || '{"renamed": true}' WHERE id = $1`, [renamed.id]);
      expect(await q.query(`SELECT body->'renamed' AS r FROM journal WHERE id = ($1 || '00000000')::uuid`, [renamed.id])).toEqual([{ r: true }]);
      const before = await journal(q);
      expect(before).toHaveLength(9_000);

      await migration.up(q);
      expect(await triggers(q)).toEqual(['svc_journal_audit_inserted', 'svc_journal_event_inserted']);
      expect([await count(q, 'audit_entries'), await count(q, 'outbox_events')]).toEqual([0, 0]);
      expect(await journal(q)).toEqual(before);

      // Run again on empty tables: nothing to do, nothing changes.
      await migration.up(q);
      expect(await journal(q)).toEqual(before);
    });
  });
});
