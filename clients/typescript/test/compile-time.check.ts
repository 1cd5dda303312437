/**
 * Type assertions: `npm run typecheck` compiles this file (it is never run). Each @ts-expect-error
 * fails the typecheck if the line below it starts compiling.
 */
import { listNotifications, markNotificationsRead, paginate, type GuildhallClient, type PageItem } from '../src/index.js';

declare const client: GuildhallClient;

export async function pageItemsAreTypedByPath(): Promise<string[]> {
  const ids: string[] = [];
  for await (const member of paginate(client, '/v1/groups/{id}/members', { params: { path: { id: 'g' } } })) {
    const status: 'active' | 'invited' | 'left' | 'kicked' | 'banned' = member.status;
    ids.push(`${member.userId}:${status}`);
  }
  return ids;
}

export const auditEntry = (entry: PageItem<'/v1/groups/{id}/audit'>): string => entry.action;

export function refused(): void {
  // @ts-expect-error GET /v1/groups/{id} answers one group, not a page
  void paginate(client, '/v1/groups/{id}', { params: { path: { id: 'g' } } });
  // @ts-expect-error the members of which group?
  void paginate(client, '/v1/groups/{id}/members');
  // @ts-expect-error a query parameter the route does not take
  void paginate(client, '/v1/groups', { params: { query: { sort: 'name' } } });
  // @ts-expect-error kind and name are required
  void client.POST('/v1/groups', { body: { kind: 'guild' } });
  // @ts-expect-error ids or all, not both
  void markNotificationsRead(client, 'carol', { ids: ['n'], all: true });
  // @ts-expect-error a kind the service does not write
  void listNotifications(client, 'carol', { kinds: ['member.joined'] });
}
