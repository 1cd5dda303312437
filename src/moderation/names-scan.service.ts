import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { ActingOperator } from '../common/auth/operator-roles';
import { sqlRows } from '../db/sql';
import { UnitOfWork } from '../db/unit-of-work';
import { recordOperatorAction } from '../operators/operator-audit';
import { toReportDto } from '../reports/report-row';
import { ReportsRepository } from '../reports/reports.repository';
import type { NameMatcher } from './name-matcher';
import { NamePolicies } from './name-policies';

/** Groups read and matched per batch: each batch's reports commit on their own. */
export const SCAN_BATCH = 1000;

interface NamedGroup {
  id: string;
  name: string;
  tags: string[];
  createdAt: Date;
}

/** What the blocked words found in a group's name and tags, as the report's message says it; null when nothing. */
export function blockedFindings(matcher: NameMatcher, g: Pick<NamedGroup, 'name' | 'tags'>): string | null {
  const blocked = (text: string) => [...new Set(matcher.match(text).filter((m) => m.list === 'blocked').map((m) => m.word))];
  const parts: string[] = [];
  const inName = blocked(g.name);
  if (inName.length) parts.push(`name "${g.name}" holds ${inName.join(', ')}`);
  for (const tag of g.tags) {
    const inTag = blocked(tag);
    if (inTag.length) parts.push(`tag "${tag}" holds ${inTag.join(', ')}`);
  }
  return parts.length ? `The name policy's blocked words: ${parts.join('; ')}`.slice(0, 1000) : null;
}

/** The lock one game's scans file under, so two at once never file twice for one group. */
const scanLockKey = (gameId: string) => createHash('sha256').update(`svc:names-scan:${gameId}`).digest().readBigInt64BE(0).toString();

/**
 * EXTENSIONS X10 `names/scan`: every live group of the game is matched against the blocked words of
 * its name policy as it stands now (names made before a word was blocked included); each group a
 * blocked word matches gets an `offensive_name` report filed by the service (no reporter), unless
 * one of the service's is open on it already.
 */
@Injectable()
export class NamesScanService {
  constructor(
    private readonly ds: DataSource,
    private readonly uow: UnitOfWork,
    private readonly names: NamePolicies,
    private readonly reports: ReportsRepository,
  ) {}

  /** `flagged`: the groups a blocked word matches, whether their report was filed now or by an earlier scan. */
  async scan(gameId: string, by: ActingOperator): Promise<{ scanned: number; flagged: number }> {
    const matcher = await this.names.matcherOf(gameId);
    let scanned = 0;
    let flagged = 0;
    let filed = 0;
    for (let after: NamedGroup | undefined; ; ) {
      const batch = await this.liveGroups(this.ds.manager, gameId, after);
      scanned += batch.length;
      const found = batch.map((g) => ({ g, message: blockedFindings(matcher, g) })).filter((f): f is { g: NamedGroup; message: string } => f.message !== null);
      flagged += found.length;
      if (found.length) filed += await this.file(gameId, found);
      if (batch.length < SCAN_BATCH) break;
      after = batch[batch.length - 1];
    }
    await this.uow.run((tx) => recordOperatorAction(tx.manager, by, { action: 'names.scanned', gameId, targetId: gameId, details: { scanned, flagged, filed } }));
    return { scanned, flagged };
  }

  private async file(gameId: string, found: readonly { g: NamedGroup; message: string }[]): Promise<number> {
    return this.uow.run(async (tx) => {
      await tx.manager.query('SELECT pg_advisory_xact_lock($1::bigint)', [scanLockKey(gameId)]);
      let filed = 0;
      for (const { g, message } of found) {
        const row = await this.reports.fileForNames(tx.manager, gameId, g.id, message);
        if (!row) continue;
        filed++;
        await this.reports.retally(tx.manager, gameId, 'group', g.id);
        const report = toReportDto(row);
        tx.audit({ gameId, groupId: null, action: 'report.created', targetId: g.id, payload: { reportId: row.id, reporterUserId: null, subject: report.subject, category: row.category } });
        tx.emit({ type: 'report.created', gameId, data: { report } });
      }
      return filed;
    });
  }

  /** A batch of the game's live groups after `after`, on groups_game_order (newest first). */
  private liveGroups(m: EntityManager, gameId: string, after: NamedGroup | undefined): Promise<NamedGroup[]> {
    return sqlRows<NamedGroup>(
      m,
      `SELECT g.id, g.name, g.tags, g.created_at AS "createdAt" FROM groups g
       WHERE g.game_id = $1 AND g.soft_deleted_at IS NULL AND ($2::timestamptz IS NULL OR (g.created_at, g.id) < ($2::timestamptz, $3::uuid))
       ORDER BY g.created_at DESC, g.id DESC LIMIT $4`,
      [gameId, after?.createdAt ?? null, after?.id ?? null, SCAN_BATCH],
    );
  }
}
