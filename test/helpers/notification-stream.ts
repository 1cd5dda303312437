/** A player's notification stream (EXTENSIONS X9) over a real socket, for the stream's e2e tests. */
import type { TestApp } from './test-app';
import { openSse, type SseFrame, type SseStream } from './sse';
import { notificationsPath, type Notification } from './notifications';

type Auth = Record<string, string>;

/** Opens `GET /v1/users/:userId/notifications/stream<query>` on `base`. */
export const openNotificationStream = (base: string, userId: string, headers: Record<string, string>, query = ''): Promise<SseStream> =>
  openSse(base, `${notificationsPath(userId)}/stream${query}`, headers);

/** The `notification` frames received, in order. */
export const notificationFrames = (s: SseStream): SseFrame[] => s.frames.filter((f) => f.event === 'notification');

/** The Notifications received, in order. */
export const notificationsOn = (s: SseStream): Notification[] => notificationFrames(s).map((f) => JSON.parse(f.data!));

/** The data of the `notifications.read` frames received, in order. */
export const readsOn = (s: SseStream): unknown[] => s.frames.filter((f) => f.event === 'notifications.read').map((f) => JSON.parse(f.data!));

/** A targeted invitation to a group of the game: one invitation.received for `userId` (a player the game knows). */
export async function invite(t: TestApp, auth: Auth, groupId: string, userId: string): Promise<{ id: string; code: string }> {
  const r = await t.http.post(`/v1/groups/${groupId}/invitations`).set(auth).send({ targetUserId: userId });
  if (r.status !== 201) throw new Error(`invite ${userId}: ${r.status} ${r.text}`);
  return r.body;
}
