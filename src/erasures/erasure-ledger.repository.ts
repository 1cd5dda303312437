import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { sqlRows } from '../db/sql';
import { subjectHashSql } from '../users/user-erasure.repository';
import type { ErasureEntryDto } from './dto/erasure.dto';

export interface ErasureRow {
  id: string;
  gameId: string;
  subjectHash: string;
  erasedAt: Date;
}

const COLUMNS = `e.id, e.game_id AS "gameId", e.subject_hash AS "subjectHash", e.erased_at AS "erasedAt"`;

/** The erasure ledger (EXTENSIONS X7), oldest first on erasures_order. */
@Injectable()
export class ErasureLedgerRepository {
  list(m: EntityManager, { since, after, limit }: { since?: Date; after?: { erasedAt: string; id: string }; limit: number }): Promise<ErasureRow[]> {
    const params: unknown[] = [limit];
    const where: string[] = [];
    if (since) where.push(`e.erased_at >= $${params.push(since.toISOString())}::timestamptz`);
    if (after) where.push(`(e.erased_at, e.id) > ($${params.push(after.erasedAt)}::timestamptz, $${params.push(after.id)}::uuid)`);
    return sqlRows<ErasureRow>(
      m,
      `SELECT ${COLUMNS} FROM erasures e ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY e.erased_at, e.id LIMIT $1`,
      params,
    );
  }

  /** Adds the entries the ledger lacks (a restore lost them), by id. */
  async insertMissing(m: EntityManager, items: readonly ErasureEntryDto[]): Promise<void> {
    await m.query(
      `INSERT INTO erasures (id, game_id, subject_hash, erased_at)
       SELECT id, game_id, subject_hash, erased_at FROM jsonb_to_recordset($1::jsonb)
         AS x(id uuid, game_id uuid, subject_hash text, erased_at timestamptz)
       ON CONFLICT (id) DO NOTHING`,
      [JSON.stringify(items.map((i) => ({ id: i.id, game_id: i.gameId, subject_hash: i.subjectHash, erased_at: i.erasedAt })))],
    );
  }

  /**
   * The external ids the game knows now whose hash is one of `hashes`: one pass over the game's
   * identities (a restore is rare; the ids are never stored hashed beside them).
   */
  async knownSubjects(m: EntityManager, gameId: string, hashes: readonly string[]): Promise<string[]> {
    const rows = await sqlRows<{ external_id: string }>(
      m,
      `SELECT ui.external_id FROM user_identities ui
       WHERE ui.game_id = $1 AND ${subjectHashSql('ui.game_id', 'ui.external_id')} = ANY ($2::text[])
       ORDER BY ui.external_id`,
      [gameId, hashes],
    );
    return rows.map((r) => r.external_id);
  }
}
