import { RELATIONSHIP_COLUMNS, type FriendListRow } from '../../src/friends/friend-rows';
import { toFriendshipDto } from '../../src/friends/friend-view';
import { befriend, friendsGame, U, uid, type FriendsGame } from '../helpers/friends';
import { pagesMatch, rawJson } from '../helpers/raw-json';
import { bearer, startTestApp, type TestApp } from '../helpers/test-app';

const enc = encodeURIComponent;

/**
 * The friends list is written as JSON by friendJson: the bytes are those JSON.stringify writes of
 * toFriendshipDto's Friendships, read here as the rows the list's order names, with an owner and
 * friends whose ids need escaping (control characters among them: the database packs a row's fields
 * with one) and tags on some friends; for the owner and for another viewer, page by page.
 */
describe('friends list, byte for byte', () => {
  let t: TestApp;
  let g: FriendsGame;
  const owner = uid('o "\\ 漢 \u0001\u001f\t');
  const friends = [uid('plain'), uid('q"\\ é😀 \u2028 \b\u007f'), uid('tagged'), uid('twice')];

  beforeAll(async () => {
    t = await startTestApp();
    g = await friendsGame(t, { friends: { requestsRequired: false, visibility: { allowed: ['private', 'friends-only', 'public'] } } });
    for (const f of friends) await befriend(g, owner, f);
    expect((await g.patch(`${U(owner)}/visibility`, { friendsListVisibility: 'public' })).status).toBe(200);
    const tags: string[] = [];
    for (const name of ['raid', 'pvp']) {
      const r = await g.post(`${U(owner)}/friend-tags`, { name });
      expect(r.status).toBe(201);
      tags.push(r.body.id as string);
    }
    expect((await g.put(`${U(owner)}/friends/${enc(friends[2])}/tags`, { tagIds: [tags[0]] })).status).toBe(200);
    expect((await g.put(`${U(owner)}/friends/${enc(friends[3])}/tags`, { tagIds: tags })).status).toBe(200);
  });
  afterAll(() => t.close());

  /** The owner's friendships in the list's order, as toFriendshipDto makes them (tags for the owner only). */
  const expected = async (withTags: boolean) =>
    (
      await t.db.query<FriendListRow>(
        `SELECT ${RELATIONSHIP_COLUMNS}, r.other_external_id AS "friendExternalId",
           ARRAY(SELECT l.tag_id::text FROM friend_tag_links l WHERE l.relationship_id = r.id ORDER BY l.tag_id) AS "tagIds"
         FROM user_relationships r WHERE r.game_id = $1 AND r.user_external_id = $2 AND r.type = 'friend'
         ORDER BY r.responded_at DESC, r.id DESC`,
        [g.gameId, owner],
      )
    ).map((r) => toFriendshipDto({ ...r, tagIds: withTags ? r.tagIds : [] }, owner));

  it("answers the owner what JSON.stringify writes of toFriendshipDto's Friendships, tags included, page by page", async () => {
    const items = await expected(true);
    expect(items).toHaveLength(4);
    expect(items.filter((f) => f.tagIds.length).map((f) => f.tagIds.length)).toEqual([2, 1]);
    expect(await rawJson(t, `${U(owner)}/friends`, bearer(g.key))).toBe(JSON.stringify({ items, nextCursor: null }));
    await pagesMatch(t, `${U(owner)}/friends`, bearer(g.key), items, 1);
    await pagesMatch(t, `${U(owner)}/friends`, bearer(g.key), items, 3);
  });

  it('answers another viewer the same friendships without their tags', async () => {
    await pagesMatch(t, `${U(owner)}/friends?viewer=${enc(uid('stranger'))}`, bearer(g.key), await expected(false), 2);
  });
});
