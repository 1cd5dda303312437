import { Foundation1763700000000 } from './1763700000000-foundation';
import { Groups1763800000000 } from './1763800000000-groups';
import { RolesBans1763900000000 } from './1763900000000-roles-bans';
import { LongExternalIds1763950000000 } from './1763950000000-long-external-ids';
import { Friends1764000000000 } from './1764000000000-friends';
import { AdminIndexes1764100000000 } from './1764100000000-admin-indexes';
import { Webhooks1764200000000 } from './1764200000000-webhooks';
import { EventFeed1764300000000 } from './1764300000000-event-feed';
import { WebhookLog1764400000000 } from './1764400000000-webhook-log';
import { JoinRequests1764500000000 } from './1764500000000-join-requests';
import { MemberCountDeltas1764600000000 } from './1764600000000-member-count-deltas';
import { WebhookAttemptsParent1764700000000 } from './1764700000000-webhook-attempts-parent';
import { FeedEras1764800000000 } from './1764800000000-feed-eras';
import { GroupFinding1764900000000 } from './1764900000000-group-finding';
import { GroupSearch1764950000000 } from './1764950000000-group-search';
import { Admissions1765000000000 } from './1765000000000-admissions';
import { InvitationInbox1765050000000 } from './1765050000000-invitation-inbox';
import { Erasure1765100000000 } from './1765100000000-erasure';
import { EventTraceContext1765200000000 } from './1765200000000-event-trace-context';
import { ApiKeyScopes1765300000000 } from './1765300000000-api-key-scopes';
import { Operators1765400000000 } from './1765400000000-operators';
import { FriendSuggestions1765500000000 } from './1765500000000-friend-suggestions';
import { AuditOrderIndex1765600000000 } from './1765600000000-audit-order-index';
import { LockKeysProcedure1765700000000 } from './1765700000000-lock-keys-procedure';
import { MentionNames1765800000000 } from './1765800000000-mention-names';
import { ServiceKeys1765900000000 } from './1765900000000-service-keys';

/** Applied in order on boot (SPEC §8); listed explicitly so source and build agree. */
export const MIGRATIONS = [Foundation1763700000000, Groups1763800000000, RolesBans1763900000000, LongExternalIds1763950000000, Friends1764000000000, AdminIndexes1764100000000, Webhooks1764200000000, EventFeed1764300000000, WebhookLog1764400000000, JoinRequests1764500000000, MemberCountDeltas1764600000000, WebhookAttemptsParent1764700000000, FeedEras1764800000000, GroupFinding1764900000000, GroupSearch1764950000000, Admissions1765000000000, InvitationInbox1765050000000, Erasure1765100000000, EventTraceContext1765200000000, ApiKeyScopes1765300000000, Operators1765400000000, FriendSuggestions1765500000000, AuditOrderIndex1765600000000, LockKeysProcedure1765700000000, MentionNames1765800000000, ServiceKeys1765900000000];
