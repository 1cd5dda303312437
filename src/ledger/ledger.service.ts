import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { ActingOperator } from '../common/auth/operator-roles';
import { UnitOfWork } from '../db/unit-of-work';
import { ErasureLedgerService } from '../erasures/erasure-ledger.service';
import { API_KEYS_CHANNEL } from '../games/api-key-cache';
import { recordOperatorAction } from '../operators/operator-audit';
import type { LedgerEntry } from './ledger-entry';
import { planLedger } from './ledger-plan';
import { LedgerRepository } from './ledger.repository';

/** What an apply changed; every count is 0 when the database already had it all. */
export interface LedgerApplied {
  /** Entries in the file, all of which the database's ledger now holds. */
  applied: number;
  erased: number;
  keysRevoked: number;
  operatorsDeleted: number;
  rolesLowered: number;
}

/**
 * The ledger of removed access: erasures, API key revocations, operator deletions and role
 * changes. The operator exports it to storage a restore does not roll back, and applies it to a
 * database restored from an older backup, before traffic, so that no removed access comes back.
 */
@Injectable()
export class LedgerService {
  constructor(
    private readonly ds: DataSource,
    private readonly uow: UnitOfWork,
    private readonly repo: LedgerRepository,
    private readonly erasures: ErasureLedgerService,
  ) {}

  /** Every entry from `since` on, oldest first. */
  list(since?: Date): Promise<LedgerEntry[]> {
    return this.repo.list(this.ds.manager, since);
  }

  /**
   * Applies entries in one transaction, recorded in the operator audit as `ledger.applied` by `by`.
   * Idempotent: a key keeps its first revocation time, a deleted operator stays deleted, a role is
   * only ever lowered (to the last one recorded), an erased player is erased once.
   */
  apply(entries: readonly LedgerEntry[], by: ActingOperator): Promise<LedgerApplied> {
    const plan = planLedger(entries);
    return this.uow.run(async (tx) => {
      const erased = await this.erasures.applyIn(tx, plan.erasures);
      await this.repo.insertMissing(tx.manager, entries);
      const revoked = await this.repo.revokeKeys(tx.manager, plan.revocations);
      // A running instance (there should be none before traffic) drops its cached copy at once.
      for (const prefix of revoked) tx.notify(API_KEYS_CHANNEL, prefix);
      const operatorsDeleted = await this.repo.deleteOperators(tx.manager, plan.deletions);
      const rolesLowered = await this.repo.lowerRoles(tx.manager, plan.roles);
      const result = { applied: entries.length, erased, keysRevoked: revoked.length, operatorsDeleted, rolesLowered };
      await recordOperatorAction(tx.manager, by, { action: 'ledger.applied', details: { ...result } });
      return result;
    });
  }
}
