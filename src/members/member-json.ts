import { isoOfMs } from '../common/time';
import { jsonOfJsonbText } from '../db/jsonb-text';
import { epochMsSql } from '../permissions/grant-sql';
import { MEMBER_ASSIGNMENTS, roleColumns, type RoleGrant } from './member-row';

/**
 * A members row read to be written straight to JSON (memberJson): the metadata as the database
 * prints it, the instants as epoch milliseconds (as text), the roles as MemberRow has them.
 */
export interface MemberJsonRow {
  id: string;
  groupId: string;
  userId: string;
  status: string;
  /** jsonb's text. */
  metadata: string;
  notesPublic: string | null;
  notesPrivate: string | null;
  joinedAt: string;
  leftAt: string | null;
  bannedUntil: string | null;
  timedOutUntil: string | null;
  roleGrants: RoleGrant[];
}

/** MemberJsonRow's columns of `members m`. */
export const MEMBER_JSON_COLUMNS = `m.id, m.group_id AS "groupId", m.external_user_id AS "userId", m.status, m.metadata::text AS metadata,
  m.notes_public AS "notesPublic", m.notes_private AS "notesPrivate", ${epochMsSql('m.joined_at')} AS "joinedAt",
  ${epochMsSql('m.left_at')} AS "leftAt", ${epochMsSql('m.banned_until')} AS "bannedUntil", ${epochMsSql('m.timed_out_until')} AS "timedOutUntil",
  ${roleColumns(MEMBER_ASSIGNMENTS, 'true')}`;

const instant = (ms: string | number | null): string => (ms === null ? 'null' : `"${isoOfMs(Number(ms))}"`);

/**
 * The JSON of toMemberDto's Member, byte for byte, from a MemberJsonRow at `now`: for the member
 * list, where parsing each row into objects only to serialise them again costs more than the rest
 * of the request. Ids are uuids and statuses fixed words, needing no escape.
 */
export function memberJson(m: MemberJsonRow, now: number): string {
  let roles = '';
  let grants = '';
  for (const g of m.roleGrants) {
    const sep = roles === '' ? '' : ',';
    roles += `${sep}"${g.roleId}"`;
    grants += `${sep}{"roleId":"${g.roleId}","expiresAt":${instant(g.expiresAt)}}`;
  }
  const timedOut = m.timedOutUntil !== null && Number(m.timedOutUntil) > now ? m.timedOutUntil : null;
  return (
    `{"id":"${m.id}","groupId":"${m.groupId}","userId":${JSON.stringify(m.userId)},"status":"${m.status}","roles":[${roles}],` +
    `"roleGrants":[${grants}],"metadata":${jsonOfJsonbText(m.metadata)},"notesPublic":${JSON.stringify(m.notesPublic)},` +
    `"notesPrivate":${JSON.stringify(m.notesPrivate)},"joinedAt":${instant(m.joinedAt)},"leftAt":${instant(m.leftAt)},` +
    `"bannedUntil":${m.status === 'banned' ? instant(m.bannedUntil) : 'null'},"timedOutUntil":${instant(timedOut)}}`
  );
}
