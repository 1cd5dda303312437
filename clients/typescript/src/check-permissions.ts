import type { GuildhallClient } from './client.js';
import { GuildhallError } from './errors.js';
import type { components } from './schema.js';

/** One question: may `userId` do `permission` in `groupId`? */
export type PermissionCheck = components['schemas']['BatchCheckItemDto'];
/** The single check's answer, or `error` (`not_found`) when the group is missing, deleted or another game's. */
export type PermissionCheckAnswer = components['schemas']['BatchCheckResultDto'];

/** The most checks one request carries (POST /v1/permissions/check-batch). */
export const CHECKS_PER_REQUEST = 100;

/**
 * The answers to any number of checks, in order: sent 100 to a request, one request after the
 * other (each batch is read from one snapshot; two batches may be a moment apart). An error
 * answer throws `GuildhallError`; a group not found is an answer with `error`, not a throw.
 *
 * @example const [kick, invite] = await checkPermissions(client, [{ userId, groupId, permission: 'guild.kick' }, { userId, groupId, permission: 'guild.invite' }]);
 */
export async function checkPermissions(client: GuildhallClient, checks: readonly PermissionCheck[]): Promise<PermissionCheckAnswer[]> {
  const answers: PermissionCheckAnswer[] = [];
  for (let i = 0; i < checks.length; i += CHECKS_PER_REQUEST) {
    const { data, error, response } = await client.POST('/v1/permissions/check-batch', { body: { checks: checks.slice(i, i + CHECKS_PER_REQUEST) } });
    if (error !== undefined || data === undefined) throw GuildhallError.fromResponse(response, error);
    answers.push(...data.results);
  }
  return answers;
}
