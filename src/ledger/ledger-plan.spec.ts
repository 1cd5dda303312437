import type { LedgerEntry } from './ledger-entry';
import { planLedger } from './ledger-plan';

const KEY = '0190f2a4-0000-7000-8000-00000000000a';
const GAME = '0190f2a4-0000-7000-8000-00000000000b';
const ANA = '0190f2a4-0000-7000-8000-00000000000c';
const BOB = '0190f2a4-0000-7000-8000-00000000000d';
let n = 0;
const id = () => `0190f2a4-0000-7000-8000-${String(++n).padStart(12, '0')}`;
const at = (minute: number) => `2026-11-27T10:${String(minute).padStart(2, '0')}:00.000Z`;
const role = (operatorId: string, r: 'viewer' | 'moderator' | 'admin' | 'owner', minute: number): LedgerEntry => ({
  kind: 'operator.role_changed',
  id: id(),
  at: at(minute),
  operatorId,
  role: r,
});

describe('planLedger', () => {
  it("an operator ends with the last role recorded, in whatever order the file lists them: a downgrade undone later is not applied", () => {
    const plan = planLedger([role(ANA, 'moderator', 3), role(ANA, 'viewer', 1), role(BOB, 'viewer', 2), role(BOB, 'owner', 1)]);
    expect(plan.roles).toEqual([
      { operatorId: ANA, role: 'moderator' },
      { operatorId: BOB, role: 'viewer' },
    ]);
  });

  it('two changes at the same millisecond: the lower role', () => {
    expect(planLedger([role(ANA, 'admin', 5), role(ANA, 'viewer', 5)]).roles).toEqual([{ operatorId: ANA, role: 'viewer' }]);
    expect(planLedger([role(ANA, 'viewer', 5), role(ANA, 'admin', 5)]).roles).toEqual([{ operatorId: ANA, role: 'viewer' }]);
  });

  it('a deleted operator is deleted, and no role is set for them', () => {
    const plan = planLedger([role(ANA, 'viewer', 1), { kind: 'operator.deleted', id: id(), at: at(2), operatorId: ANA }]);
    expect(plan).toMatchObject({ deletions: [ANA], roles: [] });
  });

  it('a key revoked twice (two timelines) is revoked at its earliest time', () => {
    const revoke = (minute: number): LedgerEntry => ({ kind: 'api_key.revoked', id: id(), at: at(minute), gameId: GAME, keyId: KEY });
    expect(planLedger([revoke(9), revoke(4), revoke(7)]).revocations).toEqual([{ keyId: KEY, gameId: GAME, at: at(4) }]);
  });

  it('erasures go to the erasure ledger as it lists them', () => {
    const e: LedgerEntry = { kind: 'user.erased', id: id(), at: at(1), gameId: GAME, subjectHash: 'b'.repeat(64) };
    expect(planLedger([e]).erasures).toEqual([{ id: e.id, gameId: GAME, subjectHash: e.subjectHash, erasedAt: e.at }]);
  });
});
