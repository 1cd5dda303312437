import { registerDecorator, type ValidationOptions } from 'class-validator';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/;

/** True for an ISO 8601 date-time with a zone that Date can represent. */
export function isIsoTimestamp(v: unknown): v is string {
  return typeof v === 'string' && ISO.test(v) && !Number.isNaN(Date.parse(v));
}

/** An ISO 8601 date-time with a zone (`2026-01-01T00:00:00Z`, `…+02:00`). */
export function IsIsoTimestamp(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isIsoTimestamp',
      target: target.constructor,
      propertyName: propertyName as string,
      options: { message: `${String(propertyName)} must be an ISO 8601 timestamp with a time zone`, ...options },
      validator: { validate: isIsoTimestamp },
    });
}
