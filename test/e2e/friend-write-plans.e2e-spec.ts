import { DataSource } from 'typeorm';
import { ServiceClient } from '../../src/db/prepared-client';
import { transaction } from '../../src/db/transaction';
import { FriendsRepository, type Party } from '../../src/friends/friends.repository';
import { friendsGame, sendPending } from '../helpers/friends';
import { identityOf } from '../helpers/identities';
import { startTestApp, type TestApp } from '../helpers/test-app';

/**
 * A friend request's send and accept check and write in one statement each (FriendsRepository.send,
 * accept). Under `auto` PostgreSQL planned the send's anew on each call: its generic plan was
 * costed above the custom ones (0.4 ms of planning a call, more than it ran). Both run on their
 * generic plans from the first call. The repository runs here on a pool of one connection, in units
 * of work, so that every call reuses one session, whose prepared statements it then reads.
 */
let t: TestApp;
let single: DataSource;
beforeAll(async () => {
  t = await startTestApp({ WEBHOOK_WORKER_ENABLED: 'false' });
  single = await new DataSource({ type: 'postgres', url: t.db.url, extra: { max: 1, Client: ServiceClient } }).initialize();
});
afterAll(async () => {
  await single?.destroy();
  await t.close();
});

it("a friend request's send and accept run on generic plans, never planned for their values", async () => {
  const g = await friendsGame(t);
  const repo = t.app.get(FriendsRepository);
  const party = async (externalId: string): Promise<Party> => ({ id: (await identityOf(t, g.gameId, externalId))!, externalId });
  for (let i = 0; i < 8; i++) {
    // Known players, each pair with no row between them.
    await sendPending(g, `planner${i}`, `planned${i}`);
    await t.db.query('DELETE FROM user_relationships WHERE game_id = $1', [g.gameId]);
    const [from, to] = [await party(`planner${i}`), await party(`planned${i}`)];
    const accepted = await transaction(
      single,
      async (m) => {
        const sent = await repo.send(m, g.gameId, from, to, [], { maxFriends: 100, maxPendingRequests: 100 });
        return repo.accept(m, g.gameId, from.id, to.id, sent.request!.id, 100);
      },
      { unitOfWork: true },
    );
    expect(accepted.friendship).toMatchObject({ userId: from.id, otherId: to.id, type: 'friend' });
  }
  const plans = await single.query<{ kind: string; generic: number; custom: number }[]>(
    `SELECT CASE WHEN statement LIKE '%made AS (%' THEN 'send' ELSE 'accept' END AS kind, generic_plans::int AS generic, custom_plans::int AS custom
       FROM pg_prepared_statements WHERE statement LIKE 'WITH c AS (%' ORDER BY 1`,
  );
  expect(plans).toEqual([
    { kind: 'accept', generic: 8, custom: 0 },
    { kind: 'send', generic: 8, custom: 0 },
  ]);
});
