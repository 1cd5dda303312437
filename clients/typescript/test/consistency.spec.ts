import { ConsistencyTracker, createGuildhallClient } from '../src/index.js';
import { startService, type Service } from './support';
import { newGame } from '../../../test/helpers/test-app';

/** The client carries the consistency token of its writes to its later reads by itself. */
let s: Service;
beforeAll(async () => {
  s = await startService({ WEBHOOK_WORKER_ENABLED: 'false' });
});
afterAll(() => s.t.close());

/** A fetch that records the consistency header of each request it sends. */
function sentTokens(): { fetch: typeof globalThis.fetch; sent: { method: string; token: string | null }[] } {
  const sent: { method: string; token: string | null }[] = [];
  return {
    sent,
    fetch: async (input, init) => {
      const request = new Request(input, init);
      sent.push({ method: request.method, token: request.headers.get('x-svc-consistency') });
      return fetch(request);
    },
  };
}

it("sends no token before a write, then the last write's on every read", async () => {
  const { key } = await newGame(s.t);
  const { fetch, sent } = sentTokens();
  const client = createGuildhallClient({ baseUrl: s.baseUrl, apiKey: key, fetch });

  await client.GET('/v1/groups');
  const created = await client.POST('/v1/groups', { body: { kind: 'guild', name: 'Tokens', visibility: 'public', creatorUserId: 'ann' } });
  const first = created.response.headers.get('x-svc-consistency');
  expect(first).toMatch(/^[0-9A-F]+\/[0-9A-F]+$/);
  const read = await client.GET('/v1/groups/{id}', { params: { path: { id: created.data!.id } } });
  expect(read.data?.name).toBe('Tokens');
  const joined = await client.POST('/v1/groups/{id}/join', { params: { path: { id: created.data!.id } }, body: { userId: 'bob' } });
  const second = joined.response.headers.get('x-svc-consistency');
  await client.GET('/v1/groups/{id}/members', { params: { path: { id: created.data!.id } } });

  expect(sent.map((c) => [c.method, c.token])).toEqual([
    ['GET', null],
    ['POST', null],
    ['GET', first],
    ['POST', null],
    ['GET', second],
  ]);
});

it('keeps the furthest token when answers come back out of order, and can be shared', () => {
  const tracker = new ConsistencyTracker();
  const answer = (token: string) => tracker.onResponse({ response: new Response(null, { headers: { 'x-svc-consistency': token } }) });
  answer('0/20');
  answer('1/0');
  answer('0/FFFFFFFF');
  answer('garbage');
  expect(tracker.token).toBe('1/0');
  const read = tracker.onRequest({ request: new Request('http://x/v1/groups') });
  expect(read.headers.get('x-svc-consistency')).toBe('1/0');
  const write = tracker.onRequest({ request: new Request('http://x/v1/groups', { method: 'POST' }) });
  expect(write.headers.get('x-svc-consistency')).toBeNull();
  const chosen = tracker.onRequest({ request: new Request('http://x/v1/groups', { headers: { 'x-svc-consistency': '0/1' } }) });
  expect(chosen.headers.get('x-svc-consistency')).toBe('0/1');
});
