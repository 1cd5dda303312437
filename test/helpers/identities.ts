/** Reads of the user_identities table, for e2e tests. */
import type { TestApp } from './test-app';

/** The internal user id of an external id in a game, or null when it has none. */
export async function identityOf(t: TestApp, gameId: string, externalId: string): Promise<string | null> {
  const rows = await t.db.query<{ user_id: string }>('SELECT user_id FROM user_identities WHERE game_id = $1 AND external_id = $2', [
    gameId,
    externalId,
  ]);
  return rows[0]?.user_id ?? null;
}
