import { needsWrite } from '../common/auth/api-key-scopes';
import { ERROR_STATUS, type ErrorCode } from '../common/errors/error-codes';
import { OPERATOR_ROLE_EXTENSION } from '../common/auth/route-auth.decorator';
import { errorDescription, errorResponseSchema } from '../common/errors/api-error-responses.decorator';

export type Operation = Record<string, unknown> & { responses?: Record<string, Response>; security?: Array<Record<string, unknown>> };
export type Response = { description?: string; content?: Record<string, { schema?: Record<string, unknown>; example?: unknown }> };

/** A message the service could give with each code, for the examples. */
const MESSAGES: Record<ErrorCode, string> = {
  bad_request: 'name must be a string of 1-120 characters',
  parent_cycle: 'this parent would make the group its own ancestor',
  role_group_mismatch: 'the role belongs to another group',
  name_not_allowed: 'tags[2] contains "admin", a word this game reserves for its operators',
  invalid_api_key: 'missing or invalid API key',
  invalid_admin_token: 'missing or invalid admin token',
  permission_denied: 'this group is invite-only: an invitation is required to join it',
  banned: 'the user is banned from this group',
  passcode_required: 'this group requires a passcode to join',
  passcode_invalid: 'the passcode is wrong',
  not_found: 'group not found',
  method_not_allowed: 'method not allowed',
  already_member: 'player-1842 is already a member of this group',
  group_full: 'the group is full: it has as many active members as its maxMembers allows',
  already_in_group_of_kind: 'the user is already an active member of another group of this kind, which the game allows once per player',
  owner_must_transfer: 'player-1842 owns this group: make another active member its owner first',
  not_a_member: 'player-1842 is not an active member of this group',
  already_linked: 'this external id is linked to another user',
  join_request_pending: 'player-1842 already has a pending request to join this group',
  role_has_members: 'the role is held by 3 members',
  role_name_taken: 'a role of this group is already named Officer',
  report_closed: 'this report was already resolved: dismissed',
  invitation_expired: 'this invitation expired at 2026-03-14T09:26:53.000Z',
  invitation_used: 'this invitation has already been used',
  restore_window_expired: 'the group was deleted more than 7 days ago',
  events_expired: 'events before this position are past retention',
  join_request_closed: 'this join request is no longer pending: it was approved',
  payload_too_large: 'the body is larger than 104857600 bytes',
  unsupported_media_type: 'the body must be application/json',
  rate_limit_exceeded: 'rate limit exceeded; retry in 12 s',
  rate_limited: 'player-1842 has filed 20 reports in the last hour; retry in 840 s',
  internal: 'An internal error occurred; quote the requestId when reporting it.',
  service_unavailable: 'the database cannot be reached',
};

const WITH_REQUEST_ID = new Set<ErrorCode>(['internal', 'service_unavailable']);

/** The example of a route whose only 403 is a read-only key's. */
const READ_ONLY_MESSAGE = 'this API key lacks the write scope: it may only read (POST needs write)';

function codesOf(response: Response): ErrorCode[] {
  const parts = Object.values(response.content ?? {}).flatMap((media) => (media.schema?.allOf ?? []) as Array<{ properties?: { code?: { enum?: ErrorCode[] } } }>);
  return parts.flatMap((p) => p.properties?.code?.enum ?? []);
}

/** An error answer is the JSON envelope on every route, a live stream's refused handshake included (SPEC §7). */
export function errorResponse(codes: readonly ErrorCode[], message = MESSAGES[codes[0]]): Response {
  const code = codes[0];
  const status = ERROR_STATUS[code];
  const example = { code, status, message, ...(WITH_REQUEST_ID.has(code) ? { requestId: '5b0c7e8a-3a8e-4f57-9d6c-0c4a7e2b9f11' } : {}) };
  return { description: errorDescription(status), content: { 'application/json': { schema: errorResponseSchema(codes), example } } };
}

/**
 * Completes an operation's error answers: 401 keeps the code of the route's credential (or goes,
 * on a public route); an admin operation above the viewer role, and a game route that may change
 * something (a read-only key), also answer 403 permission_denied; a route with a body also answers
 * 413 and 415; every error answer gets an example envelope with its first code.
 */
export function completeErrorAnswers(op: Operation, method = 'get'): void {
  const responses = (op.responses ??= {});
  const schemes = (op.security ?? []).flatMap((s) => Object.keys(s));
  if (responses['401']) {
    const kept = codesOf(responses['401']).filter((c) => schemes.includes(c === 'invalid_admin_token' ? 'adminToken' : 'apiKey'));
    if (kept.length > 0) responses['401'] = errorResponse(kept);
    else delete responses['401'];
  }
  // An operator whose role is below the operation's answers 403 (the root token never does).
  const role = op[OPERATOR_ROLE_EXTENSION];
  if (role !== undefined && role !== 'viewer') {
    const codes = responses['403'] ? codesOf(responses['403']) : [];
    if (!codes.includes('permission_denied')) responses['403'] = errorResponse([...codes, 'permission_denied']);
  }
  if (op.requestBody) {
    responses['413'] ??= errorResponse(['payload_too_large']);
    responses['415'] ??= errorResponse(['unsupported_media_type']);
  }
  for (const [status, response] of Object.entries(responses)) {
    if (Number(status) < 400) continue;
    const codes = codesOf(response);
    if (codes.length > 0) responses[status] = errorResponse(codes);
  }
  if (schemes.includes('apiKey') && needsWrite(method)) {
    const codes = responses['403'] ? codesOf(responses['403']) : [];
    if (codes.length === 0) responses['403'] = errorResponse(['permission_denied'], READ_ONLY_MESSAGE);
    else if (!codes.includes('permission_denied')) responses['403'] = errorResponse([...codes, 'permission_denied']);
  }
}
