import { Injectable } from '@nestjs/common';
import type { OperatorLookup, ResolvedOperator } from '../common/auth/operator-lookup';
import type { ActingOperator } from '../common/auth/operator-roles';
import { mintOperatorToken } from '../common/auth/operator-token';
import { ApiError } from '../common/errors/api-error';
import { isUuid, uuidv7 } from '../common/ids';
import { parsePageLimit } from '../common/pagination/page-limit';
import { toPage } from '../common/pagination/page';
import { iso, isoNN } from '../common/time';
import { UnitOfWork } from '../db/unit-of-work';
import { recordAccessRemoval } from '../ledger/access-removal';
import type { CreatedOperatorDto, CreateOperatorDto, OperatorAuditPageDto, OperatorAuditQueryDto, OperatorDto, OperatorListDto } from './dto/operator.dto';
import { recordOperatorAction } from './operator-audit';
import { OperatorsRepository, type AuditedBy, type OperatorAuditRow, type OperatorRow } from './operators.repository';

const AUDIT_DEFAULT_LIMIT = 50;
const AUDIT_CAP = 100;
/** A console reading page after page sends one lastUsedAt update a minute, not one per request. */
const TOUCH_EVERY_MS = 60_000;

/** Named operators and their roles, managed by owners (and the root token); and their audit. */
@Injectable()
export class OperatorsService implements OperatorLookup {
  constructor(
    private readonly repo: OperatorsRepository,
    private readonly uow: UnitOfWork,
  ) {}

  async create(body: CreateOperatorDto, by: ActingOperator): Promise<CreatedOperatorDto> {
    const minted = mintOperatorToken();
    const name = body.name.trim();
    const row = await this.uow.run(async (tx) => {
      const created = await this.repo.insert(tx.manager, { id: uuidv7(), name, role: body.role, prefix: minted.prefix, tokenHash: minted.secretHash });
      await recordOperatorAction(tx.manager, by, { action: 'operator.created', targetId: created.id, details: { name, role: body.role } });
      return created;
    });
    return { ...toDto(row), token: minted.token };
  }

  async list(): Promise<OperatorListDto> {
    return { items: (await this.repo.list()).map(toDto) };
  }

  /**
   * Every change is in the access ledger, a promotion too: after a restore from an older backup,
   * `ledger apply` lowers an operator to the last role recorded, never above what the backup holds.
   */
  async setRole(id: string, role: OperatorDto['role'], by: ActingOperator): Promise<OperatorDto> {
    if (!isUuid(id)) throw ApiError.notFound('operator');
    return this.uow.run(async (tx) => {
      const before = await this.repo.lockOne(tx.manager, id);
      if (!before) throw ApiError.notFound('operator');
      if (before.role === role) return toDto(before);
      const after = await this.repo.setRole(tx.manager, id, role);
      await recordOperatorAction(tx.manager, by, { action: 'operator.role_changed', targetId: id, details: { name: after.name, from: before.role, to: role } });
      await recordAccessRemoval(tx.manager, { kind: 'operator.role_changed', operatorId: id, role });
      return toDto(after);
    });
  }

  /**
   * The token stops working at once on every instance: the guard reads operators on each request.
   * The access ledger keeps the deletion, for a restore from an older backup.
   */
  async delete(id: string, by: ActingOperator): Promise<void> {
    if (!isUuid(id)) throw ApiError.notFound('operator');
    await this.uow.run(async (tx) => {
      const gone = await this.repo.lockOne(tx.manager, id);
      if (!gone) throw ApiError.notFound('operator');
      await this.repo.delete(tx.manager, id);
      await recordOperatorAction(tx.manager, by, { action: 'operator.deleted', targetId: id, details: { name: gone.name, role: gone.role } });
      await recordAccessRemoval(tx.manager, { kind: 'operator.deleted', operatorId: id });
    });
  }

  async audit(q: OperatorAuditQueryDto): Promise<OperatorAuditPageDto> {
    const limit = parsePageLimit(q.limit, AUDIT_DEFAULT_LIMIT, AUDIT_CAP);
    let by: AuditedBy | undefined;
    if (q.operatorId !== undefined) {
      if (q.operatorId === 'root' || q.operatorId === 'cli') by = { name: q.operatorId };
      else if (isUuid(q.operatorId)) by = { operatorId: q.operatorId };
      else throw ApiError.badRequest('operatorId must be an operator id, root or cli');
    }
    const rows = await this.repo.audit({ by, action: q.action, before: q.before, limit: limit + 1 });
    return toPage(rows, limit, toAuditDto, (r) => r.id);
  }

  find(prefix: string): Promise<ResolvedOperator | null> {
    return this.repo.byPrefix(prefix);
  }

  /** When this instance last sent each operator's lastUsedAt: the database keeps it to the minute anyway. */
  private readonly touched = new Map<string, number>();

  touch(id: string): void {
    const now = Date.now();
    if (now - (this.touched.get(id) ?? 0) < TOUCH_EVERY_MS) return;
    this.touched.set(id, now);
    // Bookkeeping only: a failed write must not fail the request it notes.
    this.repo.touch(id).catch(() => undefined);
  }
}

function toDto(r: OperatorRow): OperatorDto {
  return { id: r.id, name: r.name, role: r.role, createdAt: isoNN(r.createdAt), lastUsedAt: iso(r.lastUsedAt) };
}

function toAuditDto(r: OperatorAuditRow) {
  return { id: r.id, at: isoNN(r.at), operatorId: r.operatorId, operatorName: r.operatorName, action: r.action, gameId: r.gameId, targetId: r.targetId, details: r.details };
}
