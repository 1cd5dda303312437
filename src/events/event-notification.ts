/**
 * Commits with events are announced on this channel (payload: the game id), once committed
 * (CommitAnnouncer): every instance's live tail then reads the feed.
 */
export const EVENTS_CHANNEL = 'svc_events';
