import { isIn, isString, maxLength, minLength } from 'class-validator';
import { ApiError } from '../errors/api-error';
import { findNulCharacter } from './nul-characters';

/**
 * A query parameter as the global pipe's decorators checked it: `accepts` is the decorators'
 * test (class-validator's own functions, so lengths count as they did), `message` the refusal
 * the first failing decorator wrote.
 */
export interface QueryParam {
  readonly name: string;
  readonly optional: boolean;
  readonly accepts: (v: unknown) => boolean;
  readonly message: string;
}

/** `@IsString()`, with `@MinLength`/`@MaxLength` sharing one message when bounds are given. */
export function stringParam(name: string, opts: { optional: boolean; min?: number; max?: number; message?: string }): QueryParam {
  const { min, max } = opts;
  return {
    name,
    optional: opts.optional,
    accepts: (v) => isString(v) && (min === undefined || minLength(v, min)) && (max === undefined || maxLength(v, max)),
    message: opts.message ?? `${name} must be a string`,
  };
}

/** `@IsIn(values)`. */
export function oneOfParam(name: string, values: readonly string[], opts: { optional: boolean }): QueryParam {
  return { name, optional: opts.optional, accepts: (v) => isIn(v, values), message: `${name} must be one of ${values.join(', ')}` };
}

/** `limit` and `cursor`, as PageQueryDto declares them. */
export const PAGE_PARAMS: readonly QueryParam[] = [stringParam('limit', { optional: true }), stringParam('cursor', { optional: true })];

/**
 * A hand-written check of a list's query for ValidatedBy, answering as the global pipe did with
 * class-validator (the refusals, their order, the unknown parameters dropped) at a fraction of
 * its cost: the reflection-driven check took 11-20 us a request on the member list, this about 1.
 * `params` come in class-validator's order: the class's own fields, then its parent's.
 */
export function queryParser<T>(params: readonly QueryParam[]): (raw: unknown) => T {
  return (raw) => {
    const nul = findNulCharacter(raw, '');
    if (nul !== null) throw ApiError.badRequest(`${nul || 'query'} must not contain the NUL character (\\u0000)`);
    const q = (raw ?? {}) as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    let refused: string[] | null = null;
    for (const p of params) {
      const v = q[p.name];
      if (v === undefined || v === null) {
        if (p.optional) {
          if (p.name in q) out[p.name] = v;
          continue;
        }
      } else if (p.accepts(v)) {
        out[p.name] = v;
        continue;
      }
      (refused ??= []).push(p.message);
    }
    if (refused) throw ApiError.badRequest(refused.slice(0, 5).join('; '));
    return out as T;
  };
}
