import fc from 'fast-check';
import { isoOfMs } from './time';

describe('isoOfMs', () => {
  it('writes what toISOString writes, at any millisecond from 1970 to 9999', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 253_402_300_799_999 }), (ms) => isoOfMs(ms) === new Date(ms).toISOString()),
      { numRuns: 20_000 },
    );
  });

  it.each([0, 951_782_400_000, 951_868_799_999, 4_107_542_399_999, 253_402_300_799_999, 253_402_300_800_000, -1, -62_167_219_200_001, 1.5])(
    'writes %p as toISOString does, at the edges and outside them',
    (ms) => {
      expect(isoOfMs(ms)).toBe(new Date(ms).toISOString());
    },
  );
});
