import type { MigrationInterface } from 'typeorm';
import { AdminIndexes1764100000000 } from './1764100000000-admin-indexes';
import { WebhookLog1764400000000 } from './1764400000000-webhook-log';
import { JoinRequests1764500000000 } from './1764500000000-join-requests';
import { FeedEras1764800000000 } from './1764800000000-feed-eras';
import { GroupFinding1764900000000 } from './1764900000000-group-finding';
import { GroupSearch1764950000000 } from './1764950000000-group-search';
import { InvitationInbox1765050000000 } from './1765050000000-invitation-inbox';
import { Erasure1765100000000 } from './1765100000000-erasure';
import { EventTraceContext1765200000000 } from './1765200000000-event-trace-context';
import { ApiKeyScopes1765300000000 } from './1765300000000-api-key-scopes';
import { AuditOrderIndex1765600000000 } from './1765600000000-audit-order-index';

/**
 * The migrations whose statements were reworked to run online, as they were first written (copied
 * unchanged from commit 2061449): what every database that applied them before the rework ran.
 * The schema they leave is the one the reworked forms must leave too (migration-safety e2e).
 * The migrations only wrapped in lockedTransaction send the same statements as before, and are
 * not here.
 */
export const FIRST_FORMS: Readonly<Record<string, new () => MigrationInterface>> = {
  AdminIndexes1764100000000,
  WebhookLog1764400000000,
  JoinRequests1764500000000,
  FeedEras1764800000000,
  GroupFinding1764900000000,
  GroupSearch1764950000000,
  InvitationInbox1765050000000,
  Erasure1765100000000,
  EventTraceContext1765200000000,
  ApiKeyScopes1765300000000,
  AuditOrderIndex1765600000000,
};
