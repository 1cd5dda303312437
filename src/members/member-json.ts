import { isoOfMs } from '../common/time';
import { jsonOfJsonbText } from '../db/jsonb-text';
import { jsonOrNullSql, textOrEmptySql } from '../db/packed-row';
import { epochMsSql, liveGrant } from '../permissions/grant-sql';
import { MEMBER_ASSIGNMENTS } from './member-row';

/**
 * The parts of a members row `m` packed (packedSql) to be written straight to JSON by memberJson,
 * in its order: the ids; the user id and notes as their JSON; the status (a fixed word); the
 * metadata as the database prints it; the instants as epoch milliseconds ('' for none); the role
 * grants in force, in assignment order, each `roleId expiresAt` (epoch ms, '' for none), joined by
 * commas ('' for none).
 */
export const MEMBER_JSON_PARTS: readonly string[] = [
  'm.id::text',
  'm.group_id::text',
  jsonOrNullSql('m.external_user_id'),
  'm.status',
  'm.metadata::text',
  jsonOrNullSql('m.notes_public'),
  jsonOrNullSql('m.notes_private'),
  `${epochMsSql('m.joined_at')}::text`,
  textOrEmptySql(epochMsSql('m.left_at')),
  textOrEmptySql(epochMsSql('m.banned_until')),
  textOrEmptySql(epochMsSql('m.timed_out_until')),
  `coalesce((SELECT string_agg(a.role_id::text || ' ' || ${textOrEmptySql(epochMsSql('a.expires_at'))}, ',' ORDER BY a.created_at, a.role_id)
    FROM ${MEMBER_ASSIGNMENTS} WHERE ${liveGrant('a')}), '')`,
];

/** Where memberJson's fields hold the member's id and joinedAt (the member list's keyset). */
export const MEMBER_ID_FIELD = 0;
export const MEMBER_JOINED_AT_FIELD = 7;

const instant = (ms: string): string => (ms === '' ? 'null' : `"${isoOfMs(Number(ms))}"`);

/**
 * The JSON of toMemberDto's Member at `now`, byte for byte, from the fields MEMBER_JSON_PARTS
 * packed: for the member list, where reading each row into objects only to serialise them again
 * costs more than the rest of the request. Ids are uuids and statuses fixed words, needing no
 * escape; the database wrote the free text's JSON, escaped as JSON.stringify escapes it.
 */
export function memberJson(f: readonly string[], now: number): string {
  const [memberId, groupId, userId, status, metadata, notesPublic, notesPrivate, joinedAt, leftAt, bannedUntil, timedOutUntil, roleGrants] = f;
  let roles = '';
  let grants = '';
  if (roleGrants !== '') {
    for (const grant of roleGrants.split(',')) {
      const space = grant.indexOf(' ');
      const roleId = grant.slice(0, space);
      const sep = roles === '' ? '' : ',';
      roles += `${sep}"${roleId}"`;
      grants += `${sep}{"roleId":"${roleId}","expiresAt":${instant(grant.slice(space + 1))}}`;
    }
  }
  const timedOut = timedOutUntil !== '' && Number(timedOutUntil) > now ? timedOutUntil : '';
  return (
    `{"id":"${memberId}","groupId":"${groupId}","userId":${userId},"status":"${status}","roles":[${roles}],` +
    `"roleGrants":[${grants}],"metadata":${jsonOfJsonbText(metadata)},"notesPublic":${notesPublic},` +
    `"notesPrivate":${notesPrivate},"joinedAt":${instant(joinedAt)},"leftAt":${instant(leftAt)},` +
    `"bannedUntil":${status === 'banned' ? instant(bannedUntil) : 'null'},"timedOutUntil":${instant(timedOut)}}`
  );
}
