import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SvcEvent } from '../events/event';
import { DeliverySender, type Attempt } from './delivery-sender';

/**
 * What the sender does with a webhook URL's credentials and with refused names: credentials go out
 * as Authorization: Basic; credentials that cannot be decoded fail the attempt (never the send);
 * a refusal names the class of the address a name resolves to, never the address.
 */
const event: SvcEvent = { id: '0123456789abcdef01234567', type: 'game.user.banned', gameId: '0190a0b0-0000-7000-8000-000000000001', occurredAt: '2026-01-01T00:00:00.000Z' };
const attempt = (url: string): Attempt => ({ deliveryId: '0190a0b0-0000-7000-8000-000000000003', url, format: 'svc', secret: 'sender-secret-0123456', previousSecret: null, event });

let server: Server;
let port: number;
const received: IncomingHttpHeaders[] = [];
const senders: DeliverySender[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    received.push(req.headers);
    req.resume();
    req.on('end', () => res.writeHead(204).end());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
afterEach(() => {
  received.length = 0;
  for (const s of senders.splice(0)) s.onApplicationShutdown();
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

function sender(allowPrivateHosts: boolean, answer: string): DeliverySender {
  const s = new DeliverySender(allowPrivateHosts, async () => [{ address: answer, family: 4 }], () => new Set());
  senders.push(s);
  return s;
}

const basic = (userinfo: string) => `Basic ${Buffer.from(userinfo).toString('base64')}`;

describe('DeliverySender: credentials in the URL', () => {
  it.each([
    ['hook-user:pa55word', 'hook-user:pa55word'],
    ['hook-user', 'hook-user:'],
    ['us%40er:p%3Aw%2F', 'us@er:p:w/'],
  ])('%s arrives as Authorization: Basic of %s', async (userinfo, decoded) => {
    const result = await sender(true, '127.0.0.1').send(attempt(`http://${userinfo}@127.0.0.1:${port}/hook`));
    expect(result).toMatchObject({ outcome: { kind: 'delivered' }, status: 204 });
    expect(received.map((h) => h.authorization)).toEqual([basic(decoded)]);
  });

  it('without credentials, no Authorization header', async () => {
    await sender(true, '127.0.0.1').send(attempt(`http://127.0.0.1:${port}/hook`));
    expect(received).toHaveLength(1);
    expect(received[0].authorization).toBeUndefined();
  });

  it('credentials that are not valid percent-encoding fail the attempt, to be retried; the send resolves', async () => {
    const result = await sender(true, '127.0.0.1').send(attempt(`http://%ff:s3cret@127.0.0.1:${port}/hook`));
    expect(result).toMatchObject({ outcome: { kind: 'retry', reason: 'network error: invalid request' }, status: null });
    expect(received).toHaveLength(0);
  });
});

describe('DeliverySender: refused names', () => {
  it('refuses a name that resolves to a private address, naming the class and not the address', async () => {
    const result = await sender(false, '10.20.30.40').send(attempt(`http://user:s3cret@hooks.internal.test:${port}/hook`), 2_000);
    expect(result).toMatchObject({ status: null, outcome: { kind: 'retry', reason: 'refused: hooks.internal.test resolves to a private-network address' } });
    expect(JSON.stringify(result)).not.toMatch(/10\.20\.30\.40|s3cret/);
    expect(received).toHaveLength(0);
  });

  it('with private hosts allowed, the same name is delivered to, at the address it resolves to', async () => {
    const result = await sender(true, '127.0.0.1').send(attempt(`http://hooks.internal.test:${port}/hook`));
    expect(result).toMatchObject({ outcome: { kind: 'delivered' }, status: 204 });
    expect(received.map((h) => h.host)).toEqual([`hooks.internal.test:${port}`]);
  });
});
