import { internalIdSql } from '../identity/identity.repository';
import { eventKeySql } from './journal-sql';

/**
 * What a unit of work's flush writes, each part the JSON text of its rows (null when the write has
 * none of that kind).
 */
export interface FlushParts {
  audit: string | null;
  events: string | null;
  /** The trace context the events keep (only with events). */
  trace: string | null;
  /** The NOTIFYs sent on commit. */
  notifies: string | null;
  /** The players' notifications. */
  inbox: string | null;
  /** Some audit entry shares no row with an event (journalKey): it is a journal row of its own. */
  auditOnly: boolean;
}

/**
 * The flush's one statement, with only the parts the write has. PostgreSQL starts every node of a
 * plan on each execution, a data-modifying CTE that writes nothing included (it opens its table and
 * every index): a join, one event and its audit entry, left the other journal insert and the
 * notifications' insert out of its statement for about 0.05-0.08 ms of PostgreSQL CPU a write less
 * (docs/design/write-path.md). Each shape is one text, so one prepared statement a connection.
 * Rows: `g` and `u` the game and internal id of a player notified, `d` true when an enabled
 * endpoint takes one of the events.
 */
export function flushStatement(p: FlushParts): { text: string; params: unknown[] } {
  const params: unknown[] = [];
  const param = (value: unknown) => `$${params.push(value)}`;
  const ctes: string[] = [];
  const selects: string[] = [];
  if (p.audit !== null) {
    ctes.push(`audit AS (
       SELECT * FROM jsonb_to_recordset(${param(p.audit)}::jsonb)
         AS x(id uuid, game_id uuid, group_id uuid, actor_user_id uuid, action text, target_id text, payload jsonb, names int[])
     )`);
  }
  if (p.events !== null) {
    const paired = p.audit !== null;
    ctes.push(
      `events AS (
       SELECT * FROM jsonb_to_recordset(${param(p.events)}::jsonb) AS x(id text, n int, game_id uuid, group_id uuid, type text, body jsonb, names int[])
     )`,
      `journal_changes AS (
       INSERT INTO journal (id, game_id, group_id, action, actor_user_id, target_id, payload, type, body, trace_context, names)
       SELECT ${eventKeySql('e.id')}, e.game_id, e.group_id, ${paired ? 'a.action, a.actor_user_id, a.target_id, a.payload' : 'NULL, NULL, NULL, NULL'}, e.type, e.body, ${param(p.trace)}::jsonb,
              e.names
       FROM events e${paired ? ` LEFT JOIN audit a ON a.id = ${eventKeySql('e.id')}` : ''}
       ORDER BY e.n
     )`,
    );
    selects.push(`SELECT NULL, NULL::uuid AS g, NULL::uuid AS u, true AS d WHERE EXISTS (
       SELECT 1 FROM events e JOIN webhook_endpoints w
         ON w.game_id = e.game_id AND w.disabled_at IS NULL AND (cardinality(w.events) = 0 OR e.type = ANY (w.events)))`);
  }
  if (p.audit !== null && p.auditOnly) {
    ctes.push(`journal_audit_only AS (
       INSERT INTO journal (id, game_id, group_id, action, actor_user_id, target_id, payload, names)
       SELECT a.id, a.game_id, a.group_id, a.action, a.actor_user_id, a.target_id, a.payload,
              a.names
       FROM audit a${p.events !== null ? ` WHERE NOT EXISTS (SELECT 1 FROM events e WHERE ${eventKeySql('e.id')} = a.id)` : ''}
     )`);
  }
  if (p.inbox !== null) {
    ctes.push(
      `staged AS (
       SELECT x.id, x.game_id, coalesce(x.user_id, ${internalIdSql('x.game_id', 'x.external_user_id')}) AS user_id,
              x.kind, x.group_id, x.actor_user_id, x.data
       FROM jsonb_to_recordset(${param(p.inbox)}::jsonb)
         AS x(id uuid, game_id uuid, user_id uuid, external_user_id text, kind text, group_id uuid, actor_user_id uuid, data jsonb)
     )`,
      `inbox AS (
       INSERT INTO notifications (id, game_id, user_id, kind, group_id, actor_user_id, data)
       SELECT id, game_id, user_id, kind, group_id, actor_user_id, data FROM staged
       WHERE user_id IS NOT NULL AND user_id IS DISTINCT FROM actor_user_id
       RETURNING game_id, user_id
     )`,
    );
    selects.push(`SELECT NULL, w.game_id, w.user_id, false FROM (SELECT DISTINCT game_id, user_id FROM inbox) AS w`);
  }
  if (p.notifies !== null) {
    // First: a NULL of the other branches takes the type of pg_notify's void from it.
    selects.unshift(
      `SELECT pg_notify(channel, payload), NULL::uuid AS g, NULL::uuid AS u, false AS d FROM jsonb_to_recordset(${param(p.notifies)}::jsonb) AS n(channel text, payload text)`,
    );
  }
  // The CTEs write whether or not the query reads them; a write with nothing to answer reads no row.
  if (!selects.length) selects.push('SELECT NULL, NULL::uuid AS g, NULL::uuid AS u, false AS d WHERE false');
  const union = selects.join('\n     UNION ALL\n     ');
  return { text: ctes.length ? `WITH ${ctes.join(', ')}\n     ${union}` : union, params };
}
