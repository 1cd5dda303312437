import { LedgerProblem } from '../erasures/dto/erasure.dto';
import { parseLedger } from './ledger-entry';

const ID = '0190f2a4-0000-7000-8000-000000000001';
const GAME = '0190f2a4-0000-7000-8000-000000000002';
const OTHER = '0190f2a4-0000-7000-8000-000000000003';
const AT = '2026-11-27T10:15:02.113Z';
const HASH = 'a'.repeat(64);

/** The path and reason a body is refused with. */
function problem(body: unknown): { path: readonly (string | number)[]; reason: string } {
  try {
    parseLedger(body);
  } catch (err) {
    expect(err).toBeInstanceOf(LedgerProblem);
    return { path: (err as LedgerProblem).path, reason: (err as LedgerProblem).reason };
  }
  throw new Error('accepted');
}

describe('parseLedger', () => {
  it('reads every kind, and an erasure as erasures:export writes it (no kind) as user.erased', () => {
    const items = [
      { kind: 'user.erased', id: ID, at: AT, gameId: GAME, subjectHash: HASH },
      { kind: 'api_key.revoked', id: ID, at: AT, gameId: GAME, keyId: OTHER, prefix: 'ignored' },
      { kind: 'operator.deleted', id: ID, at: AT, operatorId: OTHER },
      { kind: 'operator.role_changed', id: ID, at: AT, operatorId: OTHER, role: 'viewer' },
      { id: ID, gameId: GAME, subjectHash: HASH, erasedAt: AT },
    ];
    expect(parseLedger({ items })).toEqual([
      { kind: 'user.erased', id: ID, at: AT, gameId: GAME, subjectHash: HASH },
      { kind: 'api_key.revoked', id: ID, at: AT, gameId: GAME, keyId: OTHER },
      { kind: 'operator.deleted', id: ID, at: AT, operatorId: OTHER },
      { kind: 'operator.role_changed', id: ID, at: AT, operatorId: OTHER, role: 'viewer' },
      { kind: 'user.erased', id: ID, at: AT, gameId: GAME, subjectHash: HASH },
    ]);
  });

  it.each<[string, unknown, (string | number)[], RegExp]>([
    ['a list', [], [], /one JSON object/],
    ['no items', {}, ['items'], /array of ledger entries/],
    ['an entry that is not an object', { items: [1] }, ['items', 0], /JSON object/],
    ['an unknown kind', { items: [{ kind: 'game.deleted', id: ID, at: AT }] }, ['items', 0, 'kind'], /must be one of user.erased, api_key.revoked/],
    ['an uppercase id', { items: [{ kind: 'operator.deleted', id: ID.toUpperCase(), at: AT, operatorId: OTHER }] }, ['items', 0, 'id'], /lowercase UUID/],
    ['another form of the instant', { items: [{ kind: 'operator.deleted', id: ID, at: '2026-11-27T10:15:02Z', operatorId: OTHER }] }, ['items', 0, 'at'], /UTC with milliseconds/],
    ['a revocation without its key', { items: [{ kind: 'api_key.revoked', id: ID, at: AT, gameId: GAME }] }, ['items', 0, 'keyId'], /lowercase UUID/],
    ['an unknown role', { items: [{ kind: 'operator.role_changed', id: ID, at: AT, operatorId: OTHER, role: 'root' }] }, ['items', 0, 'role'], /viewer, moderator, admin, owner/],
    ['a bad hash', { items: [{ kind: 'user.erased', id: ID, at: AT, gameId: GAME, subjectHash: 'nope' }] }, ['items', 0, 'subjectHash'], /64 lowercase hex/],
    ['an old erasure without its time', { items: [{ id: ID, gameId: GAME, subjectHash: HASH }] }, ['items', 0, 'erasedAt'], /UTC with milliseconds/],
  ])('refuses %s, naming where', (_case, body, path, reason) => {
    const found = problem(body);
    expect(found.path).toEqual(path);
    expect(found.reason).toMatch(reason);
  });
});
