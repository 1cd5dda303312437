import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import type { SvcEvent } from '../events/event';
import { buildRequest } from './delivery-sender';
import { standardSecret } from './signature';
import { standardHeaders, svcHeaders } from './signed-headers';

/**
 * The signing headers of one attempt. Expected svc values are computed here with node:crypto;
 * standard ones are checked with the official `standardwebhooks` package, as a receiver would.
 */
const event: SvcEvent = { id: '0123456789abcdef01234567', type: 'member.joined', gameId: '0190a0b0-0000-7000-8000-000000000001', groupId: 'g', occurredAt: '2026-01-01T00:00:00.000Z' };
const body = JSON.stringify(event);
const NEW = 'the-new-secret-0123456789';
const OLD = 'the-old-secret-0123456789';
const hexSig = (secret: string, ts: string) => `v1=${createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${ts}.${body}`).digest('hex')}`;

describe('svcHeaders', () => {
  it('without a previous secret: exactly the SPEC §6 headers, in order, as before rotation existed', () => {
    const now = new Date('2026-01-01T00:00:01.234Z');
    const sut = svcHeaders({ secret: NEW, previousSecret: null }, 'delivery-1', event, body, now);
    expect(Object.entries(sut)).toEqual([
      ['x-svc-event', 'member.joined'],
      ['x-svc-event-id', event.id],
      ['x-svc-delivery-id', 'delivery-1'],
      ['x-svc-timestamp', '2026-01-01T00:00:01.234Z'],
      ['x-svc-signature', hexSig(NEW, '2026-01-01T00:00:01.234Z')],
    ]);
  });

  it('during a grace period: the current secret signs x-svc-signature, the replaced one x-svc-signature-previous, same timestamp', () => {
    const now = new Date('2026-01-01T00:00:01.234Z');
    const sut = svcHeaders({ secret: NEW, previousSecret: OLD }, 'delivery-1', event, body, now);
    expect(sut['x-svc-signature']).toBe(hexSig(NEW, sut['x-svc-timestamp']));
    expect(sut['x-svc-signature-previous']).toBe(hexSig(OLD, sut['x-svc-timestamp']));
  });
});

describe('standardHeaders', () => {
  const verifies = (secret: string, headers: Record<string, string>) => {
    try {
      new Webhook(standardSecret(secret)).verify(body, headers);
      return true;
    } catch {
      return false;
    }
  };

  it('webhook-id is the event id, webhook-timestamp whole seconds, one v1 signature a standard library accepts', () => {
    const now = new Date();
    const sut = standardHeaders({ secret: NEW, previousSecret: null }, event, body, now);
    expect(sut['webhook-id']).toBe(event.id);
    expect(sut['webhook-timestamp']).toBe(String(Math.floor(now.getTime() / 1000)));
    expect(sut['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(verifies(NEW, sut)).toBe(true);
    expect(verifies(OLD, sut)).toBe(false);
  });

  it('during a grace period: two space-separated signatures, the current secret first; either secret verifies', () => {
    const sut = standardHeaders({ secret: NEW, previousSecret: OLD }, event, body, new Date());
    const [first, second, ...rest] = sut['webhook-signature'].split(' ');
    expect(rest).toEqual([]);
    expect(sut['webhook-signature']).toBe(`${first} ${second}`);
    expect(first).toBe(standardHeaders({ secret: NEW, previousSecret: null }, event, body, new Date(Number(sut['webhook-timestamp']) * 1000))['webhook-signature']);
    expect(verifies(NEW, sut) && verifies(OLD, sut)).toBe(true);
    expect(verifies('some-other-secret-0123', sut)).toBe(false);
  });
});

describe('buildRequest', () => {
  const attempt = { deliveryId: 'delivery-1', url: 'https://example.com/h', secret: NEW, previousSecret: OLD, event };
  const now = new Date();

  it('svc and standard are signed with their own headers only', () => {
    const svc = buildRequest({ ...attempt, format: 'svc' }, now).headers;
    expect(Object.keys(svc).filter((k) => k.startsWith('webhook-'))).toEqual([]);
    expect(svc['x-svc-signature-previous']).toBeDefined();
    const standard = buildRequest({ ...attempt, format: 'standard' }, now);
    expect(Object.keys(standard.headers).filter((k) => k.startsWith('x-svc-'))).toEqual([]);
    expect(standard.body).toBe(body);
    expect(standard.headers['content-type']).toBe('application/json');
  });

  it.each(['discord', 'slack'] as const)('%s carries no signature, rotation or not', (format) => {
    const { headers } = buildRequest({ ...attempt, format }, now);
    expect(Object.keys(headers).sort()).toEqual(['content-type', 'user-agent']);
  });
});
