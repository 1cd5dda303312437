import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { uuidv7 } from '../common/ids';
import { sqlRows } from '../db/sql';
import { TAG_COLUMNS, type FriendTagRow } from './friend-rows';

const OWNER = `(SELECT ui.external_id FROM user_identities ui WHERE ui.user_id = t.user_id AND ui.game_id = t.game_id) AS "ownerExternalId"`;
const COLUMNS = `${TAG_COLUMNS}, ${OWNER}`;

/** Friend tags and their attachments to owner-side friend rows. */
@Injectable()
export class FriendTagsRepository {
  /** A user's tags by name (byte order) then id, on friend_tags_owner. */
  list(m: EntityManager, gameId: string, userId: string): Promise<FriendTagRow[]> {
    return sqlRows<FriendTagRow>(
      m,
      `SELECT ${COLUMNS} FROM friend_tags t WHERE t.user_id = $1 AND t.game_id = $2 ORDER BY t.name COLLATE "C", t.id`,
      [userId, gameId],
    );
  }

  async count(m: EntityManager, gameId: string, userId: string): Promise<number> {
    const [row] = await sqlRows<{ n: number }>(m, 'SELECT count(*)::int AS n FROM friend_tags WHERE user_id = $1 AND game_id = $2', [
      userId,
      gameId,
    ]);
    return row.n;
  }

  async insert(m: EntityManager, gameId: string, userId: string, name: string, color: string | null): Promise<FriendTagRow> {
    const [row] = await sqlRows<FriendTagRow>(
      m,
      `INSERT INTO friend_tags AS t (id, game_id, user_id, name, color) VALUES ($1, $2, $3, $4, $5) RETURNING ${COLUMNS}`,
      [uuidv7(), gameId, userId, name, color],
    );
    return row;
  }

  /** A tag of the game; `lock` holds it against a concurrent update or delete. */
  async find(m: EntityManager, gameId: string, id: string, lock = false): Promise<FriendTagRow | null> {
    const [row] = await sqlRows<FriendTagRow>(
      m,
      `SELECT ${COLUMNS} FROM friend_tags t WHERE t.id = $1 AND t.game_id = $2${lock ? ' FOR UPDATE' : ''}`,
      [id, gameId],
    );
    return row ?? null;
  }

  async update(m: EntityManager, id: string, changes: { name?: string; color?: string | null }): Promise<FriendTagRow> {
    const [row] = await sqlRows<FriendTagRow>(
      m,
      `UPDATE friend_tags t SET
         name = CASE WHEN $2::boolean THEN $3 ELSE t.name END,
         color = CASE WHEN $4::boolean THEN $5 ELSE t.color END,
         updated_at = now()
       WHERE t.id = $1 RETURNING ${COLUMNS}`,
      [id, changes.name !== undefined, changes.name ?? null, changes.color !== undefined, changes.color ?? null],
    );
    return row;
  }

  /** Deletes a tag; its attachments go with it (ON DELETE CASCADE). */
  async delete(m: EntityManager, id: string): Promise<void> {
    await m.query('DELETE FROM friend_tags WHERE id = $1', [id]);
  }

  /** Which of `ids` are tags of the user in the game, locked (FOR SHARE) so none is deleted meanwhile. */
  async owned(m: EntityManager, gameId: string, userId: string, ids: string[]): Promise<string[]> {
    const rows = await sqlRows<{ id: string }>(
      m,
      'SELECT id FROM friend_tags WHERE id = ANY($1::uuid[]) AND user_id = $2 AND game_id = $3 FOR SHARE',
      [ids, userId, gameId],
    );
    return rows.map((r) => r.id);
  }

  /** Makes `ids` the exact tag set of a friend row. */
  async replaceLinks(m: EntityManager, relationshipId: string, ids: string[]): Promise<void> {
    await m.query('DELETE FROM friend_tag_links WHERE relationship_id = $1 AND NOT (tag_id = ANY($2::uuid[]))', [relationshipId, ids]);
    await m.query(
      `INSERT INTO friend_tag_links (relationship_id, tag_id) SELECT $1, unnest($2::uuid[]) ON CONFLICT DO NOTHING`,
      [relationshipId, ids],
    );
  }

  async tagIdsOf(m: EntityManager, relationshipId: string): Promise<string[]> {
    const rows = await sqlRows<{ id: string }>(
      m,
      'SELECT tag_id::text AS id FROM friend_tag_links WHERE relationship_id = $1 ORDER BY tag_id',
      [relationshipId],
    );
    return rows.map((r) => r.id);
  }
}
