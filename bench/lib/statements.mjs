// Where a scenario's database time goes: pg_stat_statements over the scenario's run, when the
// server has it loaded (the embedded cluster the suite starts preloads it; a DATABASE_URL server
// may not). Share and mean are execution time; planning is reported beside it where the server
// tracks it (pg_stat_statements.track_planning, on in the bench's embedded cluster), which shows
// the statements planned on every call (a prepared statement with a generic plan plans once).

/** Returns `{ reset, top }`, or null when pg_stat_statements cannot be read on this server. */
export async function statementStats(q) {
  try {
    await q.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    await q.query('SELECT pg_stat_statements_reset()');
  } catch {
    return null;
  }
  return {
    reset: () => q.query('SELECT pg_stat_statements_reset()'),
    /** The statements with the most execution time since the reset, per request of the scenario. */
    async top(requests, limit = 6) {
      const { rows } = await q.query(
        `SELECT regexp_replace(query, '\\s+', ' ', 'g') AS sql, calls::float8 AS calls, total_exec_time AS total_ms,
                sum(total_exec_time) OVER () AS all_ms, shared_blks_hit::float8 AS hits, wal_bytes::float8 AS wal_bytes,
                total_plan_time AS plan_ms, (SELECT setting = 'on' FROM pg_settings WHERE name = 'pg_stat_statements.track_planning') AS planning,
                sum(shared_blks_hit + shared_blks_read) OVER ()::float8 AS all_buffers
         FROM pg_stat_statements
         WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
           AND query NOT LIKE '%pg_stat_database%' AND query NOT LIKE '%pg_stat_statements%'
         ORDER BY total_exec_time DESC`,
      );
      const allMs = rows[0]?.all_ms ?? 0;
      return {
        msPerRequest: allMs / requests,
        /** Shared buffers (hit or read) every statement of the run touched, per request. */
        buffersPerRequest: (rows[0]?.all_buffers ?? 0) / requests,
        statements: rows.slice(0, limit).map((r) => ({
          sql: r.sql,
          perRequest: r.calls / requests,
          meanMs: r.total_ms / r.calls,
          share: allMs ? r.total_ms / allMs : 0,
          blocksPerCall: r.hits / r.calls,
          walBytesPerCall: r.wal_bytes / r.calls,
          planMsPerCall: r.planning ? r.plan_ms / r.calls : null,
        })),
      };
    },
  };
}

/**
 * Cumulative counters of a write row, or null when this server has no pg_stat_wal (before
 * PostgreSQL 14): the cluster's WAL bytes (commit records and vacuum included, which statements do
 * not show), and the updates of webhook_deliveries and how many of them were HOT (a claim and a
 * result update each delivery; docs/design/write-path.md, the HOT lease). Backends publish table
 * counts about once a second, so the HOT share of a run is within a second's updates.
 */
export async function writeCounters(q) {
  const read = async () => {
    const { rows } = await q.query(
      `SELECT (SELECT wal_bytes::float8 FROM pg_stat_wal) AS wal,
              coalesce((SELECT n_tup_upd::float8 FROM pg_stat_user_tables WHERE relid = 'webhook_deliveries'::regclass), 0) AS "deliveryUpdates",
              coalesce((SELECT n_tup_hot_upd::float8 FROM pg_stat_user_tables WHERE relid = 'webhook_deliveries'::regclass), 0) AS "deliveryHotUpdates"`,
    );
    return rows[0];
  };
  try {
    await read();
  } catch {
    return null;
  }
  return read;
}
