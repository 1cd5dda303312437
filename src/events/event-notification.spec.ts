import type { SvcEvent } from './event';
import { decodeEventNotification, encodeEventNotification, EVENTS_CHANNEL } from './event-notification';

const ORIGIN = '7d7f6a52-3c1e-4f0b-9b8a-2f4e1d0c9a11';

/**
 * Group events cross instances as a Postgres NOTIFY, whose payload must stay under 8000 bytes: a
 * small event travels inline, a larger one by reference to its outbox row.
 */
const NOTIFY_LIMIT_BYTES = 8000;

const event = (extra: Record<string, unknown> = {}): SvcEvent => ({
  id: '0123456789abcdef01234567',
  type: 'group.updated',
  gameId: '0190a0b0-0000-7000-8000-000000000001',
  groupId: '0190a0b0-0000-7000-8000-000000000002',
  occurredAt: '2026-01-02T03:04:05.678Z',
  ...extra,
});

describe('encodeEventNotification / decodeEventNotification', () => {
  it('a small event travels inline and decodes to the same event and origin', () => {
    const e = event({ group: { name: 'Knights', metadata: { motto: 'Ni!' } } });
    const payload = encodeEventNotification(e, 'instance-a');
    expect(Buffer.byteLength(payload, 'utf8')).toBeLessThan(NOTIFY_LIMIT_BYTES);
    expect(decodeEventNotification(payload)).toEqual({ origin: 'instance-a', event: e });
  });

  it('an event above the size limit travels by reference to its id', () => {
    const e = event({ group: { metadata: { blob: 'x'.repeat(9000) } } });
    const payload = encodeEventNotification(e, 'instance-a');
    expect(Buffer.byteLength(payload, 'utf8')).toBeLessThan(NOTIFY_LIMIT_BYTES);
    expect(payload).not.toContain('xxxx');
    expect(decodeEventNotification(payload)).toEqual({ origin: 'instance-a', ref: e.id });
  });

  it('measures bytes, not characters: 3000 three-byte characters go by reference', () => {
    const e = event({ note: '€'.repeat(3000) }); // 3000 chars, 9000 UTF-8 bytes
    const payload = encodeEventNotification(e, 'o');
    expect(Buffer.byteLength(payload, 'utf8')).toBeLessThan(NOTIFY_LIMIT_BYTES);
    expect(decodeEventNotification(payload)).toEqual({ origin: 'o', ref: e.id });
  });

  it('never produces a payload of 8000 bytes or more, whatever the event size', () => {
    for (let size = 6500; size <= 8500; size += 50) {
      for (const ch of ['a', 'é', '🎮']) {
        const e = event({ pad: ch.repeat(Math.ceil(size / Buffer.byteLength(ch))) });
        const payload = encodeEventNotification(e, ORIGIN);
        expect(Buffer.byteLength(payload, 'utf8')).toBeLessThan(NOTIFY_LIMIT_BYTES);
        const back = decodeEventNotification(payload);
        expect(back).not.toBeNull();
        if (back && 'event' in back) expect(back.event).toEqual(e);
        else expect(back).toEqual({ origin: ORIGIN, ref: e.id });
      }
    }
  });

  it.each([
    ['not JSON', 'hello'],
    ['empty', ''],
    ['truncated JSON', '{"origin":"a","event":{"id":'],
    ['JSON null', 'null'],
    ['a number', '42'],
    ['a string', '"x"'],
    ['an array', '[]'],
    ['no origin', '{"event":{"id":"x"}}'],
    ['a non-string origin', '{"origin":1,"ref":"x"}'],
    ['neither event nor ref', '{"origin":"a"}'],
    ['a non-object event', '{"origin":"a","event":"x"}'],
    ['a non-string ref', '{"origin":"a","ref":42}'],
  ])('decoding garbage (%s) gives null', (_label, payload) => {
    expect(decodeEventNotification(payload)).toBeNull();
  });

  it('the channel name is a valid LISTEN identifier', () => {
    expect(EVENTS_CHANNEL).toMatch(/^[a-z_][a-z0-9_]{0,62}$/);
  });
});
