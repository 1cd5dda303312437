import { isoNN } from '../common/time';
import { maskUrlCredentials } from '../webhooks/url-credentials';
import type { AuditRow } from './audit-row';
import type { AuditEntryDto } from './dto/audit.dto';

export function toAuditDto(a: AuditRow): AuditEntryDto {
  return {
    id: a.id,
    ...(a.groupId ? { groupId: a.groupId } : {}),
    actorUserId: a.actorUserId,
    action: a.action,
    targetId: a.targetId,
    payload: auditPayloadAsShown(a.action, a.payload),
    createdAt: isoNN(a.createdAt),
  };
}

/**
 * Entries written before webhook URLs were masked on the way in may still hold a URL's
 * credentials: they are masked on the way out as well, so no answer ever shows them.
 */
export function auditPayloadAsShown(action: string, payload: Record<string, unknown>): Record<string, unknown> {
  if (!action.startsWith('webhook.') || typeof payload.url !== 'string') return payload;
  return { ...payload, url: maskUrlCredentials(payload.url) };
}
