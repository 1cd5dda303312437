import { Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { logFailure } from '../common/errors/log-failure';
import { iso } from '../common/time';
import { PeriodicTask } from '../common/scheduling/periodic-task';
import { sqlRows } from '../db/sql';
import { UnitOfWork, type Tx } from '../db/unit-of-work';
import { MEMBER_COLUMNS, type MemberRow } from '../members/member-row';
import { toMemberDto } from '../members/member-view';
import { PermissionCache } from './permission-cache';

/** EXTENSIONS X8 and X10: an expired grant is removed, and an ended timeout lifted, within 60 s; every instance looks this often. */
export const GRANT_SWEEP_EVERY_MS = 15_000;
/** Grants removed per transaction: each batch commits on its own. */
export const GRANT_SWEEP_BATCH = 500;

interface Removed {
  memberId: string;
  groupId: string;
  gameId: string;
  userId: string;
}

/**
 * Removes the grants past their expiry, as their removal through the API would (audit entry, the
 * event of a role removal, the groups' cached answers dropped everywhere), with no actor and
 * `reason: "expired"`. Every answer treats such a grant as absent from its expiry on already; this
 * only tidies up. Every instance sweeps: `FOR UPDATE SKIP LOCKED` gives each grant to one of
 * them, and a grant granted again meanwhile (its row locked or its expiry moved) is left alone.
 */
@Injectable()
export class GrantSweeper implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(GrantSweeper.name);
  private readonly task = new PeriodicTask(async () => {
    await this.sweep();
  });

  constructor(
    private readonly uow: UnitOfWork,
    private readonly cache: PermissionCache,
    private readonly registry: SchedulerRegistry,
  ) {}

  onApplicationBootstrap(): void {
    const run = () => this.task.trigger().catch((err) => logFailure(this.logger, err, 'grant expiry sweep failed'));
    this.registry.addInterval('grant-sweeper', setInterval(run, GRANT_SWEEP_EVERY_MS));
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.registry.deleteInterval('grant-sweeper');
    await this.task.stop(30_000);
  }

  /** Every grant and member timeout due now, batch by batch; answers how many role assignments, overrides and timeouts went. */
  async sweep(): Promise<{ roles: number; overrides: number; timeouts: number }> {
    const removed = { roles: 0, overrides: 0, timeouts: 0 };
    for (;;) {
      const batch = await this.uow.run(async (tx) => ({ roles: await this.roles(tx), overrides: await this.overrides(tx), timeouts: await this.timeouts(tx) }));
      removed.roles += batch.roles;
      removed.overrides += batch.overrides;
      removed.timeouts += batch.timeouts;
      if (batch.roles < GRANT_SWEEP_BATCH && batch.overrides < GRANT_SWEEP_BATCH && batch.timeouts < GRANT_SWEEP_BATCH) return removed;
    }
  }

  /**
   * EXTENSIONS X10: a timeout that ended is lifted with `reason: "expired"`, as the DELETE would
   * lift it, within 60 s of its end (every check already stopped denying at the end itself).
   */
  private async timeouts(tx: Tx): Promise<number> {
    const lifted = await sqlRows<MemberRow & { gameId: string; until: Date }>(
      tx.manager,
      `WITH due AS (
         SELECT m.id, m.timed_out_until FROM members m WHERE m.timed_out_until <= now()
         ORDER BY m.timed_out_until LIMIT $1 FOR UPDATE SKIP LOCKED
       )
       UPDATE members m SET timed_out_until = NULL FROM due WHERE m.id = due.id
       RETURNING ${MEMBER_COLUMNS}, due.timed_out_until AS until, (SELECT g.game_id FROM groups g WHERE g.id = m.group_id) AS "gameId"`,
      [GRANT_SWEEP_BATCH],
    );
    for (const m of lifted) {
      const until = iso(m.until);
      tx.audit({ gameId: m.gameId, groupId: m.groupId, action: 'member.timeout_lifted', targetId: m.userId, payload: { memberId: m.id, until, reason: 'expired' } });
      tx.emit({ type: 'member.timeout_lifted', gameId: m.gameId, groupId: m.groupId, data: { member: toMemberDto(m), until, reason: 'expired' } });
    }
    this.invalidate(tx, lifted.map((m) => ({ memberId: m.id, groupId: m.groupId, gameId: m.gameId, userId: m.userId })));
    return lifted.length;
  }

  private async roles(tx: Tx): Promise<number> {
    const gone = await sqlRows<Removed & { roleId: string }>(
      tx.manager,
      `WITH due AS (
         SELECT mr.member_id, mr.role_id FROM member_roles mr WHERE mr.expires_at <= now()
         ORDER BY mr.expires_at LIMIT $1 FOR UPDATE SKIP LOCKED
       ), gone AS (
         DELETE FROM member_roles mr USING due WHERE mr.member_id = due.member_id AND mr.role_id = due.role_id
         RETURNING mr.member_id, mr.role_id
       )
       SELECT gone.member_id AS "memberId", gone.role_id AS "roleId", m.group_id AS "groupId", g.game_id AS "gameId", m.external_user_id AS "userId"
       FROM gone JOIN members m ON m.id = gone.member_id JOIN groups g ON g.id = m.group_id`,
      [GRANT_SWEEP_BATCH],
    );
    if (!gone.length) return 0;
    for (const r of gone) {
      tx.audit({ gameId: r.gameId, groupId: r.groupId, action: 'member.role.removed', targetId: r.userId, payload: { memberId: r.memberId, roleId: r.roleId, reason: 'expired' } });
    }
    // The members after the removal, read in the same transaction, for the events a removal sends.
    const members = await sqlRows<MemberRow & { gameId: string }>(
      tx.manager,
      `SELECT ${MEMBER_COLUMNS}, g.game_id AS "gameId" FROM members m JOIN groups g ON g.id = m.group_id WHERE m.id = ANY ($1::uuid[])`,
      [[...new Set(gone.map((r) => r.memberId))]],
    );
    for (const m of members) {
      tx.emit({ type: 'member.updated', gameId: m.gameId, groupId: m.groupId, data: { member: toMemberDto(m), changes: ['roles'], reason: 'expired' } });
    }
    this.invalidate(tx, gone);
    return gone.length;
  }

  private async overrides(tx: Tx): Promise<number> {
    const gone = await sqlRows<Removed & { permission: string; allowed: boolean }>(
      tx.manager,
      `WITH due AS (
         SELECT o.member_id, o.permission FROM member_permission_overrides o WHERE o.expires_at <= now()
         ORDER BY o.expires_at LIMIT $1 FOR UPDATE SKIP LOCKED
       ), gone AS (
         DELETE FROM member_permission_overrides o USING due WHERE o.member_id = due.member_id AND o.permission = due.permission
         RETURNING o.member_id, o.permission, o.allowed
       )
       SELECT gone.member_id AS "memberId", gone.permission, gone.allowed, m.group_id AS "groupId", g.game_id AS "gameId", m.external_user_id AS "userId"
       FROM gone JOIN members m ON m.id = gone.member_id JOIN groups g ON g.id = m.group_id`,
      [GRANT_SWEEP_BATCH],
    );
    for (const r of gone) {
      tx.audit({
        gameId: r.gameId,
        groupId: r.groupId,
        action: 'permission.override.cleared',
        targetId: r.userId,
        payload: { memberId: r.memberId, permission: r.permission, allowed: r.allowed, reason: 'expired' },
      });
    }
    this.invalidate(tx, gone);
    return gone.length;
  }

  private invalidate(tx: Tx, gone: readonly Removed[]): void {
    for (const groupId of new Set(gone.map((r) => r.groupId))) this.cache.invalidateOnCommit(tx, groupId);
  }
}
