import { Client } from 'pg';
import { unitOfWorkClient } from '../../src/db/sql';
import { UnitOfWork } from '../../src/db/unit-of-work';
import { InvitationsRepository } from '../../src/invitations/invitations.repository';
import { postGroup } from '../helpers/groups';
import { authedGame, startTestApp, type TestApp } from '../helpers/test-app';

/**
 * An accept finds its invitation through the code's index, whatever the table held when the
 * connection's plan for the lookup was made: a plan kept from when it held a few rows scanned it
 * whole (or, made without sequential scans, the index by group whole) on every call after.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

/** The prepared statements of findByCode's text on the connection. */
const prepared = async (m: Parameters<InvitationsRepository['findByCode']>[0]): Promise<{ generic: number }[]> =>
  m.query(`SELECT generic_plans::int AS generic FROM pg_prepared_statements WHERE statement LIKE '%FROM invitations i, LATERAL%FOR UPDATE OF i'`);

/** The rows of `invitations` this transaction read so far: by sequential scans, and fetched by index scans. */
async function scans(m: Parameters<InvitationsRepository['findByCode']>[0]): Promise<{ seq: number; idx: number }> {
  const [row] = (await m.query(
    `SELECT seq_tup_read::int AS seq, idx_tup_fetch::int AS idx FROM pg_stat_xact_user_tables WHERE relname = 'invitations'`,
  )) as { seq: number; idx: number }[];
  return row;
}

it('looks a code up by its index after the table grew from a few rows to thousands', async () => {
  const g = await authedGame(t);
  const groupId = (await postGroup(t, g.auth, { kind: 'guild', name: 'plans', visibility: 'invite-only' })).id;
  const code = (await t.http.post(`/v1/groups/${groupId}/invitations`).set(g.auth).send({}).expect(201)).body.code as string;
  const repo = t.app.get(InvitationsRepository);
  const other = new Client({ connectionString: t.db.url });
  await other.connect();
  const kept = await t.app.get(UnitOfWork).run(async (tx) => {
    // As autovacuum leaves a new database: the table's statistics say one row.
    await other.query('VACUUM ANALYZE invitations');
    // Seven calls on one connection while the table holds one row: past `auto`'s five custom plans.
    for (let i = 0; i < 7; i++) expect((await repo.findByCode(tx.manager, code, true))?.code).toBe(code);
    await other.query(
      `INSERT INTO invitations (id, game_id, group_id, code)
       SELECT gen_random_uuid(), $1, $2, lpad(to_hex(n), 16, '0') FROM generate_series(1, 20000) n`,
      [g.gameId, groupId],
    );
    const before = await scans(tx.manager);
    expect((await repo.findByCode(tx.manager, code, true))?.code).toBe(code);
    const after = await scans(tx.manager);
    expect({ seq: after.seq - before.seq, idx: after.idx - before.idx }).toEqual({ seq: 0, idx: 1 });
    // The plan was kept: one prepared statement of the text, on its generic plan.
    expect(unitOfWorkClient(tx.manager)).not.toBeNull();
    return prepared(tx.manager);
  }).finally(() => other.end());
  expect(kept).toHaveLength(1);
  expect(kept[0].generic).toBeGreaterThanOrEqual(8);
});
