import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { uuidv7 } from '../common/ids';
import { sqlRows, unitOfWorkClient } from '../db/sql';
import type { Alongside } from '../groups/groups.repository';
import { externalKey } from '../identity/identity.repository';
import { INVITATION_COLUMNS, INVITATION_GROUP_COLUMNS, type InvitationRow, type InvitationRowWithGroup } from './invitation-row';

export interface NewInvitation {
  gameId: string;
  groupId: string;
  roleId: string | null;
  targetUserId: string | null;
  invitedByUserId: string | null;
  expiresAt: Date | null;
  maxUses: number;
}

/** An invitation with what its routes need to know of its group. */
export type InvitationWithGroup = InvitationRow & { gameId: string; groupDeleted: boolean; expired: boolean };

/** Counts one accept (EXTENSIONS X4); the accept that reaches max_uses uses the code up, by `redeemer`. */
const redeemSet = (redeemer: string) => `UPDATE invitations i SET uses = i.uses + 1,
         used_at = CASE WHEN i.uses + 1 = i.max_uses THEN now() END,
         used_by = CASE WHEN i.uses + 1 = i.max_uses THEN ${redeemer} END`;

const REDEEMABLE = 'i.used_at IS NULL AND i.uses < i.max_uses';

/**
 * `redeem`, made in the group lookup's statement (GroupLookup.liveWithUser) for a user the game
 * knows, as `redeemed`: the accept's activation (invitedActivationAlongside) follows it there.
 */
export function redeemAlongside(id: string): Alongside {
  return (p) => `redeemed AS (
       ${redeemSet('l."svcUserId"')}
       FROM lookup l WHERE i.id = ${p(id)} AND l."svcUserId" IS NOT NULL AND ${REDEEMABLE}
       RETURNING i.id)`;
}

const INSERT_INVITATION = 'INSERT INTO invitations AS i (id, game_id, group_id, code, role_id, target_user_id, invited_by_user_id, expires_at, max_uses)';

/** A new invitation's code: 16 hex digits. */
const newCode = () => randomBytes(8).toString('hex');

/** What an invitation made in the group lookup's statement is given: NewInvitation but its group, the lookup's. */
export type NewInvitationOfLookup = Omit<NewInvitation, 'gameId' | 'groupId'>;

/**
 * The insert of an invitation into the lookup's group, made in its statement (GroupLookup.liveWithUser)
 * when the group is live, as `alongside`: the invitation as JSON (alongsideInvitation), none when
 * the group is gone or the code drawn is taken (vanishingly rare: InvitationsRepository.insert then
 * draws again).
 */
export function createdAlongside(inv: NewInvitationOfLookup): Alongside {
  return (p) => `alongside AS (
       ${INSERT_INVITATION}
       SELECT ${p(uuidv7())}::uuid, l."gameId", l.id, ${p(newCode())}::text, ${p(inv.roleId)}::text, ${p(inv.targetUserId)}::text,
              ${p(inv.invitedByUserId)}::text, ${p(inv.expiresAt)}::timestamptz, ${p(inv.maxUses)}::int
       FROM lookup l WHERE l."softDeletedAt" IS NULL
       ON CONFLICT (code) DO NOTHING RETURNING ${INVITATION_COLUMNS})`;
}

/** The invitation createdAlongside wrote, from its JSON. */
export function alongsideInvitation(json: Record<string, unknown>): InvitationRow {
  const at = (v: unknown) => (v === null ? null : new Date(v as string));
  const row = json as unknown as InvitationRow;
  return { ...row, createdAt: new Date(json.createdAt as string), expiresAt: at(json.expiresAt), usedAt: at(json.usedAt) };
}

@Injectable()
export class InvitationsRepository {
  /** Inserts with a fresh 16-hex code; a (vanishingly rare) code collision draws again. */
  async insert(m: EntityManager, inv: NewInvitation): Promise<InvitationRow> {
    for (;;) {
      const [row] = await sqlRows<InvitationRow>(
        m,
        `${INSERT_INVITATION}
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (code) DO NOTHING RETURNING ${INVITATION_COLUMNS}`,
        [uuidv7(), inv.gameId, inv.groupId, newCode(), inv.roleId, inv.targetUserId, inv.invitedByUserId, inv.expiresAt, inv.maxUses],
      );
      if (row) return row;
    }
  }

