import { ValidationPipe, type ArgumentMetadata, type ValidationError } from '@nestjs/common';
import { ApiError } from '../errors/api-error';

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

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The global pipe: DTO validation with unknown fields stripped, 400 `bad_request` naming the
 * failing field. A missing body counts as `{}` (DECISIONS §17); a non-object body is refused.
 */
export class SvcValidationPipe extends ValidationPipe {
  constructor() {
    super({
      transform: true,
      whitelist: true,
      forbidUnknownValues: false,
      stopAtFirstError: true,
      validationError: { target: false, value: false },
      exceptionFactory: (errors) => ApiError.badRequest(describeValidationErrors(errors).slice(0, 5).join('; ')),
    });
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'body' && metadata.metatype && this.toValidate(metadata)) {
      if (value === undefined || value === null || value === '') value = {};
      if (!isPlainObject(value)) throw ApiError.badRequest('request body must be a JSON object');
    }
    return super.transform(value, metadata);
  }
}
