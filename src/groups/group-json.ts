import { isoOfEpochMs } from '../common/time';
import { jsonOfJsonbText } from '../db/jsonb-text';
import { epochMsSql } from '../permissions/grant-sql';
import { memberCountSql } from './group-row';

/**
 * A groups row read to be written straight to JSON (groupJson): the metadata and tags as the
 * database prints them, the instants as epoch milliseconds, whether there is a passcode.
 */
export interface GroupJsonRow {
  id: string;
  gameId: string;
  kind: string;
  name: string;
  visibility: string;
  /** jsonb's text. */
  metadata: string;
  defaultRoleId: string | null;
  parentGroupId: string | null;
  /** json's text of the text[]: no spaces, strings escaped as JSON.stringify escapes them. */
  tags: string;
  maxMembers: number | null;
  ownerUserId: string | null;
  memberCount: number;
  hasPasscode: boolean;
  createdAt: string;
  updatedAt: string;
  softDeletedAt: string | null;
}

/** GroupJsonRow's columns of `groups g`. */
export const GROUP_JSON_COLUMNS = `g.id, g.game_id AS "gameId", g.kind, g.name, g.visibility, g.metadata::text AS metadata,
  g.default_role_id AS "defaultRoleId", g.parent_group_id AS "parentGroupId", array_to_json(g.tags)::text AS tags,
  g.max_members AS "maxMembers", g.owner_external_id AS "ownerUserId", ${memberCountSql('g')} AS "memberCount",
  g.passcode_hash IS NOT NULL AS "hasPasscode", ${epochMsSql('g.created_at')} AS "createdAt", ${epochMsSql('g.updated_at')} AS "updatedAt",
  ${epochMsSql('g.soft_deleted_at')} AS "softDeletedAt"`;

/** A nullable uuid as JSON. */
const id = (v: string | null): string => (v === null ? 'null' : `"${v}"`);

/**
 * The JSON of toGroupDto's Group, byte for byte, from a GroupJsonRow: for the lists that write a
 * page of 50 groups, where parsing each row into objects only to serialise them again costs more
 * than the rest of the request. Ids are uuids, needing no escape.
 */
export function groupJson(g: GroupJsonRow): string {
  return (
    `{"id":"${g.id}","gameId":"${g.gameId}","kind":${JSON.stringify(g.kind)},"name":${JSON.stringify(g.name)},"visibility":"${g.visibility}",` +
    `"metadata":${jsonOfJsonbText(g.metadata)},"defaultRoleId":${id(g.defaultRoleId)},"parentGroupId":${id(g.parentGroupId)},"tags":${g.tags},` +
    `"maxMembers":${g.maxMembers === null ? 'null' : g.maxMembers},"ownerUserId":${JSON.stringify(g.ownerUserId)},"memberCount":${g.memberCount},` +
    `"hasPasscode":${g.hasPasscode},"createdAt":"${isoOfEpochMs(g.createdAt)}","updatedAt":"${isoOfEpochMs(g.updatedAt)}",` +
    `"softDeletedAt":${g.softDeletedAt === null ? 'null' : `"${isoOfEpochMs(g.softDeletedAt)}"`}}`
  );
}
