import { Client } from 'pg';
import type { Response } from 'supertest';
import { userLockKey } from '../../src/identity/user-lock';
import { friendsClient, type FriendsGame } from '../helpers/friends';
import { newGame, startTestApp, type TestApp } from '../helpers/test-app';

/**
 * Writes racing an erasure of their user (EXTENSIONS X7): each one happens wholly before it (and is
 * erased with the rest) or wholly after it (on a new user); never a row left on the old identity,
 * never a 5xx. Joins, friend requests and invitation accepts run side by side with the erasure.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ WEBHOOK_WORKER_ENABLED: 'false', DATABASE_POOL_MAX: '10' });
});
afterAll(() => t.close());

const ROUNDS = 4;
const GROUPS = 12;

/** Rows of the game on an internal user the game has no identity for: half states. */
async function orphans(gameId: string): Promise<string[]> {
  const rows = await t.db.query<{ what: string }>(
    `SELECT 'member ' || m.external_user_id AS what FROM members m JOIN groups g ON g.id = m.group_id
       WHERE g.game_id = $1 AND NOT EXISTS (SELECT 1 FROM user_identities ui WHERE ui.game_id = $1 AND ui.user_id = m.user_id AND ui.external_id = m.external_user_id)
     UNION ALL
     SELECT 'relationship ' || r.user_external_id || ' -> ' || r.other_external_id FROM user_relationships r
       WHERE r.game_id = $1 AND (
         NOT EXISTS (SELECT 1 FROM user_identities ui WHERE ui.game_id = $1 AND ui.user_id = r.user_id AND ui.external_id = r.user_external_id)
         OR NOT EXISTS (SELECT 1 FROM user_identities ui WHERE ui.game_id = $1 AND ui.user_id = r.other_id AND ui.external_id = r.other_external_id))
     UNION ALL
     SELECT 'invitation redeemed by a forgotten user' FROM invitations i
       WHERE i.game_id = $1 AND i.used_by IS NOT NULL AND NOT EXISTS (SELECT 1 FROM users u WHERE u.id = i.used_by)
     UNION ALL
     SELECT 'group ' || g.name || ' counts ' || (g.active_member_count + coalesce((SELECT sum(d.delta) FROM group_member_count_deltas d WHERE d.group_id = g.id), 0))
            || ' but has ' || (SELECT count(*) FROM members m WHERE m.group_id = g.id AND m.status = 'active')
       FROM groups g WHERE g.game_id = $1
         AND g.active_member_count + coalesce((SELECT sum(d.delta) FROM group_member_count_deltas d WHERE d.group_id = g.id), 0)
             <> (SELECT count(*) FROM members m WHERE m.group_id = g.id AND m.status = 'active')`,
    [gameId],
  );
  return rows.map((r) => r.what);
}

async function setup(): Promise<{ g: FriendsGame; groups: string[] }> {
  const { gameId, key } = await newGame(t, 'races');
  const g = friendsClient(t, gameId, key);
  const groups: string[] = [];
  for (let i = 0; i < GROUPS; i++) {
    const r = await g.post('/v1/groups', { kind: 'guild', name: `race ${i}`, visibility: 'public', creatorUserId: `owner${i}` });
    groups.push(r.body.id as string);
  }
  return { g, groups };
}

describe('writes racing an erasure of their user', () => {
  it('joins, friend requests and invitation accepts land wholly before or wholly after: no half state, no 5xx', async () => {
    const { g, groups } = await setup();
    const outcomes = new Map<number, number>();
    for (let round = 0; round < ROUNDS; round++) {
      const eve = `eve${round}`;
      // Something to erase already, so the erasure has work while the writes arrive.
      for (const groupId of groups.slice(0, 3)) await g.post(`/v1/groups/${groupId}/join`, { userId: eve });
      const codes: string[] = [];
      for (const groupId of groups.slice(6)) {
        const inv = await g.post(`/v1/groups/${groupId}/invitations`, { targetUserId: eve });
        codes.push(inv.body.code as string);
      }
      const writes: Promise<Response>[] = [];
      for (const groupId of groups.slice(3, 6)) writes.push(g.post(`/v1/groups/${groupId}/join`, { userId: eve }));
      for (let i = 0; i < 6; i++) writes.push(g.post(`/v1/users/friend${round}_${i}/friend-requests`, { targetSvcUserId: eve }));
      writes.splice(3, 0, g.del(`/v1/users/${eve}`));
      for (const code of codes) writes.push(g.post(`/v1/invitations/${code}/accept`, { userId: eve }));
      for (let i = 0; i < 4; i++) writes.push(g.post(`/v1/users/${eve}/friend-requests`, { targetSvcUserId: `friend${round}_x${i}` }));
      const answers = await Promise.all(writes);
      for (const a of answers) outcomes.set(a.status, (outcomes.get(a.status) ?? 0) + 1);
      expect(answers.filter((a) => a.status >= 500).map((a) => a.body)).toEqual([]);
      expect(await orphans(g.gameId)).toEqual([]);
    }
    // Every write was refused only for a reason a client can act on.
    expect([...outcomes.keys()].every((s) => s < 300 || s === 404 || s === 410 || s === 409)).toBe(true);
  });

  it('an erasure waits for a write in flight that holds the user, then erases what it wrote', async () => {
    const { g, groups } = await setup();
    expect((await g.post(`/v1/groups/${groups[0]}/join`, { userId: 'eve' })).status).toBe(201);
    const [{ user_id: eveId }] = await t.db.query<{ user_id: string }>(`SELECT user_id FROM user_identities WHERE game_id = $1 AND external_id = 'eve'`, [g.gameId]);
    // A write in flight, as the service makes one: the user's lock shared, then its rows.
    const writer = new Client({ connectionString: t.db.url });
    await writer.connect();
    try {
      await writer.query('BEGIN');
      await writer.query(`CALL svc_lock_user_shared(${userLockKey(g.gameId, 'eve')})`);
      await writer.query(
        `INSERT INTO members (id, group_id, user_id, external_user_id, status) VALUES (gen_random_uuid(), $1, $2, 'eve', 'active')`,
        [groups[1], eveId],
      );
      let settled = false;
      const erasure = g.del('/v1/users/eve').then((r) => ((settled = true), r));
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(settled).toBe(false);
      await writer.query('COMMIT');
      const r = await erasure;
      expect(r.status).toBe(200);
      expect(r.body.removed.memberships).toBe(2);
    } finally {
      await writer.end();
    }
    expect(await t.db.query(`SELECT 1 FROM members WHERE external_user_id = 'eve'`)).toEqual([]);
    expect(await orphans(g.gameId)).toEqual([]);
  });
});
