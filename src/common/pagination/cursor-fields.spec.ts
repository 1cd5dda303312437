import { float8, instant, INT4, INT8_EXACT, integer, oneOf, text, uuid, type CursorField } from './cursor-fields';

/** Each kind of cursor value: what it reads back as is, and what it refuses (read gives undefined). */
const KINDS: [string, CursorField<never, unknown>, unknown[], unknown[]][] = [
  [
    'instant',
    instant,
    [
      '2024-05-01T12:00:00.000Z',
      '2020-02-29T00:00:00.000Z',
      '2000-02-29T23:59:59.999Z',
      '1970-01-01T00:00:00.000Z',
      '0001-01-01T00:00:00.000Z',
      '9999-12-31T23:59:59.999Z',
    ],
    [
      // Date.parse takes each of these first three; PostgreSQL refuses them.
      '0',
      '2020-02-30',
      '+275760-09-13T00:00:00.000Z',
      '2020-02-30T00:00:00.000Z',
      '2021-02-29T00:00:00.000Z',
      '1900-02-29T00:00:00.000Z',
      '2020-04-31T00:00:00.000Z',
      '2020-13-01T00:00:00.000Z',
      '2020-00-10T00:00:00.000Z',
      '2020-01-00T00:00:00.000Z',
      '2020-01-01T24:00:00.000Z',
      '2020-01-01T23:60:00.000Z',
      '2020-01-01T23:59:60.000Z',
      '0000-01-01T00:00:00.000Z',
      '-000001-01-01T00:00:00.000Z',
      '+010000-01-01T00:00:00.000Z',
      '-271821-04-20T00:00:00.000Z',
      '2020-01-01T00:00:00Z',
      '2020-01-01T00:00:00.0Z',
      '2020-01-01T00:00:00.000000Z',
      '2020-01-01T00:00:00.000+00:00',
      '2020-01-01T00:00:00.000z',
      '2020-01-01t00:00:00.000Z',
      '2020-01-01 00:00:00.000Z',
      '2020-01-01',
      ' 2020-01-01T00:00:00.000Z',
      '2020-01-01T00:00:00.000Z\n',
      '２０２０-01-01T00:00:00.000Z',
      'NaN',
      'Infinity',
      '',
      1_577_836_800_000,
      null,
      true,
      ['2020-01-01T00:00:00.000Z'],
      { at: '2020-01-01T00:00:00.000Z' },
    ],
  ],
  [
    'uuid',
    uuid,
    ['0190a5c8-0000-7000-8000-000000000000', '00000000-0000-0000-0000-000000000000', 'ffffffff-ffff-ffff-ffff-ffffffffffff'],
    [
      '0190A5C8-0000-7000-8000-000000000000',
      '0190a5c8-0000-7000-8000-00000000000g',
      '0190a5c800007000800000000000000',
      '{0190a5c8-0000-7000-8000-000000000000}',
      '0190a5c8-0000-7000-8000-000000000000\u0000',
      '0190a5c8-0000-7000-8000-0000000000000',
      '',
      1,
      null,
    ],
  ],
  [
    'integer (int4)',
    integer(INT4),
    [0, 42, -7, 2 ** 31 - 1, -(2 ** 31), -0],
    [2 ** 31, -(2 ** 31) - 1, 2 ** 53, 1.5, Infinity, -Infinity, NaN, '1', '', null, true, [1]],
  ],
  ['integer (int8, as far as JSON carries it)', integer(INT8_EXACT), [2 ** 53 - 1, -(2 ** 53 - 1), 2 ** 31], [2 ** 53, -(2 ** 53), 1e300, 0.5]],
  ['integer (a count: 0 to the int4 maximum)', integer({ min: 0, max: INT4.max }), [0, INT4.max], [-1, INT4.max + 1]],
  ['float8', float8, [0, -1.5, Number.MAX_VALUE, Number.MIN_VALUE, 1e-300], [Infinity, -Infinity, NaN, '1.5', null, [0]]],
  [
    'text (at most 10 units)',
    text(10),
    ['', 'knights', 'ünïcødé', '😀', '0123456789', 'a\ufffdb', "' OR 1=1--"],
    ['01234567890', 'a\u0000b', '\u0000', '\ud800', 'x\udc00', '\udc00\ud800', 1, null, ['a'], { a: 'b' }],
  ],
  ['one of 0, 1, 2 (a rank)', oneOf([0, 1, 2]), [0, 1, 2], [3, -1, 1.5, '1', null, true]],
  ['one of a set of strings', oneOf(['members', 'name']), ['members', 'name'], ['Members', 'name ', '', 0]],
];

describe.each(KINDS)('cursor field: %s', (_kind, field, valid, invalid) => {
  it.each(valid.map((v) => [v]))('reads %j as itself', (value) => {
    expect(field.read(value)).toBe(value);
  });

  it.each(invalid.map((v) => [v]))('refuses %j', (value) => {
    expect(field.read(value)).toBeUndefined();
  });
});

describe('instant', () => {
  it.each(['2024-05-01T12:00:00.123Z', '2020-02-29T00:00:00.000Z', '0001-01-01T00:00:00.000Z'])('reads back what it wrote of %s', (iso) => {
    expect(instant.read(instant.write(new Date(iso)))).toBe(iso);
  });
});
