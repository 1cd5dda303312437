import { Client } from 'pg';
import { MemberCountFolder } from '../../src/groups/member-count-folder';
import { joinOk, postGroup, postJoin, postLeave } from '../helpers/groups';
import { authedGame, startTestApp, type TestApp } from '../helpers/test-app';

/**
 * Writes to the members of one group run side by side: they hold the group's lock shared and do
 * not write its row (memberCount's deltas are appended, and the folder moves them into the
 * counter). Writes to the group itself hold the lock exclusive. The count stays exact at every
 * moment, whatever the folder is doing.
 */
let t: TestApp;
let folder: MemberCountFolder;
beforeAll(async () => {
  t = await startTestApp();
  folder = t.app.get(MemberCountFolder);
});
afterAll(() => t.close());

type Auth = Record<string, string>;
const memberCount = async (auth: Auth, groupId: string) => (await t.http.get(`/v1/groups/${groupId}`).set(auth).expect(200)).body.memberCount as number;
const activeRows = async (groupId: string) =>
  (await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM members WHERE group_id = $1 AND status = 'active'`, [groupId]))[0].n;
const pendingDeltas = async (groupId: string) =>
  (await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM group_member_count_deltas WHERE group_id = $1', [groupId]))[0].n;

async function openClient(): Promise<Client> {
  const c = new Client({ connectionString: t.db.url });
  await c.connect();
  return c;
}

async function publicGroup(auth: Auth): Promise<string> {
  return (await postGroup(t, auth, { kind: 'guild', name: 'counted', visibility: 'public' })).id;
}

it('a member write held open on a group does not hold back joins and leaves of other users of it', async () => {
  const g = await authedGame(t);
  const groupId = await publicGroup(g.auth);
  await joinOk(t, g.auth, groupId, 'held');
  await postLeave(t, g.auth, groupId, { userId: 'held' }).expect(200);
  // What a join does to the database, left uncommitted: the group's lock shared, the member row
  // (and, by the trigger, its count).
  const held = await openClient();
  try {
    await held.query('BEGIN');
    await held.query('CALL svc_lock_group_members($1)', [groupId]);
    await held.query(`UPDATE members SET status = 'active', left_at = NULL WHERE group_id = $1 AND external_user_id = 'held'`, [groupId]);
    const started = Date.now();
    const users = Array.from({ length: 20 }, (_, i) => `side-${i}`);
    const joins = await Promise.all(users.map((u) => postJoin(t, g.auth, groupId, { userId: u }).timeout(5_000)));
    expect(joins.map((r) => r.status)).toEqual(users.map(() => 201));
    const leaves = await Promise.all(users.slice(0, 5).map((u) => postLeave(t, g.auth, groupId, { userId: u }).timeout(5_000)));
    expect(leaves.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(Date.now() - started).toBeLessThan(5_000);
    // The open write is not counted until it commits; then it is.
    expect(await memberCount(g.auth, groupId)).toBe(15);
    await held.query('COMMIT');
    expect(await memberCount(g.auth, groupId)).toBe(16);
  } finally {
    await held.end();
  }
});

it('memberCount stays exact through concurrent joins and leaves while the folder runs, and folding leaves it unchanged', async () => {
  const g = await authedGame(t);
  const groupId = await publicGroup(g.auth);
  let folding = true;
  const folds = (async () => {
    let n = 0;
    while (folding) n += await folder.fold();
    return n;
  })();
  const users = Array.from({ length: 40 }, (_, i) => `racer-${i}`);
  for (let round = 0; round < 3; round++) {
    await Promise.all(users.map((u) => postJoin(t, g.auth, groupId, { userId: u }).expect(201)));
    expect(await memberCount(g.auth, groupId)).toBe(40);
    await Promise.all(users.filter((_, i) => i % 3 === 0).map((u) => postLeave(t, g.auth, groupId, { userId: u }).expect(200)));
    expect(await memberCount(g.auth, groupId)).toBe(await activeRows(groupId));
    await Promise.all(users.filter((_, i) => i % 3 !== 0).map((u) => postLeave(t, g.auth, groupId, { userId: u }).expect(200)));
    expect(await memberCount(g.auth, groupId)).toBe(0);
  }
  folding = false;
  expect(await folds).toBeGreaterThan(0);
  await Promise.all(users.slice(0, 7).map((u) => postJoin(t, g.auth, groupId, { userId: u }).expect(201)));
  await folder.fold();
  expect(await pendingDeltas(groupId)).toBe(0);
  const [row] = await t.db.query<{ n: number }>('SELECT active_member_count AS n FROM groups WHERE id = $1', [groupId]);
  expect(row.n).toBe(7);
  expect(await memberCount(g.auth, groupId)).toBe(7);
  const listed = (await t.http.get('/v1/groups').set(g.auth).expect(200)).body.items.find((x: { id: string }) => x.id === groupId);
  expect(listed.memberCount).toBe(7);
});

it('the group list, the search and the groups allowing a key count the unfolded deltas of each group on the page as a single read does', async () => {
  const g = await authedGame(t);
  const lister = 'lister';
  const groups: string[] = [];
  for (let i = 0; i < 4; i++) {
    const groupId = await publicGroup(g.auth);
    await joinOk(t, g.auth, groupId, lister);
    await t.http.post(`/v1/groups/${groupId}/members/${lister}/permissions/counted.key`).set(g.auth).send({ allowed: true }).expect(200);
    groups.push(groupId);
  }
  await folder.fold();
  const held = await openClient();
  try {
    await held.query('BEGIN');
    // No fold can take these rows meanwhile: their joins and leaves stay deltas.
    await held.query('SELECT 1 FROM groups WHERE id = ANY($1) FOR NO KEY UPDATE', [groups]);
    const joined = [5, 0, 3, 1];
    for (const [i, n] of joined.entries()) for (let u = 0; u < n; u++) await joinOk(t, g.auth, groups[i], `counted-${u}`);
    await postLeave(t, g.auth, groups[2], { userId: 'counted-0' }).expect(200);
    await postLeave(t, g.auth, groups[3], { userId: lister }).expect(200);
    expect(await pendingDeltas(groups[0])).toBe(5);
    const expected = new Map<string, number>();
    for (const groupId of groups) {
      const count = await memberCount(g.auth, groupId);
      expect(count).toBe(await activeRows(groupId));
      expected.set(groupId, count);
    }
    expect([...expected.values()]).toEqual([6, 1, 3, 1]);
    const counted = (items: { id: string; memberCount: number }[]) => new Map(items.filter((x) => expected.has(x.id)).map((x) => [x.id, x.memberCount]));
    expect(counted((await t.http.get('/v1/groups').query({ limit: 100 }).set(g.auth).expect(200)).body.items)).toEqual(expected);
    expect(counted((await t.http.get('/v1/groups/search').query({ q: 'counted' }).set(g.auth).expect(200)).body.items)).toEqual(expected);
    const allowing = (await t.http.get(`/v1/users/${lister}/groups`).query({ permission: 'counted.key' }).set(g.auth).expect(200)).body.items;
    // The lister left the last group: the others, latest membership first, with their counts.
    expect(allowing.map((x: { id: string }) => x.id)).toEqual(groups.slice(0, 3).reverse());
    expect(counted(allowing)).toEqual(new Map(groups.slice(0, 3).map((id) => [id, expected.get(id)])));
  } finally {
    await held.query('ROLLBACK');
    await held.end();
  }
});

it('a write to the group waits for the member writes in flight, and holds new ones back until it commits', async () => {
  const g = await authedGame(t);
  const groupId = await publicGroup(g.auth);
  const member = await openClient();
  const owner = await openClient();
  try {
    await member.query('BEGIN');
    await member.query('CALL svc_lock_group_members($1)', [groupId]);
    await owner.query('BEGIN');
    let renamed = false;
    const rename = owner.query('CALL svc_lock_group($1)', [groupId]).then(() => (renamed = true));
    await new Promise((r) => setTimeout(r, 300));
    expect(renamed).toBe(false);
    // A join arriving now queues behind the waiting write to the group.
    let joined = false;
    const join = postJoin(t, g.auth, groupId, { userId: 'late' }).then((r) => ((joined = true), r));
    await new Promise((r) => setTimeout(r, 300));
    expect(joined).toBe(false);
    await member.query('COMMIT');
    await rename;
    await new Promise((r) => setTimeout(r, 200));
    expect(joined).toBe(false);
    await owner.query('COMMIT');
    expect((await join).status).toBe(201);
  } finally {
    await member.end();
    await owner.end();
  }
});

it('a fold gives way to a write to the group in flight, and folds its group on a later pass', async () => {
  const g = await authedGame(t);
  const groupId = await publicGroup(g.auth);
  await folder.fold();
  const held = await openClient();
  try {
    await held.query('BEGIN');
    // As a write to the group holds it (settings, deletion): no fold can take its row meanwhile.
    await held.query('SELECT 1 FROM groups WHERE id = $1 FOR NO KEY UPDATE', [groupId]);
    await joinOk(t, g.auth, groupId, 'a');
    await joinOk(t, g.auth, groupId, 'b');
    const started = Date.now();
    await folder.fold();
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(await pendingDeltas(groupId)).toBe(2);
  } finally {
    await held.query('ROLLBACK');
    await held.end();
  }
  await folder.fold();
  expect(await pendingDeltas(groupId)).toBe(0);
  expect(await memberCount(g.auth, groupId)).toBe(2);
});

it('deltas of a group that is gone are dropped by the fold; a purge writes none', async () => {
  const orphan = '01a216ad-e538-7b11-8c01-00000000dead';
  await t.db.query('INSERT INTO group_member_count_deltas (group_id, delta) VALUES ($1, 1), ($1, -1), ($1, 1)', [orphan]);
  await folder.fold();
  expect(await pendingDeltas(orphan)).toBe(0);

  const g = await authedGame(t);
  const groupId = await publicGroup(g.auth);
  await joinOk(t, g.auth, groupId, 'purged');
  await folder.fold();
  await t.db.query('DELETE FROM groups WHERE id = $1', [groupId]);
  expect(await pendingDeltas(groupId)).toBe(0);
});
