import { Client } from 'pg';
import type { TestApp } from './test-app';

type Auth = Record<string, string>;

/** A Notification as the API answers it (EXTENSIONS X9). */
export interface Notification {
  id: string;
  kind: string;
  userId: string;
  groupId: string | null;
  actorUserId: string | null;
  createdAt: string;
  readAt: string | null;
  data: Record<string, unknown>;
}

export const notificationsPath = (userId: string) => `/v1/users/${encodeURIComponent(userId)}/notifications`;

/** One page of a player's notifications; throws unless 200. */
export async function listNotifications(t: TestApp, auth: Auth, userId: string, query = ''): Promise<{ items: Notification[]; nextCursor: string | null }> {
  const r = await t.http.get(`${notificationsPath(userId)}${query}`).set(auth);
  if (r.status !== 200) throw new Error(`notifications of ${userId}: ${r.status} ${r.text}`);
  return r.body;
}

/** Every notification of a player, newest first (the first page of the largest size). */
export async function notificationsOf(t: TestApp, auth: Auth, userId: string): Promise<Notification[]> {
  return (await listNotifications(t, auth, userId, '?limit=100')).items;
}

/** A LISTEN on the notifications channel: every payload heard, in order. */
export async function listenToNotifications(url: string): Promise<{ payloads: string[]; close(): Promise<void> }> {
  const client = new Client({ connectionString: url });
  await client.connect();
  const payloads: string[] = [];
  client.on('notification', (n) => {
    if (n.channel === 'svc_notifications') payloads.push(n.payload ?? '');
  });
  await client.query('LISTEN svc_notifications');
  return { payloads, close: () => client.end() };
}
