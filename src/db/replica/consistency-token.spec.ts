import { randomBytes } from 'node:crypto';
import { committedPosition, ConsistencyTokens, formatPosition, MAX_TOKENS_PER_REQUEST, parsePosition, readTokenList } from './consistency-token';

describe('WAL positions', () => {
  it('reads and writes PostgreSQL WAL positions', () => {
    expect(parsePosition('16/B374D848')).toBe((0x16n << 32n) | 0xb374d848n);
    expect(parsePosition('0/0')).toBe(0n);
    expect(formatPosition(parsePosition('16/B374D848')!)).toBe('16/B374D848');
    expect(formatPosition(parsePosition('ffffffff/ffffffff')!)).toBe('FFFFFFFF/FFFFFFFF');
  });

  it.each(['', '16', '16/', '/B3', '16/B374D848/1', '123456789/0', '0/123456789', '16/G3', ' ', '1e3/x', '-1/0'])('refuses %j', (text) => {
    expect(parsePosition(text)).toBeNull();
  });

  it('leaves a page header out of a position just past a page boundary, and keeps any other', () => {
    expect(formatPosition(committedPosition(parsePosition('0/3002018')!))).toBe('0/3002000');
    expect(formatPosition(committedPosition(parsePosition('1/1000028')!))).toBe('1/1000000');
    expect(formatPosition(committedPosition(parsePosition('0/3002020')!))).toBe('0/3002020');
  });
});

describe('consistency tokens', () => {
  const tokens = new ConsistencyTokens(randomBytes(32));
  const at = (lsn: string) => parsePosition(lsn)!;

  it('opens what it sealed, on any holder of the same key', () => {
    const key = randomBytes(32);
    const sealed = new ConsistencyTokens(key).issue(at('16/B374D848'));
    expect(sealed).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(new ConsistencyTokens(Buffer.from(key)).read(sealed)).toEqual({ position: at('16/B374D848') });
  });

  it('shows nothing of the position: neighbouring positions give unrelated tokens, none holding the position\'s text', () => {
    const a = tokens.issue(at('16/B374D848'));
    const b = tokens.issue(at('16/B374D849'));
    expect(a).not.toBe(b);
    const common = [...a].filter((c, i) => b[i] === c).length;
    expect(common).toBeLessThan(8);
    for (const t of [a, b]) expect(t.toUpperCase()).not.toContain('B374D84');
  });

  it('seals a position asked again as before, and each new position afresh (the last one is kept, not recomputed)', () => {
    const fresh = new ConsistencyTokens(randomBytes(32));
    const first = fresh.issue(at('16/B374D848'));
    expect(fresh.issue(at('16/B374D848'))).toBe(first);
    const next = fresh.issue(at('16/B374D900'));
    expect(fresh.read(next)).toEqual({ position: at('16/B374D900') });
    expect(fresh.issue(at('16/B374D848'))).toBe(first);
    // A position just past a page header seals as the boundary: the same token as the boundary's.
    expect(fresh.issue(at('0/3002018'))).toBe(fresh.issue(at('0/3002000')));
  });

  it('leaves the page header out when sealing', () => {
    expect(tokens.read(tokens.issue(at('0/3002018')))).toEqual({ position: at('0/3002000') });
  });

  it('calls a token of another key, or a plain position of an earlier release, unreadable (the primary serves it)', () => {
    expect(tokens.read(new ConsistencyTokens(randomBytes(32)).issue(at('0/16B3D48')))).toBe('unreadable');
    expect(tokens.read('16/B374D848')).toBe('unreadable');
    expect(tokens.read('A'.repeat(22))).toBe('unreadable');
  });

  it.each(['', 'nope', '0/', '1/2/3', '123456789/0', 'A'.repeat(21), 'A'.repeat(23), `${'A'.repeat(21)}=`, `${'A'.repeat(21)}.`])('refuses %j as no token at all', (text) => {
    expect(tokens.read(text)).toBeNull();
  });

  it('needs a 32-byte key', () => {
    expect(() => new ConsistencyTokens(randomBytes(16))).toThrow('32 bytes');
  });
});

describe('a list of tokens', () => {
  const tokens = new ConsistencyTokens(randomBytes(32));
  const at = (lsn: string) => parsePosition(lsn)!;

  it('asks for the furthest of its positions', () => {
    const list = ['0/300', '5/100', '1/FFFF'].map((p) => tokens.issue(at(p))).join(', ');
    expect(readTokenList(tokens, list)).toEqual({ position: at('5/100') });
    expect(readTokenList(tokens, tokens.issue(at('0/300')))).toEqual({ position: at('0/300') });
  });

  it('is unreadable when any token is, and no list when any part is no token or there are too many', () => {
    expect(readTokenList(tokens, `${tokens.issue(at('0/300'))},16/B374D848`)).toBe('unreadable');
    expect(readTokenList(tokens, `${tokens.issue(at('0/300'))},nope`)).toBeNull();
    expect(readTokenList(tokens, `${tokens.issue(at('0/300'))},`)).toBeNull();
    expect(readTokenList(tokens, Array(MAX_TOKENS_PER_REQUEST + 1).fill(tokens.issue(at('0/1'))).join(','))).toBeNull();
    expect(readTokenList(tokens, Array(MAX_TOKENS_PER_REQUEST).fill(tokens.issue(at('0/1'))).join(','))).toEqual({ position: at('0/1') });
  });
});
