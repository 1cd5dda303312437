import { expectError } from '../helpers/errors';
import { postGroup, postJoin, postLeave } from '../helpers/groups';
import { journalEvents } from '../helpers/journal';
import { asAdmin, authedGame, startTestApp, type TestApp } from '../helpers/test-app';
import { activeIn, known, memberRead, players, publicGroups, shared } from '../helpers/write-batch';

/**
 * Joins and leaves of a batch sharing their first statement (UnitOfWork.runShared): the group
 * lookup with the member change, one statement for the writes of a run that name no group or
 * player in common. Players the game knows, so the member rows are written in that statement.
 * Each answers as the member then reads, and the checks in it (a ban, the cap, the exclusive
 * kinds) refuse as alone.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ WEBHOOK_WORKER_ENABLED: 'false', DATABASE_POOL_MAX: '2', WRITE_BATCH_MAX: '16' });
});
afterAll(() => t.close());

it('parallel joins, leaves and joins again of players the game knows share statements, each answered as the member then reads, recorded once', async () => {
  const g = await authedGame(t);
  const groups = await publicGroups(t, g.auth, 8);
  const users = players(24, 'k');
  await known(t, g.auth, users);
  const pairs = users.map((u, i) => ({ u, groupId: groups[i % groups.length] }));
  const before = await shared(t);

  for (const [step, status] of [['join', 201], ['leave', 200], ['join', 201]] as const) {
    const answers = await Promise.all(pairs.map(({ u, groupId }) => (step === 'join' ? postJoin : postLeave)(t, g.auth, groupId, { userId: u })));
    for (const [i, r] of answers.entries()) {
      expect(r.status).toBe(status);
      expect(r.body).toEqual(await memberRead(t, g.auth, pairs[i].groupId, pairs[i].u));
      expect(r.body.status).toBe(step === 'join' ? 'active' : 'left');
    }
  }
  const after = await shared(t);
  expect(after.statements).toBeGreaterThan(before.statements);
  expect(after.writes - before.writes).toBeGreaterThan(2 * (after.statements - before.statements) - 1);
  for (const groupId of groups) {
    expect(await activeIn(t, groupId)).toBe(3);
    expect((await t.http.get(`/v1/groups/${groupId}`).set(g.auth)).body.memberCount).toBe(3);
  }
  const recorded = await t.db.query<{ type: string; n: number }>(
    `SELECT e.type, count(*)::int AS n FROM ${journalEvents()} WHERE e.game_id = $1 AND e.body->'member'->>'userId' LIKE 'k%' AND e.group_id = ANY ($2::uuid[]) GROUP BY 1 ORDER BY 1`,
    [g.gameId, groups],
  );
  expect(recorded).toEqual([
    { type: 'member.joined', n: 48 },
    { type: 'member.left', n: 24 },
  ]);
});

it('a shared statement refuses as alone: banned players, full groups, a second group of an exclusive kind', async () => {
  const g = await authedGame(t);
  expect((await t.http.patch(`/v1/admin/games/${g.gameId}/config`).set(asAdmin).send({ config: { groups: { exclusiveKinds: ['clan'] } } })).status).toBe(200);
  const open = await publicGroups(t, g.auth, 8);
  const full = await publicGroups(t, g.auth, 4, { maxMembers: 1 });
  const clans: string[] = [];
  for (let i = 0; i < 4; i++) clans.push((await postGroup(t, g.auth, { kind: 'clan', name: `c${i}`, visibility: 'public' })).id);
  const users = players(12 + 4 * 12, 'r');
  await known(t, g.auth, [...users, 'holder0', 'holder1', 'holder2', 'holder3']);
  for (let i = 0; i < 4; i++) {
    expect((await postJoin(t, g.auth, full[i], { userId: `holder${i}` })).status).toBe(201);
    // r0-r3 are in a clan already: a second one refuses them.
    expect((await postJoin(t, g.auth, clans[i], { userId: users[i] })).status).toBe(201);
  }
  for (const u of users.slice(4, 6)) expect((await t.http.post('/v1/bans').set(g.auth).send({ userId: u })).status).toBe(201);
  for (const [i, u] of users.slice(6, 8).entries()) expect((await t.http.post(`/v1/groups/${open[i + 1]}/bans`).set(g.auth).send({ userId: u })).status).toBe(201);

  // One kind of refusal a round, among joins that go ahead: a check the shared statement left out
  // would admit them all, with no refusal in the batch to send its writes back to run alone.
  const rounds = [
    users.slice(0, 4).map((u, i) => ({ u, groupId: clans[(i + 1) % 4], expect: [409, 'already_in_group_of_kind'] as const })),
    users.slice(4, 6).map((u, i) => ({ u, groupId: open[i], expect: [403, 'banned'] as const })),
    users.slice(6, 8).map((u, i) => ({ u, groupId: open[i + 1], expect: [403, 'banned'] as const })),
    users.slice(8, 12).map((u, i) => ({ u, groupId: full[i], expect: [409, 'group_full'] as const })),
  ];
  let next = 12;
  for (const refused of rounds) {
    // The first writes find the lanes free and run alone: the refusals come after, among the writes that wait.
    const admitted = users.slice(next, (next += 12)).map((u, i) => ({ u, groupId: open[i % 8], expect: [201, null] as const }));
    const asks = admitted.flatMap((a, i) => [a, ...(i >= 4 && refused[i - 4] ? [refused[i - 4]] : [])]);
    const before = await shared(t);
    const answers = await Promise.all(asks.map((a) => postJoin(t, g.auth, a.groupId, { userId: a.u })));
    answers.forEach((r, i) => {
      const [status, code] = asks[i].expect;
      if (code === null) {
        expect(r.status).toBe(status);
        expect(r.body).toMatchObject({ groupId: asks[i].groupId, userId: asks[i].u, status: 'active' });
      } else expectError(r, status, code);
    });
    expect((await shared(t)).statements).toBeGreaterThan(before.statements);
  }
  for (const groupId of full) expect(await activeIn(t, groupId)).toBe(1);
  for (const groupId of clans) expect(await activeIn(t, groupId)).toBe(1);
  expect((await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM members WHERE group_id = ANY ($1::uuid[]) AND status = 'active'`, [open]))[0].n).toBe(48);
});

it('writes naming one group, or one player, never share a statement: the cap and the exclusive kinds hold for players the game knows', async () => {
  const g = await authedGame(t);
  expect((await t.http.patch(`/v1/admin/games/${g.gameId}/config`).set(asAdmin).send({ config: { groups: { exclusiveKinds: ['clan'] } } })).status).toBe(200);
  const users = players(40, 'c');
  await known(t, g.auth, [...users, 'loyal']);
  const [capped] = await publicGroups(t, g.auth, 1, { maxMembers: 5 });
  const clans: string[] = [];
  for (let i = 0; i < 10; i++) clans.push((await postGroup(t, g.auth, { kind: 'clan', name: `c${i}`, visibility: 'public' })).id);
  const [other] = await publicGroups(t, g.auth, 1);

  // Each of the capped group's joins alternates with one to another group, so that runs form.
  const asks = users.flatMap((u, i) => [
    { u, groupId: capped },
    ...(i < clans.length ? [{ u: 'loyal', groupId: clans[i] }] : []),
    { u: `${u}x`, groupId: other },
  ]);
  const answers = await Promise.all(asks.map((a) => postJoin(t, g.auth, a.groupId, { userId: a.u })));
  const of = (groupIds: string[]) => answers.filter((_, i) => groupIds.includes(asks[i].groupId));
  expect(of([capped]).filter((r) => r.status === 201)).toHaveLength(5);
  for (const r of of([capped]).filter((x) => x.status !== 201)) expectError(r, 409, 'group_full');
  expect(of(clans).filter((r) => r.status === 201)).toHaveLength(1);
  for (const r of of(clans).filter((x) => x.status !== 201)) expectError(r, 409, 'already_in_group_of_kind');
  expect(await activeIn(t, capped)).toBe(5);
  expect((await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM members WHERE group_id = ANY ($1::uuid[]) AND status = 'active'`, [clans]))[0].n).toBe(1);
});

it('joins of one group without a cap share statements; a capped group found in one runs its joins alone, and the cap holds', async () => {
  const g = await authedGame(t);
  const joiners = players(30, 'h');
  const queuers = players(30, 'q');
  await known(t, g.auth, [...joiners, ...queuers]);
  const [hot] = await publicGroups(t, g.auth, 1);

  // Every write names the one group: a shared statement carries joins of it, or there is none.
  const before = await shared(t);
  const answers = await Promise.all(joiners.map((u) => postJoin(t, g.auth, hot, { userId: u })));
  for (const [i, r] of answers.entries()) {
    expect(r.status).toBe(201);
    expect(r.body).toEqual(await memberRead(t, g.auth, hot, joiners[i]));
  }
  expect((await shared(t)).statements).toBeGreaterThan(before.statements);
  expect(await activeIn(t, hot)).toBe(30);
  expect((await t.http.get(`/v1/groups/${hot}`).set(g.auth)).body.memberCount).toBe(30);
  const [{ n }] = await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${journalEvents()} WHERE e.group_id = $1 AND e.type = 'member.joined'`, [hot]);
  expect(n).toBe(30);

  // A cap set on a group this process has seen joined without one: its joins name it shared, and
  // two in one statement would each be admitted in its snapshot before the other's row. The first
  // run holding one of them with another write finds the cap and fails, and its batch runs each
  // alone; the cap holds.
  const [capped] = await publicGroups(t, g.auth, 1);
  expect((await postJoin(t, g.auth, capped, { userId: queuers[0] })).status).toBe(201);
  expect((await postLeave(t, g.auth, capped, { userId: queuers[0] })).status).toBe(200);
  expect((await t.http.patch(`/v1/groups/${capped}`).set(g.auth).send({ maxMembers: 10 })).status).toBe(200);
  const queued = await Promise.all(queuers.map((u) => postJoin(t, g.auth, capped, { userId: u })));
  expect(queued.filter((r) => r.status === 201)).toHaveLength(10);
  for (const r of queued.filter((x) => x.status !== 201)) expectError(r, 409, 'group_full');
  expect(await activeIn(t, capped)).toBe(10);
});
