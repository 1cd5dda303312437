/**
 * Span attribute names that are not among the stable ones of @opentelemetry/semantic-conventions:
 * the conventions ask that incubating names be copied rather than imported, and the `guildhall.`
 * ones are this service's own.
 */

/** The pre-1.26 name of db.system.name, still the one many backends group database spans by. */
export const ATTR_DB_SYSTEM = 'db.system';
export const ATTR_DB_RESPONSE_RETURNED_ROWS = 'db.response.returned_rows';

/** The id a request's answer and log lines carry (x-request-id). */
export const ATTR_REQUEST_ID = 'guildhall.request_id';
/** Statements sent in the same round trip as the span's own (BEGIN, a lock's CALL, COMMIT), by name. */
export const ATTR_DB_BATCHED_WITH = 'guildhall.db.batched_with';

export const ATTR_WEBHOOK_ENDPOINT_ID = 'guildhall.webhook.endpoint_id';
export const ATTR_WEBHOOK_DELIVERY_ID = 'guildhall.webhook.delivery_id';
export const ATTR_WEBHOOK_ATTEMPT = 'guildhall.webhook.attempt';
export const ATTR_WEBHOOK_FORMAT = 'guildhall.webhook.format';
/** delivered, retry (another attempt is scheduled) or failed (no more attempts). */
export const ATTR_WEBHOOK_OUTCOME = 'guildhall.webhook.outcome';
export const ATTR_EVENT_ID = 'guildhall.event.id';
export const ATTR_EVENT_TYPE = 'guildhall.event.type';
