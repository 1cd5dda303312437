import type { ListVisibility } from '../game-config/game-config';

/**
 * The visibility in force: the user's choice while the game still allows it, else the configured
 * default (SPEC §4 Friends rule 2: `public` is "subject to the game's allowed list").
 */
export function effectiveVisibility(
  allowed: readonly ListVisibility[],
  configuredDefault: ListVisibility,
  stored: ListVisibility | null,
): ListVisibility {
  return stored && allowed.includes(stored) ? stored : configuredDefault;
}

export interface ListViewer {
  /** The viewer is the list's owner. */
  isOwner: boolean;
  /** A block stands between viewer and owner, in either direction. */
  blocked: boolean;
  /** The viewer is a confirmed friend of the owner (in the calling game's read scope). */
  isFriend: boolean;
}

/**
 * Whether a viewer may read a friends list (SPEC §4 Friends rule 2): the owner always; nobody across
 * a block; then `public` anyone, `friends-only` confirmed friends, `private` nobody else.
 */
export function canViewList(visibility: ListVisibility, v: ListViewer): boolean {
  if (v.isOwner) return true;
  if (v.blocked) return false;
  if (visibility === 'public') return true;
  if (visibility === 'friends-only') return v.isFriend;
  return false;
}
