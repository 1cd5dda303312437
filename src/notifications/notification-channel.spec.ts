import { formatSignal, parseSignal, type NotificationSignal } from './notification-channel';

const g = '0190f2a4-0000-7000-8000-000000000001';
const u = '0190f2a4-0000-7000-8000-000000000002';

describe('notification signals', () => {
  it.each<[string, NotificationSignal]>([
    ['new', { t: 'new', g, u }],
    ['removed', { t: 'removed', g, u }],
    ['read ids', { t: 'read', g, u, ids: ['0190f2a4-0000-7000-8000-00000000000a', '0190f2a4-0000-7000-8000-00000000000b'] }],
    ['read all', { t: 'read', g, u, all: true, before: '2026-12-01T10:00:00.123Z' }],
  ])('reads back what it writes: %s', (_case, signal) => {
    const sut = formatSignal(signal);
    expect(parseSignal(sut)).toEqual(signal);
  });

  it('writes the documented payloads', () => {
    expect(formatSignal({ t: 'new', g, u })).toBe(`{"t":"new","g":"${g}","u":"${u}"}`);
    expect(formatSignal({ t: 'read', g, u, all: true, before: '2026-12-01T10:00:00.123Z' })).toBe(
      `{"t":"read","g":"${g}","u":"${u}","all":true,"before":"2026-12-01T10:00:00.123Z"}`,
    );
  });

  it('reads a payload whatever its key order and spacing (jsonb in SQL sorts the keys)', () => {
    expect(parseSignal(`{"g": "${g}", "t": "new", "u": "${u}"}`)).toEqual({ t: 'new', g, u });
  });

  it('keeps no field it does not know', () => {
    expect(parseSignal(JSON.stringify({ t: 'new', g, u, extra: 1 }))).toEqual({ t: 'new', g, u });
  });

  it.each([
    ['not JSON', '{'],
    ['an array', '[]'],
    ['a string', '"new"'],
    ['another type', JSON.stringify({ t: 'gone', g, u })],
    ['no game', JSON.stringify({ t: 'new', u })],
    ['no user', JSON.stringify({ t: 'new', g })],
    ['an empty user', JSON.stringify({ t: 'new', g, u: '' })],
    ['read with neither ids nor all', JSON.stringify({ t: 'read', g, u })],
    ['read with ids not strings', JSON.stringify({ t: 'read', g, u, ids: [1] })],
    ['read all without before', JSON.stringify({ t: 'read', g, u, all: true })],
    ['read all with a before that is no time', JSON.stringify({ t: 'read', g, u, all: true, before: 'soon' })],
    ['read all not true', JSON.stringify({ t: 'read', g, u, all: 'yes', before: '2026-12-01T10:00:00.000Z' })],
  ])('is null for %s', (_case, payload) => {
    expect(parseSignal(payload)).toBeNull();
  });
});
