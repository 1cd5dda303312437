import { expectError } from '../helpers/errors';
import { postGroup, postJoin, postLeave } from '../helpers/groups';
import { journalEvents } from '../helpers/journal';
import { authedGame, startTestApp, type TestApp } from '../helpers/test-app';
import { activeIn, inOneBatch, known, memberRead, players, shared } from '../helpers/write-batch';

/**
 * Leaves in a batch beside joins of their group (UnitOfWork.runShared, memberWriteLookups): a
 * leave of a group this process saw owned by someone else shares statements with the group's other
 * member writes; an owner's leave, which reads the member count, shares none.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ WEBHOOK_WORKER_ENABLED: 'false', DATABASE_POOL_MAX: '2', WRITE_BATCH_MAX: '16' });
});
afterAll(() => t.close());

type Auth = Record<string, string>;
const owned = async (auth: Auth, owner: string) => (await postGroup(t, auth, { kind: 'guild', name: 'hot', visibility: 'public', creatorUserId: owner })).id;

it("leaves of one group by players who do not own it share statements with each other and with the group's joins", async () => {
  const g = await authedGame(t);
  const stayers = players(30, 's');
  const movers = players(30, 'm');
  await known(t, g.auth, ['boss', ...stayers, ...movers]);
  const hot = await owned(g.auth, 'boss');
  for (const r of await Promise.all(stayers.map((u) => postJoin(t, g.auth, hot, { userId: u })))) expect(r.status).toBe(201);

  // Leaves only: before, every one ran alone, naming its group plainly.
  let before = await shared(t);
  const left = await Promise.all(stayers.map((u) => postLeave(t, g.auth, hot, { userId: u })));
  for (const [i, r] of left.entries()) {
    expect(r.status).toBe(200);
    expect(r.body).toEqual(await memberRead(t, g.auth, hot, stayers[i]));
    expect(r.body.status).toBe('left');
  }
  expect((await shared(t)).statements).toBeGreaterThan(before.statements);

  // Joins and leaves of the group, alternating: runs hold both. (The creator's membership is the 91st join.) (The creator's membership is the 91st join.)
  before = await shared(t);
  const asks = movers.flatMap((u, i) => [{ u, join: true }, { u: stayers[i], join: false }]);
  await Promise.all(stayers.map((u) => postJoin(t, g.auth, hot, { userId: u })));
  const answers = await Promise.all(asks.map((a) => (a.join ? postJoin : postLeave)(t, g.auth, hot, { userId: a.u })));
  for (const [i, r] of answers.entries()) {
    expect(r.status).toBe(asks[i].join ? 201 : 200);
    expect(r.body).toEqual(await memberRead(t, g.auth, hot, asks[i].u));
  }
  const after = await shared(t);
  expect(after.statements).toBeGreaterThan(before.statements);
  expect(after.reruns).toBe(before.reruns);
  expect(await activeIn(t, hot)).toBe(31);
  expect((await t.http.get(`/v1/groups/${hot}`).set(g.auth)).body.memberCount).toBe(31);
  const recorded = await t.db.query<{ type: string; n: number }>(
    `SELECT e.type, count(*)::int AS n FROM ${journalEvents()} WHERE e.group_id = $1 AND e.type LIKE 'member.%' GROUP BY 1 ORDER BY 1`,
    [hot],
  );
  expect(recorded).toEqual([
    { type: 'member.joined', n: 91 },
    { type: 'member.left', n: 60 },
  ]);
});

/**
 * The group's owner changed since this process saw it: the new owner's leave, named shared, finds
 * itself the owner and sends its batch back to run each write alone. Were it kept in its run, its
 * statement (the leaves', sent before the joins') would read a count without the join recorded
 * before it, and the owner would leave "as the last member" just after someone joined.
 */
it("an owner's leave never shares a run with its group's joins, even when this process saw another owner", async () => {
  const g = await authedGame(t);
  await known(t, g.auth, ['founder', 'heir', 'former', 'newcomer']);
  const busy = await owned(g.auth, 'founder');
  const group = await owned(g.auth, 'founder');
  expect((await postJoin(t, g.auth, group, { userId: 'former' })).status).toBe(201);
  expect((await postLeave(t, g.auth, group, { userId: 'former' })).status).toBe(200);
  expect((await postJoin(t, g.auth, group, { userId: 'heir' })).status).toBe(201);
  // Neither the transfer nor the kick is a write this process's lookups see: it still knows 'founder' as the owner.
  expect((await t.http.post(`/v1/groups/${group}/owner`).set(g.auth).send({ userId: 'heir' })).status).toBe(200);
  expect((await t.http.post(`/v1/groups/${group}/members/founder/kick`).set(g.auth).send({})).status).toBe(200);

  const before = await shared(t);
  const [former, newcomer, heir] = await inOneBatch(t, g.auth, busy, [
    () => postLeave(t, g.auth, group, { userId: 'former' }),
    () => postJoin(t, g.auth, group, { userId: 'newcomer' }),
    () => postLeave(t, g.auth, group, { userId: 'heir' }),
  ]);
  expect(former.status).toBe(200);
  expect(former.body.status).toBe('left');
  expect(newcomer.status).toBe(201);
  const read = (await t.http.get(`/v1/groups/${group}`).set(g.auth)).body;
  if (heir.status === 200) {
    expect(read).toMatchObject({ ownerUserId: null, memberCount: 1 });
  } else {
    expectError(heir, 409, 'owner_must_transfer');
    expect(read).toMatchObject({ ownerUserId: 'heir', memberCount: 2 });
  }
  // In each transaction's own order, the owner leaves as the last member, or not at all.
  const events = await t.db.query<{ type: string; userId: string; xid: string }>(
    `SELECT e.type, e.body->'member'->>'userId' AS "userId", e.xid::text AS xid FROM ${journalEvents()}
      WHERE e.group_id = $1 AND e.type LIKE 'member.%' ORDER BY e.era, e.xid, e.seq`,
    [group],
  );
  const heirLeft = events.find((e) => e.type === 'member.left' && e.userId === 'heir');
  const joined = events.find((e) => e.type === 'member.joined' && e.userId === 'newcomer');
  expect(joined).toBeDefined();
  if (heirLeft) expect(joined!.xid === heirLeft.xid && events.indexOf(joined!) < events.indexOf(heirLeft)).toBe(false);
  expect((await shared(t)).reruns).toBe(before.reruns + 1);
});
