/**
 * The error codes of SPEC §7 (plus additive ones, SPEC §9) and the status each one answers with.
 * Clients branch on `code`; the status always follows from it.
 */
export const ERROR_STATUS = {
  bad_request: 400,
  parent_cycle: 400,
  role_group_mismatch: 400,
  name_not_allowed: 400,
  invalid_api_key: 401,
  invalid_admin_token: 401,
  permission_denied: 403,
  banned: 403,
  passcode_required: 403,
  passcode_invalid: 403,
  not_found: 404,
  method_not_allowed: 405,
  already_member: 409,
  group_full: 409,
  already_in_group_of_kind: 409,
  owner_must_transfer: 409,
  not_a_member: 409,
  already_linked: 409,
  join_request_pending: 409,
  role_has_members: 409,
  role_name_taken: 409,
  report_closed: 409,
  invitation_expired: 410,
  invitation_used: 410,
  restore_window_expired: 410,
  events_expired: 410,
  join_request_closed: 410,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limit_exceeded: 429,
  rate_limited: 429,
  internal: 500,
  service_unavailable: 503,
} as const satisfies Record<string, number>;

export type ErrorCode = keyof typeof ERROR_STATUS;

export const isErrorCode = (v: unknown): v is ErrorCode =>
  typeof v === 'string' && Object.prototype.hasOwnProperty.call(ERROR_STATUS, v);

/** The code a framework-level HTTP status maps to when no code was given. */
export function codeForStatus(status: number): ErrorCode {
  switch (status) {
    case 400:
      return 'bad_request';
    case 401:
      return 'invalid_api_key';
    case 403:
      return 'permission_denied';
    case 404:
      return 'not_found';
    case 405:
      return 'method_not_allowed';
    case 413:
      return 'payload_too_large';
    case 415:
      return 'unsupported_media_type';
    case 429:
      return 'rate_limit_exceeded';
    case 503:
      return 'service_unavailable';
    default:
      return status >= 400 && status < 500 ? 'bad_request' : 'internal';
  }
}
