import { CLAIM_GAP_MS } from '../../src/webhooks/delivery-worker';
import { WebhooksRepository } from '../../src/webhooks/webhooks.repository';
import { postGroup, postJoin } from '../helpers/groups';
import { authedGame, startTestApp, type TestApp } from '../helpers/test-app';
import { recordingReceiver, type RecordingReceiver } from '../helpers/webhook-receiver';

/**
 * Under load every commit wakes the worker and every finished send frees a slot; the worker still
 * starts its claims at least CLAIM_GAP_MS apart, each taking what came meanwhile, and every event
 * arrives once.
 */
let t: TestApp;
let rx: RecordingReceiver;
beforeAll(async () => {
  t = await startTestApp({ WEBHOOK_ALLOW_PRIVATE_HOSTS: 'true', WEBHOOK_WORKER_ENABLED: 'true', DATABASE_POOL_MAX: '12' });
  rx = await recordingReceiver();
});
afterAll(async () => {
  await rx?.close();
  await t?.close();
});

const JOINS = 300;
const CLIENTS = 24;

it('starts claims at least the gap apart while joins wake it, and delivers every join once', async () => {
  const { auth } = await authedGame(t);
  const hook = await t.http.post('/v1/webhooks').set(auth).send({ url: rx.url, events: ['member.joined'] });
  expect(hook.status).toBe(201);
  const group = await postGroup<{ id: string }>(t, auth, { kind: 'guild', name: 'Busy', visibility: 'public' });

  // When each claim began: its first call, made with nothing awaited since the worker took the
  // time. A claim with nothing in flight looks at the endpoints first; then, with one enabled, every
  // claim reads the retried rows.
  const claims: number[] = [];
  const repo = t.app.get(WebhooksRepository);
  let looked: number | null = null;
  const anyEndpointEnabled = repo.anyEndpointEnabled.bind(repo);
  const claimDue = repo.claimDue.bind(repo);
  const spies = [
    jest.spyOn(repo, 'anyEndpointEnabled').mockImplementation((...args) => {
      looked = Date.now();
      return anyEndpointEnabled(...args);
    }),
    jest.spyOn(repo, 'claimDue').mockImplementation((...args) => {
      claims.push(looked ?? Date.now());
      looked = null;
      return claimDue(...args);
    }),
  ];

  let next = 0;
  const client = async () => {
    while (next < JOINS) {
      const r = await postJoin(t, auth, group.id, { userId: `player-${next++}` });
      expect(r.status).toBe(201);
    }
  };
  await Promise.all(Array.from({ length: CLIENTS }, client));

  const deadline = Date.now() + 30_000;
  while (rx.received.length < JOINS && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  for (const spy of spies) spy.mockRestore();

  const ids = rx.received.map((r) => r.body.id);
  expect(new Set(ids).size).toBe(ids.length);
  expect(rx.received.map((r) => r.body.type)).toEqual(Array(JOINS).fill('member.joined'));

  // The load asked for far more claims than the gap lets through: without it, the claims came a
  // few milliseconds apart. The gaps' sum telescopes, so a start taken late counts only at the two
  // ends; the clock's milliseconds are whole.
  expect(claims.length).toBeGreaterThanOrEqual(5);
  const span = claims[claims.length - 1] - claims[0];
  expect(span).toBeGreaterThanOrEqual(CLAIM_GAP_MS * (claims.length - 1) - 2);
});
