/** Reads of a group's audit entries and events as the journal keeps them, oldest first, for e2e tests. */
import { journalAudit, journalEvents } from './journal';
import type { AuditDbRow } from './shapes';
import type { TestApp } from './test-app';

/** The audit rows of one action in a group. */
export const groupAudits = (t: TestApp, groupId: string, action: string) =>
  t.db.query<AuditDbRow>(`SELECT * FROM ${journalAudit()} WHERE group_id = $1 AND action = $2 ORDER BY created_at, id`, [groupId, action]);

/** The stored bodies of one event type in a group, as rows. */
export const groupOutbox = (t: TestApp, groupId: string, type: string) =>
  t.db.query<{ body: Record<string, unknown> }>(`SELECT body FROM ${journalEvents()} WHERE group_id = $1 AND type = $2 ORDER BY created_at, id`, [
    groupId,
    type,
  ]);
