import { epochMsSql } from '../../src/permissions/grant-sql';
import { createTestDatabase, type TestDatabase } from '../helpers/test-db';

/**
 * The lists read their instants as epoch milliseconds computed in double precision (epochMsSql):
 * rounded, that must be the instant's exact millisecond for every timestamptz(3) a client may store
 * (years 1 to 9999), in any session time zone, or a page would show an instant a millisecond off.
 */
let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db.drop());

const FIRST_MS = Date.parse('0001-01-01T00:00:00.000Z');
const LAST_MS = Date.parse('9999-12-31T23:59:59.999Z');

async function epochMsOf(instants: number[], timeZone: string): Promise<string[]> {
  const [{ ms }] = await db.query<{ ms: string[] }>(
    `SELECT array_agg(${epochMsSql('t')}::text ORDER BY i) AS ms
     FROM (SELECT set_config('TimeZone', $2, false)) tz, unnest($1::timestamptz(3)[]) WITH ORDINALITY u(t, i)`,
    [instants.map((ms) => new Date(ms).toISOString()), timeZone],
  );
  return ms;
}

it('is the exact millisecond at the ends of the range, around 1970 and at whole seconds', async () => {
  const instants = [FIRST_MS, FIRST_MS + 1, -62_000_000_000_001, -1, 0, 1, 999, 1000, 1_733_480_000_123, 2_147_483_647_999, LAST_MS - 1, LAST_MS];
  expect(await epochMsOf(instants, 'UTC')).toEqual(instants.map(String));
});

it.each(['UTC', 'Pacific/Chatham', 'America/St_Johns'])('is the exact millisecond of 20,000 random instants from year 1 to 9999 (session zone %s)', async (zone) => {
  const instants = Array.from({ length: 20_000 }, () => FIRST_MS + Math.floor(Math.random() * (LAST_MS - FIRST_MS + 1)));
  expect(await epochMsOf(instants, zone)).toEqual(instants.map(String));
});
