import { randomBytes } from 'node:crypto';
import type { LookupAddress } from 'node:dns';
import { readFileSync, writeFileSync } from 'node:fs';
import { isIPv6, type AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import { createServer as createTlsServer } from 'node:tls';
import type { SvcEvent } from '../../src/events/event';
import { DeliverySender } from '../../src/webhooks/delivery-sender';
import { HostAddresses } from '../../src/webhooks/host-addresses';
import { HostResolver } from '../../src/webhooks/host-resolver';
import { authedGame, startTestApp, type TestApp } from '../helpers/test-app';
import { recordingReceiver, type RecordingReceiver } from '../helpers/webhook-receiver';
import { tickPastHorizon } from '../helpers/delivery-ticks';

/**
 * The address checks (docs/webhooks.md "Private networks", DECISIONS §25): a webhook whose host
 * is, or resolves to, an internal address or one of this server's is not delivered to unless
 * private hosts are allowed; a refusal at delivery is an attempt in the delivery log, retried on
 * the usual schedule, that names the class of the address and never the address. NAME is a name
 * of this test's own that resolves to 127.0.0.1: a line in /etc/hosts when the file can be
 * written (the real dns.lookup path), otherwise the resolver provider answers for it. The other
 * names are answered by the resolver provider.
 */
const NAME = `ssrf-${randomBytes(6).toString('hex')}.guildhall.test`;
const tag = randomBytes(4).toString('hex');
/** A public address this test lends the server (through HostAddresses); nothing connects to it. */
const LENT = '93.184.215.14';
/** This machine's non-loopback addresses, as the interfaces list them. */
const EXTERNAL = Object.values(networkInterfaces())
  .flatMap((list) => list ?? [])
  .filter((i) => !i.internal)
  .map((i) => i.address);
const ANSWERS: Record<string, string> = {
  [`private-${tag}.guildhall.test`]: '10.20.30.40',
  [`lent-${tag}.guildhall.test`]: LENT,
  ...(EXTERNAL[0] ? { [`self-${tag}.guildhall.test`]: EXTERNAL[0] } : {}),
};
const HOSTS = '/etc/hosts';
let hostsAdded: string | null = null;

/** Appends the name to /etc/hosts; false when the file cannot be written (not root). */
function addHostsLine(): boolean {
  try {
    const text = readFileSync(HOSTS, 'utf8');
    const added = `${text.endsWith('\n') || text === '' ? '' : '\n'}127.0.0.1 ${NAME}\n`;
    writeFileSync(HOSTS, added, { flag: 'a' });
    hostsAdded = added;
    return true;
  } catch (err) {
    if (['EACCES', 'EPERM', 'EROFS'].includes((err as NodeJS.ErrnoException).code ?? '')) return false;
    throw err;
  }
}

/** Takes out exactly what addHostsLine appended, and nothing else. */
function removeHostsLine(): void {
  if (hostsAdded === null) return;
  const text = readFileSync(HOSTS, 'utf8');
  const at = text.lastIndexOf(hostsAdded);
  if (at >= 0) writeFileSync(HOSTS, text.slice(0, at) + text.slice(at + hostsAdded.length));
  hostsAdded = null;
}

/** The resolver of `app` answers for the names of `answers`, and as before for any other name. */
function answerFor(app: TestApp, answers: Record<string, string>): void {
  const resolver = app.app.get(HostResolver);
  const real = resolver.lookup.bind(resolver);
  jest.spyOn(resolver, 'lookup').mockImplementation(async (host, options) => {
    const address = answers[host];
    return address ? [{ address, family: isIPv6(address) ? 6 : 4 } satisfies LookupAddress] : real(host, options);
  });
}

const lent: jest.SpyInstance[] = [];

/** This server's addresses as `app` reads them, with LENT among them, until the test ends. */
function lendAddress(app: TestApp): void {
  const own = app.app.get(HostAddresses);
  const real = own.current.bind(own);
  lent.push(jest.spyOn(own, 'current').mockImplementation(() => new Set([...real(), LENT])));
}

let strict: TestApp;
let open: TestApp;
const receivers: RecordingReceiver[] = [];

beforeAll(async () => {
  strict = await startTestApp({ WEBHOOK_ALLOW_PRIVATE_HOSTS: 'false', WEBHOOK_WORKER_ENABLED: 'false' });
  open = await startTestApp({ WEBHOOK_ALLOW_PRIVATE_HOSTS: 'true', WEBHOOK_WORKER_ENABLED: 'false' }, strict.db);
  const answers = addHostsLine() ? ANSWERS : { ...ANSWERS, [NAME]: '127.0.0.1' };
  for (const app of [strict, open]) answerFor(app, answers);
});
afterEach(async () => {
  for (const spy of lent.splice(0)) spy.mockRestore();
  await strict.db.query('DELETE FROM webhook_deliveries');
  await strict.db.query('DELETE FROM webhook_endpoints');
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});
afterAll(async () => {
  removeHostsLine();
  await open?.close();
  await strict?.close();
});

async function receiver(): Promise<RecordingReceiver> {
  const rx = await recordingReceiver();
  receivers.push(rx);
  return rx;
}

/** A game on `app` with an endpoint at `url` and one event queued for it. */
async function queued(app: TestApp, url: string): Promise<{ auth: Record<string, string>; endpointId: string }> {
  const { auth } = await authedGame(app);
  const h = await app.http.post('/v1/webhooks').set(auth).send({ url });
  expect(h.status).toBe(201);
  expect((await app.http.post('/v1/bans').set(auth).send({ userId: `banned-${randomBytes(4).toString('hex')}` })).status).toBe(201);
  return { auth, endpointId: h.body.id };
}

async function logged(app: TestApp, auth: Record<string, string>, endpointId: string) {
  return (await logTexts(app, auth, endpointId)).detail;
}

/** The delivery log as the game reads it: the list and the one delivery's detail, parsed and as sent. */
async function logTexts(app: TestApp, auth: Record<string, string>, endpointId: string) {
  const list = await app.http.get(`/v1/webhooks/${endpointId}/deliveries`).set(auth);
  expect(list.status).toBe(200);
  expect(list.body.items).toHaveLength(1);
  const detail = await app.http.get(`/v1/webhooks/${endpointId}/deliveries/${list.body.items[0].id}`).set(auth);
  expect(detail.status).toBe(200);
  return { detail: detail.body, text: `${list.text}\n${detail.text}` };
}

const makeDue = (endpointId: string) =>
  strict.db.query(`UPDATE webhook_deliveries SET next_attempt_at = now(), lease_until = NULL WHERE endpoint_id = $1 AND status = 'pending'`, [endpointId]);

const waitMs = (d: { nextAttemptAt: string; lastAttemptAt: string }) => Date.parse(d.nextAttemptAt) - Date.parse(d.lastAttemptAt);

it('the test name resolves to 127.0.0.1 through the resolver delivery uses', async () => {
  for (const app of [strict, open]) {
    expect((await app.app.get(HostResolver).lookup(NAME)).map((a) => a.address)).toContain('127.0.0.1');
  }
});

it('a host that resolves to 127.0.0.1 is registered (the registration check reads the URL), then refused at delivery and logged', async () => {
  const rx = await receiver();
  const { auth, endpointId } = await queued(strict, `http://${NAME}:${rx.port}/hook`);
  await tickPastHorizon(strict.app);
  expect(rx.received).toHaveLength(0);
  const refusal = `refused: ${NAME} resolves to a loopback address`;
  const { detail: first, text } = await logTexts(strict, auth, endpointId);
  expect(text).not.toContain('127.0.0.1');
  expect(first).toMatchObject({ status: 'pending', attempts: 1, lastStatusCode: null, lastError: refusal });
  expect(first.attemptLog).toEqual([{ number: 1, at: first.lastAttemptAt, statusCode: null, error: refusal, durationMs: expect.any(Number) }]);
  // Retried as a connection error is: 1 minute, then 5 (SPEC §6).
  expect(Math.abs(waitMs(first) - 60_000)).toBeLessThan(5_000);

  await makeDue(endpointId);
  await tickPastHorizon(strict.app);
  expect(rx.received).toHaveLength(0);
  const second = await logged(strict, auth, endpointId);
  expect(second).toMatchObject({ status: 'pending', attempts: 2, lastError: refusal });
  expect(second.attemptLog.map((a: { error: string }) => a.error)).toEqual([refusal, refusal]);
  expect(Math.abs(waitMs(second) - 5 * 60_000)).toBeLessThan(5_000);
});

it('with private hosts allowed, the same host is delivered to, under its own name', async () => {
  const rx = await receiver();
  const { auth, endpointId } = await queued(open, `http://${NAME}:${rx.port}/hook`);
  await tickPastHorizon(open.app);
  expect(rx.received).toHaveLength(1);
  expect(rx.received[0].headers.host).toBe(`${NAME}:${rx.port}`);
  expect(await logged(open, auth, endpointId)).toMatchObject({ status: 'delivered', attempts: 1, lastStatusCode: 200, lastError: null });
});

it('an address written in the URL is judged once, at registration: an instance that does not allow private hosts still delivers to it', async () => {
  // Instances of one database may be configured apart (a worker-only instance, say): the endpoint
  // was accepted under the registering instance's rule. Names are what delivery re-checks.
  const rx = await receiver();
  const { auth, endpointId } = await queued(open, rx.url);
  await tickPastHorizon(strict.app);
  expect(rx.received).toHaveLength(1);
  expect(await logged(open, auth, endpointId)).toMatchObject({ status: 'delivered', attempts: 1, lastError: null });
});

it('https: the connection goes to the checked address, the TLS servername stays the host name', async () => {
  const servernames: string[] = [];
  // No certificate: the handshake ends once the ClientHello has shown its servername.
  const tls = createTlsServer({ SNICallback: (name, cb) => (servernames.push(name), cb(new Error('no certificate here'), undefined)) });
  tls.on('tlsClientError', () => undefined);
  await new Promise<void>((r) => tls.listen(0, '127.0.0.1', r));
  try {
    const url = `https://${NAME}:${(tls.address() as AddressInfo).port}/hook`;
    const event: SvcEvent = { id: '0123456789abcdef01234567', type: 'game.user.banned', gameId: '0190a0b0-0000-7000-8000-000000000001', occurredAt: new Date().toISOString() };
    const attempt = { deliveryId: '0190a0b0-0000-7000-8000-000000000003', url, format: 'svc' as const, secret: 'tls-secret-0123456', previousSecret: null, event };

    const refused = await strict.app.get(DeliverySender).send(attempt, 2_000);
    expect(refused).toMatchObject({ status: null, outcome: { kind: 'retry', reason: `refused: ${NAME} resolves to a loopback address` } });
    expect(servernames).toEqual([]);

    const sent = await open.app.get(DeliverySender).send(attempt, 2_000);
    expect(sent).toMatchObject({ status: null, outcome: { kind: 'retry', reason: expect.stringContaining('network error') } });
    expect(servernames).toEqual([NAME]);
  } finally {
    await new Promise<void>((r) => tls.close(() => r()));
  }
});

describe("names that resolve to an internal address or one of this server's: refused at delivery, the address never told", () => {
  const cases: [string, string, string][] = [
    ['a private address', `private-${tag}.guildhall.test`, 'a private-network address'],
    ["an address the server has (one lent it through HostAddresses, which the ranges let through)", `lent-${tag}.guildhall.test`, 'an address of this server'],
  ];
  if (EXTERNAL[0]) cases.push(["this machine's own non-loopback address", `self-${tag}.guildhall.test`, '']);

  it.each(cases)('%s', async (_what, name, label) => {
    lendAddress(strict);
    const rx = await receiver();
    const { auth, endpointId } = await queued(strict, `http://${name}:${rx.port}/hook`);
    await tickPastHorizon(strict.app);
    expect(rx.received).toHaveLength(0);
    const { detail, text } = await logTexts(strict, auth, endpointId);
    expect(detail).toMatchObject({ status: 'pending', attempts: 1, lastStatusCode: null });
    // This machine's own address may lie in a refused range too (a documentation one, here): that class names it.
    if (label) expect(detail.lastError).toBe(`refused: ${name} resolves to ${label}`);
    else expect(detail.lastError).toMatch(new RegExp(`^refused: ${name.replace(/\./g, '\\.')} resolves to an? [a-z -]+ address$`));
    expect(detail.attemptLog.map((a: { error: string }) => a.error)).toEqual([detail.lastError]);
    expect(text).not.toContain(ANSWERS[name]);
  });
});

describe("registration refuses this server's own addresses", () => {
  it("each non-loopback address of this machine's interfaces, read from os.networkInterfaces(), is 400 naming the url", async () => {
    // A machine with no interface but loopback (some sandboxes) has nothing to check here; this one has eth0.
    const { auth } = await authedGame(strict);
    for (const address of EXTERNAL) {
      const url = isIPv6(address) ? `http://[${address.replace(/%.*/, '')}]:8787/hook` : `http://${address}:8787/hook`;
      const r = await strict.http.post('/v1/webhooks').set(auth).send({ url });
      expect([url, r.status, r.body.code]).toEqual([url, 400, 'bad_request']);
      expect(r.body.message).toMatch(/^url points at an? [a-z -]+ address, which webhooks may not reach$/);
    }
    expect((await strict.http.get('/v1/webhooks').set(auth)).body.items).toEqual([]);
  });

  it('an address the server has, and no range refuses, is 400 as "an address of this server", written in any form; allowed with private hosts on', async () => {
    lendAddress(strict);
    lendAddress(open);
    const { auth } = await authedGame(strict);
    for (const url of [`http://${LENT}/hook`, 'http://1572394766/hook', `http://[::ffff:${LENT}]/hook`, 'http://[2002:5db8:d70e::1]/hook']) {
      const r = await strict.http.post('/v1/webhooks').set(auth).send({ url });
      expect([url, r.status, r.body.message]).toEqual([url, 400, 'url points at an address of this server, which webhooks may not reach']);
    }
    const { auth: openAuth } = await authedGame(open);
    expect((await open.http.post('/v1/webhooks').set(openAuth).send({ url: `http://${LENT}/hook` })).status).toBe(201);
  });
});
