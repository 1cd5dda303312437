/**
 * Commits with events are announced on this channel (payload: the game id), sent by Postgres with
 * the commit and only on commit: every instance's live tail then reads the feed.
 */
export const EVENTS_CHANNEL = 'svc_events';
