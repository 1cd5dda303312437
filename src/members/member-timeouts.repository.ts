import type { Alongside } from '../groups/groups.repository';
import { LOOKUP_MEMBER, MEMBER_COLUMNS } from './member-row';

/**
 * Times out the active member the group lookup names until `until`, replacing the end of one in
 * force, in the lookup's statement (GroupsRepository.findWithUser); no row when the user is no
 * active member.
 */
export function timeoutAlongside(until: Date): Alongside {
  return (p) => `alongside AS (
       UPDATE members m SET timed_out_until = ${p(until)}::timestamptz
       FROM lookup l WHERE m.group_id = l.id AND m.user_id = l."svcUserId" AND m.status = 'active'
       RETURNING ${MEMBER_COLUMNS})`;
}

/**
 * Lifts the timeout of the member the group lookup names, in any status, if one is in force at
 * `now`. The row comes back as it stood, with `liftedUntil`: the end the lifted timeout had (null
 * when none was in force, and nothing was written).
 */
export function liftTimeoutAlongside(now: Date): Alongside {
  return (p) => {
    const nowRef = p(now);
    return `prev AS (SELECT m.id, m.timed_out_until FROM ${LOOKUP_MEMBER} FOR UPDATE OF m),
     lifted AS (
       UPDATE members m SET timed_out_until = NULL FROM prev
       WHERE m.id = prev.id AND prev.timed_out_until > ${nowRef}::timestamptz RETURNING prev.timed_out_until),
     alongside AS (SELECT ${MEMBER_COLUMNS}, (SELECT timed_out_until FROM lifted) AS "liftedUntil" FROM ${LOOKUP_MEMBER})`;
  };
}
