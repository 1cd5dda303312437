import { friendLockKeys } from './friend-locks';

const GAME = '0190a5c8-0000-7000-8000-000000000001';
const A = '0190a5c8-0000-7000-8000-00000000000a';
const B = '0190a5c8-0000-7000-8000-00000000000b';

describe('friendLockKeys', () => {
  it('gives the same keys in the same (ascending) order whichever user comes first', () => {
    const ab = friendLockKeys(GAME, [A, B]);

    expect(friendLockKeys(GAME, [B, A])).toEqual(ab);
    expect(BigInt(ab[0]) < BigInt(ab[1])).toBe(true);
  });

  it('keys are signed 64-bit integers as text', () => {
    for (const k of friendLockKeys(GAME, [A, B])) {
      expect(k).toMatch(/^-?\d+$/);
      expect(BigInt(k) >= -(2n ** 63n) && BigInt(k) < 2n ** 63n).toBe(true);
    }
  });

  it('takes a repeated user once', () => {
    expect(friendLockKeys(GAME, [A, A])).toHaveLength(1);
  });

  it('depends on the game: the same users in another game take other locks', () => {
    expect(friendLockKeys('0190a5c8-0000-7000-8000-000000000002', [A])).not.toEqual(friendLockKeys(GAME, [A]));
  });
});
