import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { ActingOperator } from './operator-roles';

/** Where the auth guard leaves who made an admin request. */
export const ACTING_OPERATOR = Symbol('acting operator');

export type WithActingOperator = { [ACTING_OPERATOR]?: ActingOperator };

/** The operator (or root) making this admin request, for the operator audit. */
export const Acting = createParamDecorator((_: unknown, ctx: ExecutionContext): ActingOperator => {
  const acting = ctx.switchToHttp().getRequest<WithActingOperator>()[ACTING_OPERATOR];
  if (!acting) throw new Error('@Acting() used on a route that is not an admin route');
  return acting;
});
