import { isUuid } from '../common/ids';

/**
 * An advisory lock a write holds to its end: a key of its own (a user's, a friend pair's), or a
 * group's lock, whose key PostgreSQL derives from the group's id.
 */
export type AdvisoryLock = ({ key: bigint | string } | { group: string }) & { exclusive: boolean };

/**
 * The seed of a group's lock key: the one the procedures `svc_lock_group_members` and
 * `svc_lock_group` hash a group's id with (migration MemberCountDeltas1764600000000), so that a
 * release still taking them by CALL and this one take the same lock.
 */
const GROUP_LOCK_SEED = '7310422101';

/**
 * Every lock of one batch in one statement, taken in the order given (a FunctionScan yields its rows
 * in order and the aggregate calls each row's lock in turn). It is a named statement with its keys
 * as parameters, parsed and planned once per connection: the CALLs it replaces were parsed each
 * time and each ran a PL/pgSQL statement of its own (two CALLs cost PostgreSQL about twice this).
 */
export const ADVISORY_LOCKS_SQL = `SELECT count(CASE WHEN l.x THEN pg_advisory_xact_lock(l.k) ELSE pg_advisory_xact_lock_shared(l.k) END)
  FROM (SELECT coalesce(u.k, hashtextextended(u.g::text, ${GROUP_LOCK_SEED})) AS k, u.x
        FROM unnest($1::bigint[], $2::uuid[], $3::bool[]) AS u(k, g, x)) l`;

/** The name the locks' statement is prepared under on each connection. */
export const ADVISORY_LOCKS_STATEMENT = 'svc_advisory_locks';

const KEY = /^-?\d{1,19}$/;

/** The statement's parameters for `locks`, as array literals; throws on a key or group id that is not one. */
export function advisoryLockValues(locks: readonly AdvisoryLock[]): [string, string, string] {
  const keys: (string | null)[] = [];
  const groups: (string | null)[] = [];
  for (const lock of locks) {
    if ('group' in lock) {
      if (!isUuid(lock.group)) throw new Error(`not a group id: ${JSON.stringify(lock.group.slice(0, 40))}`);
      keys.push(null);
      groups.push(lock.group);
    } else {
      const key = String(lock.key);
      if (!KEY.test(key)) throw new Error(`not a lock key: ${JSON.stringify(key.slice(0, 40))}`);
      keys.push(key);
      groups.push(null);
    }
  }
  const literal = (items: readonly (string | null)[]) => `{${items.map((i) => i ?? 'NULL').join(',')}}`;
  return [literal(keys), literal(groups), literal(locks.map((l) => (l.exclusive ? 't' : 'f')))];
}
