import type { ContractClient } from '../helpers/contract-client';
import type { Rig } from '../helpers/rig';

/** Two games: A where everything happens; B with friends and blocks off, where friends routes answer 404. */
export interface World {
  rig: Rig;
  admin: ContractClient;
  api: ContractClient;
  apiB: ContractClient;
  gameId: string;
  gameBId: string;
}

export async function makeWorld(rig: Rig): Promise<World> {
  const { admin } = rig;
  const game = await admin.expect('POST /v1/admin/games', 201, { body: { name: 'Contract A' } });
  const key = await admin.expect('POST /v1/admin/games/{gameId}/api-keys', 201, { params: { gameId: game.id } });
  const gameB = await admin.expect('POST /v1/admin/games', 201, { body: { name: 'Contract B' } });
  const keyB = await admin.expect('POST /v1/admin/games/{gameId}/api-keys', 201, { params: { gameId: gameB.id } });
  await admin.expect('PATCH /v1/admin/games/{gameId}/config', 200, {
    params: { gameId: gameB.id },
    body: { config: { friends: { enabled: false }, blocks: { enabled: false } } },
  });
  return { rig, admin, api: admin.withKey(key.key), apiB: admin.withKey(keyB.key), gameId: game.id, gameBId: gameB.id };
}
