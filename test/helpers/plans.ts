/** A node of EXPLAIN's JSON plan and every node below it, depth first. */
export const planNodes = <N extends { Plans?: N[] }>(n: N): N[] => [n, ...(n.Plans ?? []).flatMap(planNodes)];

/**
 * EXPLAIN's text for a statement as the planner would take it if neither whole-table scans nor
 * sorts were to be had where an index can stand in. A test's tables hold a few rows, and whether
 * autovacuum has analyzed them yet decides which plan is cheapest; pricing those out leaves the
 * index plan if and only if an index serves the statement's where clause and order.
 */
export async function indexPlanText(
  db: { query<R>(sql: string, params?: unknown[]): Promise<R[]> },
  sql: string,
  params: unknown[],
): Promise<string> {
  await db.query('BEGIN');
  try {
    await db.query('SET LOCAL enable_seqscan = off');
    await db.query('SET LOCAL enable_sort = off');
    const rows = await db.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`, params);
    return rows.map((r) => r['QUERY PLAN']).join('\n');
  } finally {
    await db.query('ROLLBACK');
  }
}