  /**
   * By code, with its group's game and deletion state and its expiry by the database clock; `lock`
   * serialises redemptions of the code. In a unit of work, on a generic plan made without
   * sequential scans (ServiceClient.genericPlanNext), whose only path is the code's index: the plan
   * `auto` kept on a connection from when the table held a few rows read it whole on every call
   * after, until the next ANALYZE (on the bench's new database, up to 6,000 invitations an accept,
   * 1-4 ms). The group is read in a subquery of its own (OFFSET 0 keeps it one) rather than joined:
   * a join on the group's id made the index by group, read whole in its order, a path as cheap as
   * the code's on a small table.
   */
  async findByCode(m: EntityManager, code: string, lock = false): Promise<InvitationWithGroup | null> {
    unitOfWorkClient(m)?.genericPlanNext();
    const [row] = await sqlRows<InvitationWithGroup>(
      m,
      `SELECT ${INVITATION_COLUMNS}, g.game_id AS "gameId", g.soft_deleted_at IS NOT NULL AS "groupDeleted",
              coalesce(i.expires_at <= now(), false) AS expired
       FROM invitations i, LATERAL (SELECT game_id, soft_deleted_at FROM groups WHERE id = i.group_id OFFSET 0) g
       WHERE i.code = $1${lock ? ' FOR UPDATE OF i' : ''}`,
      [code],
    );
    return row ?? null;
  }

  /** By code, for the public preview: with its group's summary (EXTENSIONS X6) and deletion state. */
  async findPreview(m: EntityManager, code: string): Promise<(InvitationRowWithGroup & { groupDeleted: boolean }) | null> {
    const [row] = await sqlRows<InvitationRowWithGroup & { groupDeleted: boolean }>(
      m,
      `SELECT ${INVITATION_COLUMNS}, ${INVITATION_GROUP_COLUMNS}, g.soft_deleted_at IS NOT NULL AS "groupDeleted"
       FROM invitations i JOIN groups g ON g.id = i.group_id
       WHERE i.code = $1`,
      [code],
    );
    return row ?? null;
  }

  /**
   * Counts one accept (EXTENSIONS X4); the accept that reaches max_uses uses the code up. The
   * condition is the database's guard that uses never pass max_uses; null when the code is used up.
   */
  async redeem(m: EntityManager, id: string, redeemer: string): Promise<InvitationRow | null> {
    const [row] = await sqlRows<InvitationRow>(m, `${redeemSet('$2::uuid')} WHERE i.id = $1 AND ${REDEEMABLE} RETURNING ${INVITATION_COLUMNS}`, [id, redeemer]);
    return row ?? null;
  }

  /** Uses the code up without an accept (a decline). */
  async markUsed(m: EntityManager, id: string, usedBy: string | null): Promise<InvitationRow> {
    const [row] = await sqlRows<InvitationRow>(
      m,
      `UPDATE invitations i SET used_at = now(), used_by = $2 WHERE i.id = $1 RETURNING ${INVITATION_COLUMNS}`,
      [id, usedBy],
    );
    return row;
  }

  async delete(m: EntityManager, id: string): Promise<void> {
    await m.query('DELETE FROM invitations WHERE id = $1', [id]);
  }

  /** Keyset page in (createdAt, id) descending order, on invitations_group_order. */
  list(
    m: EntityManager,
    groupId: string,
    opts: { includeUsed: boolean; includeExpired: boolean; after?: { createdAt: string; id: string }; limit: number },
  ): Promise<InvitationRow[]> {
    const params: unknown[] = [groupId, opts.limit + 1];
    const where = ['i.group_id = $1'];
    if (!opts.includeUsed) where.push('i.used_at IS NULL');
    if (!opts.includeExpired) where.push('(i.expires_at IS NULL OR i.expires_at > now())');
    if (opts.after) {
      params.push(opts.after.createdAt, opts.after.id);
      where.push(`(i.created_at, i.id) < ($3::timestamptz, $4::uuid)`);
    }
    return sqlRows<InvitationRow>(
      m,
      `SELECT ${INVITATION_COLUMNS} FROM invitations i WHERE ${where.join(' AND ')}
       ORDER BY i.created_at DESC, i.id DESC LIMIT $2`,
      params,
    );
  }

  /**
   * A user's inbox (EXTENSIONS X6): the game's invitations targeted at that external id that can be
   * accepted now (not used up, not expired, group live), newest first, as a keyset page on
   * invitations_target_inbox. A revoked invitation is deleted, so it is not here either. The
   * target is matched as stored, whether or not the game knows the user.
   */
  inbox(
    m: EntityManager,
    gameId: string,
    userId: string,
    opts: { after?: { createdAt: string; id: string }; limit: number },
  ): Promise<InvitationRowWithGroup[]> {
    const params: unknown[] = [gameId, userId, opts.limit + 1];
    let after = '';
    if (opts.after) {
      params.push(opts.after.createdAt, opts.after.id);
      after = 'AND (i.created_at, i.id) < ($4::timestamptz, $5::uuid)';
    }
    return sqlRows<InvitationRowWithGroup>(
      m,
      `SELECT ${INVITATION_COLUMNS}, ${INVITATION_GROUP_COLUMNS}
       FROM invitations i JOIN groups g ON g.id = i.group_id
       WHERE i.game_id = $1 AND ${externalKey('i.target_user_id')} = ${externalKey('$2')} AND i.target_user_id = $2
         AND i.used_at IS NULL AND (i.expires_at IS NULL OR i.expires_at > now())
         AND g.soft_deleted_at IS NULL ${after}
       ORDER BY i.created_at DESC, i.id DESC LIMIT $3`,
      params,
    );
  }
}
