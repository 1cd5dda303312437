import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import { GROUP_CREATED_AT_FIELD, GROUP_ID_FIELD } from '../../src/groups/group-json';
import { GroupsRepository } from '../../src/groups/groups.repository';
import { authedGame, startTestApp, type TestApp } from '../helpers/test-app';

/**
 * The group list's statement keeps its plan. PostgreSQL plans a prepared statement afresh on every
 * call while its generic plan looks dearer than the calls' own plans; with the page's limit as a
 * parameter it priced the generic plan as if a tenth of the game's groups were read, so over a game
 * of 10,000 groups every call was planned anew, which cost more than reading the page.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

it('the first page and a later page of a game of 10,000 groups run on kept (generic) plans once warm', async () => {
  const { gameId } = await authedGame(t);
  await t.db.query(
    `INSERT INTO groups (id, game_id, kind, name, search_name, visibility, created_at, updated_at)
     SELECT gen_random_uuid(), $1, 'guild', 'g' || g, 'g' || g, 'public', now() - g * interval '1 second', now() - g * interval '1 second'
     FROM generate_series(1, 10000) g`,
    [gameId],
  );
  await t.db.query('ANALYZE groups');
  const c = new Client({ connectionString: t.db.url });
  await c.connect();
  try {
    // The repository on one connection of its own, whose prepared statements can be read back.
    const ds = { driver: { master: c } } as unknown as DataSource;
    const repo = t.app.get(GroupsRepository);
    const first = await repo.listJson(ds, { gameId, limit: 50 });
    expect(first).toHaveLength(51);
    const after = { createdAt: new Date(Number(first[49][GROUP_CREATED_AT_FIELD])).toISOString(), id: first[49][GROUP_ID_FIELD] };
    for (let i = 0; i < 10; i++) {
      expect(await repo.listJson(ds, { gameId, limit: 50 })).toEqual(first);
      expect((await repo.listJson(ds, { gameId, limit: 50, after }))[0]).toEqual(first[50]);
    }
    const { rows } = await c.query(
      `SELECT name, generic_plans::int AS generic, custom_plans::int AS custom FROM pg_prepared_statements ORDER BY name COLLATE "C"`,
    );
    // PostgreSQL plans the first five calls for their own values, then keeps the generic plan.
    expect(rows).toEqual([
      { name: 'groups_json_page_51', generic: 6, custom: 5 },
      { name: 'groups_json_page_a51', generic: 5, custom: 5 },
    ]);
  } finally {
    await c.end();
  }
});
