import { formatPosition, parsePosition, tokenFor } from './consistency-token';

describe('consistency tokens', () => {
  it('reads and writes PostgreSQL WAL positions', () => {
    expect(parsePosition('16/B374D848')).toBe((0x16n << 32n) | 0xb374d848n);
    expect(parsePosition('0/0')).toBe(0n);
    expect(formatPosition(parsePosition('16/B374D848')!)).toBe('16/B374D848');
    expect(formatPosition(parsePosition('ffffffff/ffffffff')!)).toBe('FFFFFFFF/FFFFFFFF');
  });

  it.each(['', '16', '16/', '/B3', '16/B374D848/1', '123456789/0', '0/123456789', '16/G3', ' ', '1e3/x', '-1/0'])(
    'refuses %j',
    (text) => {
      expect(parsePosition(text)).toBeNull();
    },
  );

  it('leaves a page header out of a position just past a page boundary', () => {
    expect(tokenFor('0/3002018')).toBe('0/3002000');
    expect(tokenFor('1/1000028')).toBe('1/1000000');
  });

  it('keeps any other position as it is', () => {
    expect(tokenFor('0/3002020')).toBe('0/3002020');
    expect(tokenFor('0/16B3D48')).toBe('0/16B3D48');
  });
});
