// One join and one leave, dissected (docs/design/write-path.md, section 5): the WAL records each
// request's own transaction writes, by resource manager and record type, read with pg_walinspect
// between the insert positions before and after the request. The transaction is told apart from
// whatever else writes meanwhile (the webhook worker, the sweeper) by its id, the member row's xmin.

const RECORDS_SQL = `SELECT resource_manager AS rmgr, split_part(record_type, ' ', 1) AS type, count(*)::int AS records,
         sum(record_length)::int AS bytes, sum(fpi_length)::int AS fpi
  FROM pg_get_wal_records_info($1, $2) WHERE xid = $3::xid GROUP BY 1, 2 ORDER BY 4 DESC, 1, 2`;

// The same records by the relation of their first block (pg_class by file node; '(none)' for a
// record that names no block, such as a commit): which table or index a request's bytes go to.
const RELATIONS_SQL = `SELECT coalesce(c.relname, CASE WHEN r.node IS NULL THEN '(none)' ELSE 'file ' || r.node END) AS relation,
         count(*)::int AS records, sum(r.record_length)::int AS bytes, sum(r.fpi_length)::int AS fpi
  FROM (SELECT record_length, fpi_length, (regexp_match(block_ref, 'rel \\d+/\\d+/(\\d+)'))[1]::oid AS node
        FROM pg_get_wal_records_info($1, $2) WHERE xid = $3::xid) r
  LEFT JOIN pg_class c ON c.relfilenode = r.node AND r.node IS NOT NULL
  GROUP BY 1 ORDER BY 3 DESC, 1`;

/**
 * The insert position now, once it is flushed: PostgreSQL 15's pg_walinspect refuses an end past
 * the flushed WAL, which the WAL writer reaches within its delay.
 */
async function flushedInsertLsn(q) {
  const lsn = await insertLsn(q);
  for (let i = 0; i < 100; i++) {
    const { rows } = await q.query('SELECT pg_current_wal_flush_lsn() >= $1::pg_lsn AS ok', [lsn]);
    if (rows[0].ok) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  return lsn;
}

const insertLsn = async (q) => (await q.query('SELECT pg_current_wal_insert_lsn()::text AS l')).rows[0].l;

/** pg_walinspect on this server, or false (an older PostgreSQL, or no contrib). */
export async function canDissect(q) {
  try {
    await q.query('CREATE EXTENSION IF NOT EXISTS pg_walinspect');
    return true;
  } catch {
    return false;
  }
}

/** Adds a query row's records, bytes and images to the sum under `key` in `sums`, started as `what`. */
function add(sums, key, what, r) {
  const s = sums.get(key) ?? { ...what, records: 0, bytes: 0, fpi: 0 };
  s.records += r.records;
  s.bytes += r.bytes;
  s.fpi += r.fpi;
  sums.set(key, s);
}

/**
 * Joins then leaves each of `items` ({ groupId, userId }, not members) one at a time through
 * `api`, and returns, per request kind, the mean records and bytes a request by (resource
 * manager, record type) and by relation, with `full_page_writes` as the server has it (full-page images are
 * written for the first change of a page after each checkpoint).
 */
export async function dissectJoinLeave({ q, api, items }) {
  const lsn = () => flushedInsertLsn(q);
  const xidOf = async (memberId) => (await q.query('SELECT xmin::text AS xid FROM members WHERE id = $1', [memberId])).rows[0].xid;
  const sums = { join: new Map(), leave: new Map() };
  const byRelation = { join: new Map(), leave: new Map() };
  for (const { groupId, userId } of items) {
    for (const kind of ['join', 'leave']) {
      const start = await lsn();
      const member = await api('POST', `/v1/groups/${groupId}/${kind}`, { userId }, kind === 'join' ? 201 : 200);
      const end = await lsn();
      const xid = await xidOf(member.id);
      for (const r of (await q.query(RELATIONS_SQL, [start, end, xid])).rows) add(byRelation[kind], r.relation, { relation: r.relation }, r);
      for (const r of (await q.query(RECORDS_SQL, [start, end, xid])).rows) add(sums[kind], `${r.rmgr} ${r.type}`, { rmgr: r.rmgr, type: r.type }, r);
    }
  }
  const mean = (m) =>
    [...m.values()]
      .map((s) => ({ ...s, records: s.records / items.length, bytes: s.bytes / items.length, fpi: s.fpi / items.length }))
      .sort((a, b) => b.bytes - a.bytes);
  const fullPageWrites = (await q.query('SHOW full_page_writes')).rows[0].full_page_writes;
  return {
    rounds: items.length,
    fullPageWrites,
    join: mean(sums.join),
    leave: mean(sums.leave),
    relations: { join: mean(byRelation.join), leave: mean(byRelation.leave) },
  };
}

/** Log lines: a request's total, then each (resource manager, record type). */
export function dissectionLines(d) {
  const lines = [];
  for (const kind of ['join', 'leave']) {
    const rows = d[kind];
    const total = rows.reduce((t, r) => ({ records: t.records + r.records, bytes: t.bytes + r.bytes, fpi: t.fpi + r.fpi }), { records: 0, bytes: 0, fpi: 0 });
    lines.push(`${kind}: ${total.records.toFixed(1)} records, ${Math.round(total.bytes)} bytes (${Math.round(total.fpi)} of them full-page images) a request`);
    for (const r of rows) lines.push(`  ${r.rmgr} ${r.type}: ${r.records.toFixed(1)} records, ${Math.round(r.bytes)} bytes${r.fpi ? ` (${Math.round(r.fpi)} images)` : ''}`);
    lines.push(`  by relation:`);
    for (const r of d.relations?.[kind] ?? []) lines.push(`    ${r.relation}: ${r.records.toFixed(1)} records, ${Math.round(r.bytes)} bytes${r.fpi ? ` (${Math.round(r.fpi)} images)` : ''}`);
  }
  return lines;
}

/**
 * The whole cluster's WAL over a measured run, by (resource manager, record type), a request's
 * share: what one request at a time does not show (the webhook worker, vacuum and the GIN
 * pending lists' cleanup, the multixacts of concurrent key locks on one shared row, the images).
 * `open()` before the measured run, `close(start, requests)` right after: the records, or
 * `{ error }` when the run's WAL cannot be read (a checkpoint recycled its first segment).
 */
export function walWindow(q) {
  return {
    open: () => insertLsn(q),
    async close(start, requests) {
      try {
        const { rows } = await q.query(
          `SELECT split_part(s.kind, '/', 1) AS rmgr, split_part(split_part(s.kind, '/', 2), ' ', 1) AS type,
                  sum(s.count)::float8 AS records, sum(s.record_size)::float8 AS bytes, sum(s.fpi_size)::float8 AS fpi
           FROM pg_get_wal_stats($1, $2, true) AS s(kind, count, count_percentage, record_size, record_size_percentage, fpi_size, fpi_size_percentage, combined_size, combined_size_percentage)
           WHERE s.count > 0 GROUP BY 1, 2 ORDER BY sum(s.record_size) + sum(s.fpi_size) DESC`,
          [start, await flushedInsertLsn(q)],
        );
        return rows.map((r) => ({ rmgr: r.rmgr, type: r.type, records: r.records / requests, bytes: r.bytes / requests, fpi: r.fpi / requests }));
      } catch (err) {
        return { error: err.message };
      }
    },
  };
}
