import { AUTO, befriend, block, friendsClient, patchGameConfig, U } from '../helpers/friends';
import { postGroup } from '../helpers/groups';
import { authedGame, startTestApp, type TestApp } from '../helpers/test-app';

/**
 * User ids have no length cap (SPEC §8) and a cursor has one (CURSOR_MAX_LENGTH): a list scoped
 * by a user names the user in its cursor by digest, so the next page of a user with a long id is
 * reachable like any other's.
 */
const LONG = `long-${'x'.repeat(4995)}`;
const PAGES = 3;

let t: TestApp;
let auth: Record<string, string>;
beforeAll(async () => {
  t = await startTestApp({ WEBHOOK_WORKER_ENABLED: 'false' });
  let gameId: string;
  ({ gameId, auth } = await authedGame(t, 'long ids'));
  await patchGameConfig(t, gameId, { config: AUTO });
  const g = friendsClient(t, gameId, auth.authorization.replace(/^Bearer /, ''));
  const call = async (method: 'post' | 'delete', path: string, body?: object) => {
    const r = await t.http[method](path).set(auth).send(body);
    if (r.status >= 300) throw new Error(`${method} ${path.slice(0, 80)}: ${r.status} ${r.text.slice(0, 200)}`);
  };
  for (let i = 0; i < PAGES; i++) {
    await befriend(g, LONG, `friend-${i}`);
    if ((await block(g, LONG, `blocked-${i}`)).status !== 201) throw new Error('block');
    const group = await postGroup(t, auth, { kind: 'guild', name: `Closed ${i}`, visibility: 'invite-only' });
    await call('post', `/v1/groups/${group.id}/join-requests`, { userId: LONG });
    await call('post', `/v1/groups/${group.id}/invitations`, { targetUserId: LONG });
  }
  // Banned, unbanned, banned again: three history events.
  await call('post', '/v1/bans', { userId: LONG, reason: 'cheating' });
  await call('delete', `/v1/bans/${encodeURIComponent(LONG)}`);
  await call('post', '/v1/bans', { userId: LONG });
});
afterAll(() => t.close());

/** Every page of `path` with limit=1: the cursors it was given and the ids of the items, in order. */
async function pageThrough(path: string): Promise<{ cursors: string[]; ids: string[] }> {
  const cursors: string[] = [];
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const r = await t.http.get(`${path}?limit=1${cursor ? `&cursor=${cursor}` : ''}`).set(auth);
    if (r.status !== 200) throw new Error(`${path.slice(0, 40)}… page ${cursors.length + 1}: ${r.status} ${r.text.slice(0, 200)}`);
    expect(r.body.items).toHaveLength(1);
    ids.push(r.body.items[0].id as string);
    cursor = r.body.nextCursor as string | null;
    if (cursor) cursors.push(cursor);
    if (ids.length > PAGES) throw new Error(`${path.slice(0, 40)}…: more pages than items`);
  } while (cursor);
  return { cursors, ids };
}

describe(`lists scoped by a user id of ${LONG.length} characters page through with limit=1`, () => {
  it.each([
    ['friends', `${U(LONG)}/friends`],
    ['blocks', `${U(LONG)}/blocks`],
    ['ban history', `/v1/bans/${encodeURIComponent(LONG)}/history`],
    ['join requests', `${U(LONG)}/join-requests`],
    ['invitation inbox', `${U(LONG)}/invitations`],
  ])('%s: every item once, with cursors whose length does not grow with the id', async (_list, path) => {
    const { cursors, ids } = await pageThrough(path);

    expect(ids).toHaveLength(PAGES);
    expect(new Set(ids).size).toBe(PAGES);
    expect(cursors).toHaveLength(PAGES - 1);
    for (const c of cursors) expect(c.length).toBeLessThan(300);
  });

  it("a cursor of one user's list is refused on another's (the digest still names the user)", async () => {
    const { cursors } = await pageThrough(`${U(LONG)}/friends`);
    const other = `${LONG.slice(0, -1)}y`;

    const r = await t.http.get(`${U(other)}/friends?limit=1&cursor=${cursors[0]}`).set(auth);

    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: 'bad_request', message: expect.stringMatching(/\bcursor\b/) });
  });
});
