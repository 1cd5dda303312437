import type { World } from './world';

/**
 * The event feed and streams, and webhooks with their delivery log. A stream's 200 is checked on the
 * service itself (see ContractClient.openStream); its refusals go through Prism like any answer.
 */
export async function eventsScenario({ rig, api, admin, gameId }: World, groupId: string): Promise<Record<string, string>> {
  // Nothing listens on port 9: each delivery fails, and stays in the log.
  const hook = await api.expect('POST /v1/webhooks', 201, { body: { url: 'http://127.0.0.1:9/hook', events: ['group.created'], format: 'standard' } });
  const h = { params: { id: hook.id } };
  await api.expect('GET /v1/webhooks', 200, { query: { limit: 5 } });
  await api.expect('PATCH /v1/webhooks/{id}', 200, { ...h, body: { format: 'svc' } });
  await api.expect('POST /v1/webhooks/{id}/rotate-secret', 200, h);
  await api.expect('POST /v1/webhooks/{id}/rotate-secret', 200, { ...h, body: { graceSeconds: 0 } });
  await api.expect('POST /v1/groups', 201, { body: { kind: 'guild', name: 'Announced' } });
  const deliveries = await api.expect('GET /v1/webhooks/{id}/deliveries', 200, h);
  const deliveryId: string = deliveries.items[0].id;
  await api.expect('GET /v1/webhooks/{id}/deliveries/{deliveryId}', 200, { params: { id: hook.id, deliveryId } });
  await admin.expect('GET /v1/admin/games/{gameId}/webhooks', 200, { params: { gameId } });
  await admin.expect('GET /v1/admin/games/{gameId}/webhooks/{id}/deliveries', 200, { params: { gameId, id: hook.id }, query: { status: 'pending' } });
  await admin.expect('GET /v1/admin/games/{gameId}/webhooks/{id}/deliveries/{deliveryId}', 200, { params: { gameId, id: hook.id, deliveryId } });

  const page = await api.expect('GET /v1/events/feed', 200, { query: { limit: 5 } });
  const after: string = page.items[0].id;
  await api.expect('GET /v1/events/feed', 200, { query: { after, types: 'member.joined,group.created' } });
  await admin.expect('GET /v1/admin/games/{gameId}/events/feed', 200, { params: { gameId }, query: { limit: 5 } });
  await api.openStream(rig.serviceUrl, 'GET /v1/events', { query: { after } });
  await api.openStream(rig.serviceUrl, 'GET /v1/events/{groupId}', { params: { groupId } });
  await admin.openStream(rig.serviceUrl, 'GET /v1/admin/games/{gameId}/events', { params: { gameId } });
  await admin.openStream(rig.serviceUrl, 'GET /v1/admin/games/{gameId}/groups/{groupId}/events', { params: { gameId, groupId } });

  // A refused handshake is the JSON envelope, 410 for a position the feed never had.
  const unknown = 'ffffffffffffffffffffffff';
  await api.expect('GET /v1/events', 410, { query: { after: unknown } });
  await api.expect('GET /v1/events/{groupId}', 410, { params: { groupId }, query: { after: unknown } });
  await api.expect('GET /v1/events/feed', 410, { query: { after: unknown } });
  await admin.expect('GET /v1/admin/games/{gameId}/events', 410, { params: { gameId }, query: { after: unknown } });
  await admin.expect('GET /v1/admin/games/{gameId}/groups/{groupId}/events', 410, { params: { gameId, groupId }, query: { after: unknown } });
  await admin.expect('GET /v1/admin/games/{gameId}/events/feed', 410, { params: { gameId }, query: { after: unknown } });
  await api.expect('GET /v1/events', 400, { query: { types: 'no.such.type' } });
  await api.expect('GET /v1/events/{groupId}', 404, { params: { groupId: '7c9e6679-7425-40de-944b-e07fc1f90ae7' } });

  const gone = await api.expect('POST /v1/webhooks', 201, { body: { url: 'http://127.0.0.1:9/other' } });
  await api.expect('DELETE /v1/webhooks/{id}', 204, { params: { id: gone.id } });
  return { webhookId: hook.id, deliveryId, after };
}
