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
  expect(first).toMatch(/^[A-Za-z0-9_-]{22}$/);
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

it('drops the tokens a later write covers, keeps those of writes in flight together, and can be shared', () => {
  const tracker = new ConsistencyTracker();
  const write = (id: string) => tracker.onRequest({ request: new Request('http://x/v1/groups', { method: 'POST' }), id });
  const answer = (id: string, token: string) => tracker.onResponse({ request: new Request('http://x'), response: new Response(null, { headers: { 'x-svc-consistency': token } }), id });

  // One write, then another sent after its answer: the second's token covers the first's.
  write('1');
  answer('1', 'tokenOne');
  write('2');
  answer('2', 'tokenTwo');
  expect(tracker.token).toBe('tokenTwo');
  // Two writes in flight together, answered in either order: the tracker cannot order them, so it keeps both.
  write('3');
  write('4');
  answer('4', 'tokenFour');
  answer('3', 'tokenThree');
  expect(tracker.token).toBe('tokenFour, tokenThree');
  // A write sent after both answers covers both.
  write('5');
  answer('5', 'tokenFive');
  expect(tracker.token).toBe('tokenFive');
  answer('6', 'not a token!');
  expect(tracker.token).toBe('tokenFive');

  const read = tracker.onRequest({ request: new Request('http://x/v1/groups') });
  expect(read.headers.get('x-svc-consistency')).toBe('tokenFive');
  const sentWrite = tracker.onRequest({ request: new Request('http://x/v1/groups', { method: 'POST' }), id: '7' });
  expect(sentWrite.headers.get('x-svc-consistency')).toBeNull();
  const chosen = tracker.onRequest({ request: new Request('http://x/v1/groups', { headers: { 'x-svc-consistency': 'mine' } }) });
  expect(chosen.headers.get('x-svc-consistency')).toBe('mine');
});

it('sends the tokens of concurrent writes on a read, and the service takes them', async () => {
  const { key } = await newGame(s.t);
  const { fetch, sent } = sentTokens();
  const client = createGuildhallClient({ baseUrl: s.baseUrl, apiKey: key, fetch });
  const made = await Promise.all(['One', 'Two', 'Three'].map((name) => client.POST('/v1/groups', { body: { kind: 'guild', name, visibility: 'public' } })));
  const tokens = made.map((m) => m.response.headers.get('x-svc-consistency'));
  const read = await client.GET('/v1/groups');
  expect(read.response.status).toBe(200);
  // All three were sent before any was answered: none covers another, so the read carries each.
  expect(sent[sent.length - 1].token!.split(', ').sort()).toEqual([...new Set(tokens)].sort());
});

it('sends a read again without its tokens when an instance of an earlier release cannot read them (a rolling upgrade)', async () => {
  const { key } = await newGame(s.t);
  const sent: (string | null)[] = [];
  // An instance of release 0.0.0 validates the header as a WAL position, and refuses this release's tokens.
  const olderInstance: typeof globalThis.fetch = async (input, init) => {
    const request = new Request(input, init);
    sent.push(request.headers.get('x-svc-consistency'));
    if (request.method === 'GET' && request.headers.has('x-svc-consistency')) {
      const body = { code: 'bad_request', status: 400, message: 'x-svc-consistency must be the value of the x-svc-consistency header of a write\'s answer' };
      return new Response(JSON.stringify(body), { status: 400, headers: { 'content-type': 'application/json' } });
    }
    return fetch(request);
  };
  const client = createGuildhallClient({ baseUrl: s.baseUrl, apiKey: key, fetch: olderInstance });
  const created = await client.POST('/v1/groups', { body: { kind: 'guild', name: 'Rolling', visibility: 'public' } });
  const token = created.response.headers.get('x-svc-consistency');
  const read = await client.GET('/v1/groups/{id}', { params: { path: { id: created.data!.id } } });
  expect(read.response.status).toBe(200);
  expect(read.data?.name).toBe('Rolling');
  expect(sent).toEqual([null, token, null]);
  // The tokens stay for the next read, which may reach a newer instance.
  await client.GET('/v1/groups');
  expect(sent[3]).toBe(token);
});
