import { Client } from 'pg';
import { UnitOfWork } from '../../src/db/unit-of-work';
import { identityOf } from '../helpers/identities';
import { newGame, startTestApp, type TestApp } from '../helpers/test-app';
import { postGroup } from '../helpers/groups';

/**
 * The flush's statement holds only the parts a write has (src/db/flush-sql.ts). Every combination of
 * the five things a write stages is written once, together and whole: an audit entry sharing its row
 * with an event, an audit entry of its own, an event of its own, a player's notification and a NOTIFY.
 */
describe('the flush, for every shape of write', () => {
  let t: TestApp;
  let uow: UnitOfWork;
  let gameId: string;
  let groupId: string;
  let recipient: string;
  let listener: Client;
  const heard: string[] = [];
  beforeAll(async () => {
    t = await startTestApp({ WEBHOOK_WORKER_ENABLED: 'false' });
    uow = t.app.get(UnitOfWork);
    const game = await newGame(t);
    gameId = game.gameId;
    const auth = { authorization: `Bearer ${game.key}` };
    groupId = (await postGroup(t, auth, { kind: 'guild', name: 'shapes', visibility: 'public' })).id;
    await t.http.post(`/v1/groups/${groupId}/join`).set(auth).send({ userId: 'shape-recipient' }).expect(201);
    recipient = (await identityOf(t, gameId, 'shape-recipient')) as string;
    listener = new Client({ connectionString: t.db.url });
    await listener.connect();
    listener.on('notification', (n) => heard.push(n.payload ?? ''));
    await listener.query('LISTEN svc_flush_shapes');
  });
  afterAll(async () => {
    await listener.end();
    await t.close();
  });

  const PARTS = ['paired', 'auditAlone', 'eventAlone', 'notification', 'notify'] as const;
  const shapes = Array.from({ length: 2 ** PARTS.length - 1 }, (_, i) => PARTS.filter((_, b) => (i + 1) & (1 << b)));

  it.each(shapes.map((s) => [s.join(' + '), s]))('%s', async (_name, shape) => {
    const has = (part: (typeof PARTS)[number]) => (shape as string[]).includes(part);
    const mark = `shape-${(shape as string[]).join('-')}`;
    const staged = await uow.run(async (tx) => {
      if (has('paired')) tx.audit({ gameId, groupId, action: 'member.updated', targetId: mark, payload: { paired: true } });
      const paired = has('paired') ? tx.emit({ type: 'member.updated', gameId, groupId, data: { mark } }) : null;
      if (has('auditAlone')) tx.audit({ gameId, action: 'webhook.created', targetId: `${mark}-alone`, payload: { alone: true } });
      const alone = has('eventAlone') ? tx.emit({ type: 'group.updated', gameId, groupId, data: { changes: [mark] } }) : null;
      if (has('notification')) tx.notifyPlayer({ gameId, svcUserId: recipient, kind: 'member.roles_changed', groupId, data: { mark } });
      if (has('notify')) tx.notify('svc_flush_shapes', mark);
      return { paired, alone };
    });

    const rows = await t.db.query<{ id: string; action: string | null; type: string | null; target_id: string | null; payload: unknown }>(
      `SELECT id::text, action, type, target_id, payload FROM journal WHERE game_id = $1 AND (target_id IN ($2, $3) OR body::text LIKE $4) ORDER BY id`,
      [gameId, mark, `${mark}-alone`, `%"${mark}"%`],
    );
    const expected: object[] = [];
    if (staged.paired) expected.push({ action: 'member.updated', type: 'member.updated', target_id: mark, payload: { paired: true } });
    if (has('auditAlone')) expected.push({ action: 'webhook.created', type: null, target_id: `${mark}-alone`, payload: { alone: true } });
    if (staged.alone) expected.push({ action: null, type: 'group.updated', target_id: null, payload: null });
    expect(rows).toHaveLength(expected.length);
    for (const row of expected) expect(rows).toContainEqual(expect.objectContaining(row));
    if (staged.paired) expect(rows.find((r) => r.type === 'member.updated')?.id.replace(/-/g, '').slice(0, 24)).toBe(staged.paired.id);

    const notified = await t.db.query(`SELECT 1 FROM notifications WHERE user_id = $1 AND data->>'mark' = $2`, [recipient, mark]);
    expect(notified).toHaveLength(has('notification') ? 1 : 0);
    if (has('notify')) await waitFor(() => heard.includes(mark));
    else expect(heard).not.toContain(mark);
  });

  const waitFor = async (done: () => boolean) => {
    const until = Date.now() + 5_000;
    while (!done()) {
      if (Date.now() > until) throw new Error('not heard in 5 s');
      await new Promise((r) => setTimeout(r, 20));
    }
  };
});
