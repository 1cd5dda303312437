import { Client, type Notification } from 'pg';
import { CommitAnnouncer } from '../../src/db/commit-announcer';
import { UnitOfWork } from '../../src/db/unit-of-work';
import { EVENTS_CHANNEL } from '../../src/events/event-notification';
import { newGame, startTestApp, type TestApp } from '../helpers/test-app';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The wake-ups of other instances' readers (events, deliveries) are sent after the writes commit,
 * gathered, outside their transactions: PostgreSQL serialises the commits of transactions that
 * NOTIFY, so a write that announced itself could share no WAL flush with another.
 */
describe('commit announcements', () => {
  let t: TestApp;
  let listener: Client;
  const heard: Notification[] = [];
  beforeAll(async () => {
    t = await startTestApp();
    listener = new Client({ connectionString: t.db.url });
    await listener.connect();
    await listener.query(`LISTEN ${EVENTS_CHANNEL}`);
    await listener.query('LISTEN svc_test_announce');
    listener.on('notification', (n) => heard.push(n));
  });
  afterAll(async () => {
    await listener.end();
    await t.close();
  });
  const heardOf = (channel: string, payload?: string) => heard.filter((n) => n.channel === channel && (payload === undefined || n.payload === payload));
  const until = async (cond: () => boolean, ms = 5_000) => {
    for (const end = Date.now() + ms; !cond() && Date.now() < end; ) await sleep(10);
  };

  it('a write is announced once it has committed, never when it rolls back', async () => {
    const uow = t.app.get(UnitOfWork);
    const [{ gameId: a }, { gameId: b }] = [await newGame(t), await newGame(t)];
    await uow.run(async (tx) => {
      for (const gameId of [a, a, b]) tx.emit({ type: 'game.user.banned', gameId, data: { svcUserId: 'u1' } });
      await tx.manager.query('SELECT 1');
    });
    await until(() => heardOf(EVENTS_CHANNEL, a).length > 0 && heardOf(EVENTS_CHANNEL, b).length > 0);
    expect(heardOf(EVENTS_CHANNEL, a)).toHaveLength(1);
    expect(heardOf(EVENTS_CHANNEL, b)).toHaveLength(1);

    const { gameId: c } = await newGame(t);
    await uow
      .run(async (tx) => {
        tx.emit({ type: 'game.user.banned', gameId: c, data: { svcUserId: 'u1' } });
        await tx.manager.query('SELECT 1/0');
      })
      .catch(() => undefined);
    await sleep(200);
    expect(heardOf(EVENTS_CHANNEL, c)).toEqual([]);
  });

  it('the commits of many concurrent writes to one game wake its readers fewer times than they commit', async () => {
    const uow = t.app.get(UnitOfWork);
    const { gameId } = await newGame(t);
    const writes = 40;
    await Promise.all(
      Array.from({ length: writes }, (_, i) =>
        uow.run(async (tx) => {
          await tx.manager.query('SELECT pg_sleep($1)', [(i % 5) / 1000]);
          tx.emit({ type: 'game.user.banned', gameId, data: { svcUserId: `u${i}` } });
        }),
      ),
    );
    await until(() => heardOf(EVENTS_CHANNEL, gameId).length > 0);
    await sleep(200);
    // One NOTIFY a transaction would be 40: Postgres folds equal notifications of one transaction only.
    expect(heardOf(EVENTS_CHANNEL, gameId).length).toBeGreaterThanOrEqual(1);
    expect(heardOf(EVENTS_CHANNEL, gameId).length).toBeLessThan(writes);
  });

  it('announcements made together go in one transaction, each channel and payload once', async () => {
    const announcer = t.app.get(CommitAnnouncer);
    announcer.announce('svc_test_announce', ['one', 'two']);
    announcer.announce('svc_test_announce', ['two', "it's"]);
    await until(() => heardOf('svc_test_announce').length >= 3);
    await sleep(100);
    const got = heardOf('svc_test_announce');
    expect(got.map((n) => n.payload).sort()).toEqual(["it's", 'one', 'two']);
    expect(new Set(got.map((n) => n.processId)).size).toBe(1);
  });

  it('an instance shutting down sends what it has still to announce before its pool closes', async () => {
    const other = await startTestApp({}, t.db);
    other.app.get(CommitAnnouncer).announce('svc_test_announce', ['last words']);
    await other.close();
    await until(() => heardOf('svc_test_announce', 'last words').length > 0);
    expect(heardOf('svc_test_announce', 'last words')).toHaveLength(1);
  });

  it('refuses a channel name that is not an identifier', () => {
    expect(() => t.app.get(CommitAnnouncer).announce("svc'; DROP TABLE games; --", ['x'])).toThrow(/invalid channel name/);
  });
});
