import { Injectable } from '@nestjs/common';
import type { ActingOperator } from '../common/auth/operator-roles';
import { recordOperatorAction } from '../operators/operator-audit';
import { DataSource } from 'typeorm';
import { instant, uuid } from '../common/pagination/cursor-fields';
import { cursorShape } from '../common/pagination/cursor-shape';
import { parsePageLimit } from '../common/pagination/page-limit';
import type { Page } from '../common/pagination/page';
import { parseInstant } from '../common/validation/parse-instant';
import { UnitOfWork, type Tx } from '../db/unit-of-work';
import { UserErasureService } from '../users/user-erasure.service';
import type { ApplyErasuresResultDto, ErasureEntryDto, ListErasuresQueryDto } from './dto/erasure.dto';
import { ErasureLedgerRepository, type ErasureRow } from './erasure-ledger.repository';

export const LEDGER_PAGE_DEFAULT = 100;
export const LEDGER_PAGE_CAP = 1000;
const SCOPE = 'erasures';
/** (erasedAt, id), oldest first. */
const LEDGER_CURSOR = cursorShape(instant, uuid);

const toEntry = (r: ErasureRow): ErasureEntryDto => ({ id: r.id, gameId: r.gameId, subjectHash: r.subjectHash, erasedAt: r.erasedAt.toISOString() });

/**
 * The ledger of erasures (EXTENSIONS X7): what an operator exports and keeps apart from the
 * database's backups, and re-applies right after a restore so that no erased player returns.
 */
@Injectable()
export class ErasureLedgerService {
  constructor(
    private readonly ds: DataSource,
    private readonly uow: UnitOfWork,
    private readonly repo: ErasureLedgerRepository,
    private readonly erasure: UserErasureService,
  ) {}

  async list(q: ListErasuresQueryDto): Promise<Page<ErasureEntryDto>> {
    const limit = parsePageLimit(q.limit, LEDGER_PAGE_DEFAULT, LEDGER_PAGE_CAP);
    const since = parseInstant(q.since, 'since');
    const after = q.cursor === undefined ? undefined : LEDGER_CURSOR.decode(q.cursor, SCOPE);
    const rows = await this.repo.list(this.ds.manager, {
      since,
      after: after && { erasedAt: after[0], id: after[1] },
      limit: limit + 1,
    });
    const items = rows.slice(0, limit);
    const last = items[items.length - 1];
    return { items: items.map(toEntry), nextCursor: rows.length > limit ? LEDGER_CURSOR.encode(SCOPE, [last.erasedAt, last.id]) : null };
  }

  /**
   * Re-applies entries in one transaction (see applyIn). `by` (an operator, root, or the operator
   * command) is recorded in the operator audit.
   */
  apply(items: readonly ErasureEntryDto[], by: ActingOperator): Promise<ApplyErasuresResultDto> {
    return this.uow.run(async (tx) => {
      const erased = await this.applyIn(tx, items);
      await recordOperatorAction(tx.manager, by, { action: 'erasures.applied', details: { applied: items.length, erased } });
      return { applied: items.length, erased };
    });
  }

  /**
   * Inside `tx`: the ledger gains the entries it lacks, and every user of an entry's game whose id
   * hashes to it is erased again (no second ledger entry: it has one). Answers how many users.
   */
  async applyIn(tx: Tx, items: readonly ErasureEntryDto[]): Promise<number> {
    await this.repo.insertMissing(tx.manager, items);
    const byGame = new Map<string, string[]>();
    for (const i of items) byGame.set(i.gameId.toLowerCase(), [...(byGame.get(i.gameId.toLowerCase()) ?? []), i.subjectHash]);
    let erased = 0;
    for (const [gameId, hashes] of byGame) {
      for (const externalUserId of await this.repo.knownSubjects(tx.manager, gameId, hashes)) {
        await this.erasure.eraseIn(tx, gameId, externalUserId, { record: false });
        erased++;
      }
    }
    return erased;
  }
}
