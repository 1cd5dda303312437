import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { OPERATOR_ROLES, type OperatorRole } from '../common/auth/operator-roles';
import { sqlRows } from '../db/sql';
import type { LedgerEntry, LedgerKind } from './ledger-entry';
import type { LedgerPlan } from './ledger-plan';

interface LedgerRow {
  kind: LedgerKind;
  id: string;
  at: Date;
  gameId: string | null;
  targetId: string | null;
  subjectHash: string | null;
  role: OperatorRole | null;
}

/** A row of access_ledger as jsonb_to_recordset reads it. */
interface AccessRow {
  id: string;
  kind: LedgerKind;
  at: string;
  game_id: string | null;
  target_id: string;
  role: OperatorRole | null;
}

/** A row as the export writes it: the fields of its kind, in a fixed order. */
function toEntry(r: LedgerRow): LedgerEntry {
  const head = { id: r.id, at: r.at.toISOString() };
  switch (r.kind) {
    case 'user.erased':
      return { kind: r.kind, ...head, gameId: r.gameId!, subjectHash: r.subjectHash! };
    case 'api_key.revoked':
      return { kind: r.kind, ...head, gameId: r.gameId!, keyId: r.targetId! };
    case 'operator.deleted':
      return { kind: r.kind, ...head, operatorId: r.targetId! };
    case 'operator.role_changed':
      return { kind: r.kind, ...head, operatorId: r.targetId!, role: r.role! };
  }
}

/** The ledger: erasures (table `erasures`) and the other removals of access (table `access_ledger`). */
@Injectable()
export class LedgerRepository {
  /** Every entry from `since` on, oldest first, in one statement: one snapshot of both tables. */
  async list(m: EntityManager, since?: Date): Promise<LedgerEntry[]> {
    const rows = await sqlRows<LedgerRow>(
      m,
      `SELECT x.kind, x.id, x.at, x.game_id AS "gameId", x.target_id AS "targetId", x.subject_hash AS "subjectHash", x.role
       FROM (
         SELECT 'user.erased' AS kind, e.id, e.erased_at AS at, e.game_id, NULL::uuid AS target_id, e.subject_hash, NULL AS role FROM erasures e
         UNION ALL
         SELECT a.kind, a.id, a.at, a.game_id, a.target_id, NULL, a.role FROM access_ledger a
       ) x
       WHERE $1::timestamptz IS NULL OR x.at >= $1::timestamptz
       ORDER BY x.at, x.id`,
      [since?.toISOString() ?? null],
    );
    return rows.map(toEntry);
  }

  /** Adds the removals the table lacks (a restore lost them), by id. */
  async insertMissing(m: EntityManager, entries: readonly LedgerEntry[]): Promise<void> {
    const rows = entries.flatMap((e): AccessRow[] => {
      if (e.kind === 'api_key.revoked') return [{ id: e.id, kind: e.kind, at: e.at, game_id: e.gameId, target_id: e.keyId, role: null }];
      if (e.kind === 'operator.deleted') return [{ id: e.id, kind: e.kind, at: e.at, game_id: null, target_id: e.operatorId, role: null }];
      if (e.kind === 'operator.role_changed') return [{ id: e.id, kind: e.kind, at: e.at, game_id: null, target_id: e.operatorId, role: e.role }];
      return [];
    });
    await m.query(
      `INSERT INTO access_ledger (id, kind, at, game_id, target_id, role)
       SELECT id, kind, at, game_id, target_id, role FROM jsonb_to_recordset($1::jsonb)
         AS x(id uuid, kind text, at timestamptz, game_id uuid, target_id uuid, role text)
       ON CONFLICT (id) DO NOTHING`,
      [JSON.stringify(rows)],
    );
  }

  /** Revokes the keys not revoked yet, at the recorded time; answers their prefixes. */
  async revokeKeys(m: EntityManager, revocations: LedgerPlan['revocations']): Promise<string[]> {
    const rows = await sqlRows<{ prefix: string }>(
      m,
      `UPDATE api_keys k SET revoked_at = x.at
       FROM jsonb_to_recordset($1::jsonb) AS x(key_id uuid, game_id uuid, at timestamptz)
       WHERE k.id = x.key_id AND k.game_id = x.game_id AND k.revoked_at IS NULL
       RETURNING k.prefix`,
      [JSON.stringify(revocations.map((r) => ({ key_id: r.keyId, game_id: r.gameId, at: r.at })))],
    );
    return rows.map((r) => r.prefix);
  }

  /** Answers how many of the operators were still there. */
  async deleteOperators(m: EntityManager, ids: readonly string[]): Promise<number> {
    const rows = await sqlRows(m, `DELETE FROM operators WHERE id = ANY ($1::uuid[]) RETURNING id`, [ids]);
    return rows.length;
  }

  /** Sets each operator whose role is above the given one to it; never raises one. Answers how many changed. */
  async lowerRoles(m: EntityManager, roles: LedgerPlan['roles']): Promise<number> {
    const rows = await sqlRows(
      m,
      `UPDATE operators o SET role = x.role
       FROM jsonb_to_recordset($1::jsonb) AS x(id uuid, role text)
       WHERE o.id = x.id AND array_position($2::text[], o.role) > array_position($2::text[], x.role)
       RETURNING o.id`,
      [JSON.stringify(roles.map((r) => ({ id: r.operatorId, role: r.role }))), OPERATOR_ROLES],
    );
    return rows.length;
  }
}
