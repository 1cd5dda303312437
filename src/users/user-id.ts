import { ApiError } from '../common/errors/api-error';

/**
 * The longest user id a path of these routes takes: the router's parameter limit. User ids have
 * no length cap (SPEC §8), but one longer than this cannot be named in a path at all.
 */
export const MAX_PATH_USER_ID = 16_384;

/** The external user id of a path: 400 naming `userId` when empty or longer than a path can carry. */
export function pathUserId(userId: string): string {
  if (userId.length === 0) throw ApiError.badRequest('userId must not be empty');
  if (userId.length > MAX_PATH_USER_ID) throw ApiError.badRequest(`userId must be at most ${MAX_PATH_USER_ID} characters`);
  return userId;
}
