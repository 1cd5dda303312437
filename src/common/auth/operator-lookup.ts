import type { OperatorRole } from './operator-roles';

/** What the auth guard needs to know of an operator; provided by the operators module. */
export interface ResolvedOperator {
  id: string;
  name: string;
  role: OperatorRole;
  tokenHash: Buffer;
}

export interface OperatorLookup {
  /**
   * The operator whose token has this prefix, read from the database on every request: a role
   * change or a deletion holds at once on every instance, and admin traffic is light.
   */
  find(prefix: string): Promise<ResolvedOperator | null>;
  /** Notes the operator's use (at most about once a minute is written). */
  touch(id: string): void;
}

export const OPERATOR_LOOKUP = Symbol('OPERATOR_LOOKUP');
