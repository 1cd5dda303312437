import { DeliveryWorker } from '../../src/webhooks/delivery-worker';
import { PastLeaseRepository } from '../../src/webhooks/past-lease.repository';
import { PositionsRepository } from '../../src/webhooks/positions.repository';
import { WebhooksRepository } from '../../src/webhooks/webhooks.repository';
import { tickPastHorizon } from '../helpers/delivery-ticks';
import { postGroup } from '../helpers/groups';
import { authedGame, startTestApp, type TestApp } from '../helpers/test-app';
import { recordingReceiver, type RecordingReceiver } from '../helpers/webhook-receiver';

/**
 * A worker with nothing in flight claims only while some endpoint is enabled. Each claim reads
 * enabled endpoints alone and is planned on every call (10-28 ms of PostgreSQL CPU a tick under
 * load), so with none enabled a tick is one look at the endpoints. What an endpoint is owed waits
 * as before: enabled again, it is sent by the next tick.
 */
let t: TestApp;
let rx: RecordingReceiver;
beforeAll(async () => {
  t = await startTestApp({ WEBHOOK_ALLOW_PRIVATE_HOSTS: 'true', WEBHOOK_WORKER_ENABLED: 'false' });
  rx = await recordingReceiver();
});
afterAll(async () => {
  await rx?.close();
  await t?.close();
});

it('claims nothing while no endpoint is enabled, and claims and sends again once one is', async () => {
  const spies = [jest.spyOn(t.app.get(WebhooksRepository), 'claimDue'), jest.spyOn(t.app.get(PositionsRepository), 'claim'), jest.spyOn(t.app.get(PastLeaseRepository), 'claim')];
  const claims = () => spies.map((s) => s.mock.calls.length);
  const { auth } = await authedGame(t);

  // No endpoint at all.
  await tickPastHorizon(t.app);
  expect(claims()).toEqual([0, 0, 0]);

  // One endpoint, disabled before anything it is owed: still nothing to claim.
  const hook = await t.http.post('/v1/webhooks').set(auth).send({ url: rx.url, events: ['group.created'] });
  expect(hook.status).toBe(201);
  const owed = await postGroup<{ id: string }>(t, auth, { kind: 'guild', name: 'Owed', visibility: 'public' });
  expect((await t.http.patch(`/v1/webhooks/${hook.body.id}`).set(auth).send({ disabled: true })).status).toBe(200);
  await tickPastHorizon(t.app);
  expect(claims()).toEqual([0, 0, 0]);
  expect(rx.received).toHaveLength(0);

  // Enabled again: the next tick claims, and sends what was owed before the endpoint was disabled.
  expect((await t.http.patch(`/v1/webhooks/${hook.body.id}`).set(auth).send({ disabled: false })).status).toBe(200);
  await tickPastHorizon(t.app);
  expect(claims()[0]).toBeGreaterThan(0);
  expect(claims()[1]).toBeGreaterThan(0);
  expect(rx.received.map((r) => r.body.type)).toEqual(['group.created']);
  expect(rx.received[0].raw).toContain(owed.id);
  // The tick counted as a sign of life whichever way it went.
  expect(t.app.get(DeliveryWorker).health()).toEqual({ ok: true });
});
