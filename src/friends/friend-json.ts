import { isoOfEpochMs } from '../common/time';
import { jsonOrNullSql } from '../db/packed-row';
import { epochMsSql } from '../permissions/grant-sql';

/**
 * The parts of a friends list row `r` packed (packedSql) to be written straight to JSON by
 * friendJson, in its order: the ids; the friend's external id (`friendName`, the SQL that names
 * them in the calling game) as its JSON; the instants as epoch milliseconds; the tag ids
 * (`tags`, a text[]) as their JSON.
 */
export const friendJsonParts = (friendName: string, tags: string): string[] => [
  'r.id::text',
  'r.game_id::text',
  jsonOrNullSql(friendName),
  `${epochMsSql('r.created_at')}::text`,
  `${epochMsSql('r.responded_at')}::text`,
  `array_to_json(${tags})::text`,
];

/** Where the friends list's keyset is among friendJsonParts: the row's id and its respondedAt (epoch ms). */
export const FRIEND_ID_FIELD = 0;
export const FRIEND_RESPONDED_AT_FIELD = 4;

/**
 * The JSON of toFriendshipDto's Friendship, byte for byte, from the fields friendJsonParts packed;
 * `ownerJson` is the owner's external id as JSON. Ids are uuids, needing no escape; the database
 * wrote the friend's id as JSON, escaped as JSON.stringify escapes it.
 */
export function friendJson(f: readonly string[], ownerJson: string): string {
  const [id, gameId, friend, createdAt, respondedAt, tagIds] = f;
  return (
    `{"id":"${id}","gameId":"${gameId}","userId":${ownerJson},"friendSvcUserId":${friend},` +
    `"createdAt":"${isoOfEpochMs(createdAt)}","respondedAt":"${isoOfEpochMs(respondedAt)}","tagIds":${tagIds}}`
  );
}
