import { ValidationPipe, type ArgumentMetadata, type ValidationError } from '@nestjs/common';
import { ApiError } from '../errors/api-error';
import { findNulCharacter } from './nul-characters';

/** `path.to.field: reason` for the first failing constraints, so the message names the field. */
export function describeValidationErrors(errors: ValidationError[], parent = ''): string[] {
  const out: string[] = [];
  for (const e of errors) {
    const path = parent ? `${parent}.${e.property}` : e.property;
    for (const msg of Object.values(e.constraints ?? {})) {
      out.push(msg.startsWith(`${e.property} `) ? `${path}${msg.slice(e.property.length)}` : `${path}: ${msg}`);
    }
    if (e.children?.length) out.push(...describeValidationErrors(e.children, path));
  }
  return out;
}

const STRICT_BODIES = new WeakSet<object>();

/** Marks a body DTO whose unknown fields are refused with 400 instead of dropped (SPEC §4 POST /v1/bans). */
export const StrictBody = (): ClassDecorator => (target) => {
  STRICT_BODIES.add(target);
};

const ROW_FIELDS = new WeakMap<object, ReadonlySet<string>>();

/**
 * Marks body fields whose entries the service validates one by one (bulk invite rows): one bad
 * entry becomes a per-row error instead of sinking the request, so the global NUL check skips them.
 */
export const ValidatedPerRow = (...fields: string[]): ClassDecorator => (target) => {
  ROW_FIELDS.set(target, new Set(fields));
};

const HAND_VALIDATED = new WeakMap<object, (value: unknown) => unknown>();

/**
 * Validates a DTO with a hand-written function instead of class-validator: for the few hot routes
 * where reflection-driven validation costs more than the rest of the request. The function owns
 * the whole check, the refusal of the NUL character included (the generic scan is skipped).
 */
export const ValidatedBy = <T>(validate: (value: unknown) => T): ClassDecorator => (target) => {
  HAND_VALIDATED.set(target, validate);
};

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A query parameter given more than once arrives as a list, which a parameter taken once refuses
 * as not being a string or a number: the refusal that names such a parameter says so instead.
 * Those that may repeat (`actions`) pass validation and never get here.
 */
function repeatedParameter(err: unknown, query: unknown): ApiError | null {
  if (!(err instanceof ApiError) || err.status !== 400 || !isPlainObject(query)) return null;
  for (const [name, given] of Object.entries(query)) {
    if (Array.isArray(given) && err.message.startsWith(`${name} `)) {
      return ApiError.badRequest(`${name} must be given once, not ${given.length} times`);
    }
  }
  return null;
}

/**
 * The global pipe: DTO validation with unknown fields stripped, 400 `bad_request` naming the
 * failing field. A missing body counts as `{}` (DECISIONS §17); a non-object body is refused; so is
 * a NUL character anywhere in a body, query or path value.
 */
export class SvcValidationPipe extends ValidationPipe {
  private strictPipe?: SvcValidationPipe;

  constructor(private readonly strict = false) {
    super({
      transform: true,
      whitelist: true,
      forbidNonWhitelisted: strict,
      forbidUnknownValues: false,
      stopAtFirstError: true,
      validationError: { target: false, value: false },
      exceptionFactory: (errors) => ApiError.badRequest(describeValidationErrors(errors).slice(0, 5).join('; ')),
    });
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    try {
      const hand = metadata.metatype ? HAND_VALIDATED.get(metadata.metatype) : undefined;
      if (hand) return hand(value);
      // Arguments of custom decorators (the caller's game) come from the server, not the client.
      if (metadata.type === 'custom') return value;
      return await this.validateArgument(value, metadata);
    } catch (err) {
      throw (metadata.type === 'query' && repeatedParameter(err, value)) || err;
    }
  }

  private validateArgument(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const perRow = metadata.metatype ? ROW_FIELDS.get(metadata.metatype) : undefined;
    const scanned = perRow && isPlainObject(value) ? Object.fromEntries(Object.entries(value).filter(([k]) => !perRow.has(k))) : value;
    const at = findNulCharacter(scanned, metadata.data ?? '');
    if (at !== null) throw ApiError.badRequest(`${at || metadata.type} must not contain the NUL character (\\u0000)`);
    if (metadata.type === 'body' && metadata.metatype && this.toValidate(metadata)) {
      if (value === undefined || value === null || value === '') value = {};
      if (!isPlainObject(value)) throw ApiError.badRequest('request body must be a JSON object');
      if (!this.strict && STRICT_BODIES.has(metadata.metatype)) {
        return (this.strictPipe ??= new SvcValidationPipe(true)).transform(value, metadata);
      }
    }
    return super.transform(value, metadata);
  }
}
