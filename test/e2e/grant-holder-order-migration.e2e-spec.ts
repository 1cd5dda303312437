import type { DataSource, QueryRunner } from 'typeorm';
import { MIGRATIONS } from '../../migrations';
import { GrantHolderOrder1766800000000 } from '../../migrations/1766800000000-grant-holder-order';
import { releaseOf } from '../../migrations/release';
import { createDataSource } from '../../src/db/data-source';
import { seqUid as uid } from '../helpers/ids';
import { permissionApi } from '../helpers/permissions';
import { withQueryRunner } from '../helpers/query-runner';
import { authedGame, startTestApp, type TestApp } from '../helpers/test-app';

/**
 * Migration GrantHolderOrder (expand, 1.1.0): the grant rows written before it get their member's
 * order in batches, the columns end NOT NULL, the two indexes are built and the old role index is
 * dropped; it can run again, and its down brings the schema of 1.0.0 back.
 */

jest.setTimeout(120_000);

describe('GrantHolderOrder1766800000000', () => {
  let t: TestApp;
  let ds: DataSource;
  const migration = new GrantHolderOrder1766800000000();

  beforeAll(async () => {
    t = await startTestApp();
    ds = createDataSource({ url: t.db.url, poolMax: 2 });
    await ds.initialize();
  });
  afterAll(async () => {
    await ds?.destroy();
    await t?.close();
  });

  const withRunner = <T>(work: (q: QueryRunner) => Promise<T>) => withQueryRunner(ds, work);

  const columns = async () =>
    (
      await t.db.query<{ c: string }>(
        `SELECT table_name || '.' || column_name || ':' || is_nullable AS c FROM information_schema.columns
         WHERE (table_name, column_name) IN (('member_roles', 'member_joined_at'), ('member_permission_overrides', 'group_id'), ('member_permission_overrides', 'member_joined_at'))
         ORDER BY 1`,
      )
    ).map((r) => r.c);
  const indexes = async () =>
    (
      await t.db.query<{ i: string }>(
        `SELECT c.relname || ':' || i.indisvalid AS i FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
         WHERE c.relname IN ('member_roles_role', 'member_roles_role_order', 'member_permission_overrides_allowing') ORDER BY 1`,
      )
    ).map((r) => r.i);
  const unfilled = async () =>
    (
      await t.db.query<{ n: number }>(
        `SELECT (SELECT count(*)::int FROM member_roles mr JOIN members m ON m.id = mr.member_id WHERE mr.member_joined_at IS DISTINCT FROM m.joined_at)
              + (SELECT count(*)::int FROM member_permission_overrides o JOIN members m ON m.id = o.member_id
                 WHERE o.member_joined_at IS DISTINCT FROM m.joined_at OR o.group_id IS DISTINCT FROM m.group_id) AS n`,
      )
    )[0].n;

  it('is an expand of 1.1.0 run outside a transaction, on the list', () => {
    expect(migration.transaction).toBe(false);
    expect(releaseOf(migration)).toEqual({ version: '1.1.0', kind: 'expand' });
    expect(MIGRATIONS).toContain(GrantHolderOrder1766800000000);
  });

  it('fills the rows written before it, ends NOT NULL with its indexes, runs again, and its down restores the schema before it', async () => {
    const { auth } = await authedGame(t, 'holder order');
    const api = permissionApi(t, auth);
    const groupId = await api.group();
    const role = await api.role(groupId, 'r', 1);
    await api.grant(role, 'k');
    const users = Array.from({ length: 30 }, () => uid());
    for (const [i, u] of users.entries()) {
      await api.join(groupId, u);
      if (i % 3 !== 2) await api.assign(groupId, u, role);
      if (i % 3 === 2) await api.override(groupId, u, 'k', true);
    }
    const before = await api.membersAllowed(groupId, 'k', 7);
    expect(before).toEqual([...users].reverse());

    await withRunner((q) => migration.down(q));
    expect(await columns()).toEqual([]);
    expect(await indexes()).toEqual(['member_roles_role:true']);

    await withRunner((q) => migration.up(q));
    expect(await columns()).toEqual(['member_permission_overrides.group_id:NO', 'member_permission_overrides.member_joined_at:NO', 'member_roles.member_joined_at:NO']);
    expect(await indexes()).toEqual(['member_permission_overrides_allowing:true', 'member_roles_role_order:true']);
    expect(await unfilled()).toBe(0);

    await withRunner((q) => migration.up(q));
    expect(await indexes()).toEqual(['member_permission_overrides_allowing:true', 'member_roles_role_order:true']);
    expect(await api.membersAllowed(groupId, 'k', 7)).toEqual(before);
  });
});
