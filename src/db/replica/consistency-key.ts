import { randomBytes } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { ConsistencyTokens } from './consistency-token';

const KEY_NAME = 'consistency_token';

/**
 * The key that seals consistency tokens, made by the first instance that needs it and read by every
 * other from the database they share, so a token one instance issued opens on any other. Two
 * instances starting at once both offer a key; the first insert wins and both read it.
 */
export async function loadConsistencyTokens(ds: DataSource): Promise<ConsistencyTokens> {
  await ds.query(`INSERT INTO service_keys (name, secret) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING`, [KEY_NAME, randomBytes(32)]);
  const [row] = (await ds.query(`SELECT secret FROM service_keys WHERE name = $1`, [KEY_NAME])) as { secret: Buffer }[];
  return new ConsistencyTokens(row.secret);
}
