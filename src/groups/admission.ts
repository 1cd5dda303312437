import { ApiError } from '../common/errors/api-error';

/** Why a user may not be admitted into a group (EXTENSIONS X5): svc_admission's answers. */
export type Refusal = 'group_full' | 'already_in_group_of_kind';

/** The columns of a group an admission depends on, as SQL expressions. */
export interface AdmissionGroup {
  id: string;
  gameId: string;
  maxMembers: string;
  kind: string;
}

/**
 * Why `user` (an internal id, or NULL for a user the game has not met) may not become an active
 * member of the group, or NULL: a scalar expression for the admission's own statement. Only a
 * capped group, or one whose kind the game's config makes exclusive, calls svc_admission (migration
 * Admissions), which takes the locks those rules need; any other join pays one read of the game's
 * config row, by primary key.
 */
export function admissionSql(g: AdmissionGroup, user: string): string {
  return `(SELECT CASE WHEN x.exclusive OR ${g.maxMembers} IS NOT NULL
                 THEN svc_admission(${g.id}, ${g.gameId}, ${user}, ${g.maxMembers}, ${g.kind}, x.exclusive) END
           FROM (SELECT coalesce((SELECT gm.config #> '{groups,exclusiveKinds}' ? ${g.kind} FROM games gm WHERE gm.id = ${g.gameId}), false)
                        AS exclusive) x)`;
}

/** The refusal as the error a client gets. */
export function refusalError(refusal: Refusal): ApiError {
  return refusal === 'group_full'
    ? new ApiError('group_full', 'the group is full: it has as many active members as its maxMembers allows')
    : new ApiError('already_in_group_of_kind', 'the user is already an active member of another group of this kind, which the game allows once per player');
}
