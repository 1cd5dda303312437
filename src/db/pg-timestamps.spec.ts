import { types } from 'pg';
import { parseTimestamptz } from './pg-timestamps';

const pgParse = types.getTypeParser(1184, 'text') as (text: string) => unknown;
const parse = (text: string) => parseTimestamptz(text, pgParse);
const iso = (v: unknown) => (v instanceof Date ? v.toISOString() : v);

describe('parseTimestamptz', () => {
  it.each([
    '2026-11-22 02:35:10+00',
    '2026-11-22 02:35:10.1+00',
    '2026-11-22 02:35:10.12+00',
    '2026-11-22 02:35:10.123+00',
    '2026-11-22 02:35:10.123456+00',
    '2026-11-22 02:35:10.999999+00',
    '2026-11-22 02:35:10.5-03',
    '2026-11-22 02:35:10+05:30',
    '2026-11-22 02:35:10.007-09:30',
    '1999-12-31 23:59:59.999+14',
    '2000-02-29 00:00:00-12',
    '1970-01-01 00:00:00+00',
    '9999-12-31 23:59:59.999+00',
    '1000-01-01 00:00:00+00',
  ])('reads %s as pg does', (text) => {
    const ours = parse(text);
    expect(ours).toBeInstanceOf(Date);
    expect(iso(ours)).toBe(iso(pgParse(text)));
  });

  it('agrees with pg on random instants in every offset shape', () => {
    for (let n = 0; n < 2000; n++) {
      const d = new Date(Math.floor(Math.random() * 253_402_300_799_999));
      if (d.getUTCFullYear() < 1000) continue;
      const offset = Math.floor(Math.random() * 27 * 4 - 12 * 4) * 15;
      const local = new Date(d.getTime() + offset * 60_000).toISOString().slice(0, 23).replace('T', ' ');
      const sign = offset < 0 ? '-' : '+';
      const hh = String(Math.floor(Math.abs(offset) / 60)).padStart(2, '0');
      const mm = String(Math.abs(offset) % 60).padStart(2, '0');
      const text = `${local}${sign}${hh}${mm === '00' ? '' : `:${mm}`}`;
      expect(iso(parse(text))).toBe(iso(pgParse(text)));
      expect(iso(parse(text))).toBe(d.toISOString());
    }
  });

  it.each(['infinity', '-infinity', '0044-03-15 12:00:00+00 BC', '0099-01-01 00:00:00+00', '1890-01-01 00:00:00+00:53:28'])(
    'leaves %s to pg',
    (text) => {
      expect(iso(parse(text))).toEqual(iso(pgParse(text)));
    },
  );
});
