import { eventId, isUuid, journalKey, randomIdBytes, uuidv7 } from './ids';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const NOW = 1_700_000_000_000;

describe('uuidv7', () => {
  it('is a lowercase UUID with version 7 and the RFC 9562 variant', () => {
    for (let i = 0; i < 200; i++) expect(uuidv7()).toMatch(UUID_V7);
  });

  it('starts with the 48-bit millisecond timestamp', () => {
    const hex = NOW.toString(16).padStart(12, '0');

    expect(uuidv7(NOW).replace(/-/g, '').slice(0, 12)).toBe(hex);
  });

  it('is random apart from its timestamp', () => {
    expect(uuidv7(NOW)).not.toBe(uuidv7(NOW));
  });

  it('sorts in creation order as a string when made at increasing times', () => {
    const times = [0, 1, 255, 256, 4095, 4096, NOW - 1, NOW, NOW + 1, 2 ** 48 - 1];

    const ids = times.map((t) => uuidv7(t));

    expect([...ids].sort()).toEqual(ids);
  });
});

describe('isUuid', () => {
  it('accepts a generated id', () => {
    expect(isUuid(uuidv7())).toBe(true);
  });

  it.each([
    ['a UUID v4', '3b241101-e2bb-4255-8caf-4136c566a962', true],
    ['an upper-case UUID', '3B241101-E2BB-4255-8CAF-4136C566A962', false],
    ['a UUID without dashes', '3b241101e2bb42558caf4136c566a962', false],
    ['a UUID in braces', '{3b241101-e2bb-4255-8caf-4136c566a962}', false],
    ['a UUID with a trailing newline', '3b241101-e2bb-4255-8caf-4136c566a962\n', false],
    ['a short string', '3b241101-e2bb-4255-8caf-4136c566a96', false],
    ['a non-hex character', '3b241101-e2bb-4255-8caf-4136c566a96g', false],
    ['an empty string', '', false],
  ])('answers for %s', (_case, value, expected) => {
    expect(isUuid(value)).toBe(expected);
  });
});

describe('eventId', () => {
  it('is 24 lowercase hex characters', () => {
    for (let i = 0; i < 200; i++) expect(eventId()).toMatch(/^[0-9a-f]{24}$/);
  });

  it('starts with the millisecond timestamp', () => {
    expect(eventId(NOW).slice(0, 12)).toBe(NOW.toString(16).padStart(12, '0'));
  });

  it('is random apart from its timestamp', () => {
    expect(eventId(NOW)).not.toBe(eventId(NOW));
  });

  it('sorts in creation order as a string when made at increasing times', () => {
    const ids = [1, 16, NOW, NOW + 1].map((t) => eventId(t));

    expect([...ids].sort()).toEqual(ids);
  });
});

describe('journalKey', () => {
  it('makes of an event id a UUID v7 that starts with it and ends in four zero bytes', () => {
    for (let i = 0; i < 200; i++) {
      const id = eventId();
      const key = journalKey(id);

      expect(key).toMatch(UUID_V7);
      expect(key.replace(/-/g, '')).toBe(`${id}00000000`);
    }
  });

  it('keeps the order of the event ids it is made of', () => {
    const ids = [1, 16, NOW, NOW + 1].map((t) => journalKey(eventId(t)));

    expect([...ids].sort()).toEqual(ids);
  });
});

describe('randomIdBytes', () => {
  it('never hands out the same bytes twice, across refills of its pool', () => {
    // 16-byte draws over three pools' worth: a slice handed out twice (or a pool not refilled)
    // repeats a draw; 128 random bits never repeat by chance.
    const seen = new Set<string>();
    for (let i = 0; i < 800; i++) seen.add(randomIdBytes(16).toString('hex'));

    expect(seen.size).toBe(800);
  });

  it('gives each caller a buffer of its own, which later draws leave as it was', () => {
    const first = randomIdBytes(12);
    const copy = Buffer.from(first);
    for (let i = 0; i < 400; i++) randomIdBytes(12);

    expect(first).toEqual(copy);
    expect(first.length).toBe(12);
  });

  it('starts a new pool when the draw does not fit in what is left', () => {
    // 4096 is not a multiple of 12: the draws that cross the pool's end still get 12 fresh bytes.
    const draws = Array.from({ length: 700 }, () => randomIdBytes(12).toString('hex'));

    expect(new Set(draws).size).toBe(700);
    expect(draws.every((d) => d.length === 24)).toBe(true);
  });
});
