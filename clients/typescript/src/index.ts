export { checkPermissions, CHECKS_PER_REQUEST, type PermissionCheck, type PermissionCheckAnswer } from './check-permissions.js';
export { createGuildhallClient, type GuildhallClient, type GuildhallClientOptions } from './client.js';
export { CONSISTENCY_HEADER, ConsistencyTracker } from './consistency.js';
export { GuildhallError, type ErrorCode } from './errors.js';
export { followFeed, type FeedEvent, type FeedEventType, type FollowFeedOptions } from './follow-feed.js';
export { followNotifications, type FollowNotificationsOptions, type NotificationFrame, type NotificationsRead } from './follow-notifications.js';
export type { HeaderSource } from './headers.js';
export {
  dismissNotification,
  listNotifications,
  markNotificationsRead,
  notificationCounts,
  type ListNotificationsOptions,
  type Notification,
  type NotificationCounts,
  type NotificationKind,
  type NotificationPage,
  type NotificationsToMark,
} from './notifications.js';
export { paginate, type PageInit, type PageItem, type PaginatedPath } from './paginate.js';
export type { components, operations, paths } from './schema.js';
export { followUnreadCount, type FollowUnreadCountOptions, type UnreadCount } from './unread-count.js';
export { verifyWebhook, WebhookVerificationError, type VerifyWebhookOptions, type WebhookVerificationFailure } from './verify-webhook.js';
