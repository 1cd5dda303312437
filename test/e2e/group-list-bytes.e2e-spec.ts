import { GROUP_COLUMNS, type GroupRow } from '../../src/groups/group-row';
import { toGroupDto } from '../../src/groups/group-view';
import { seqUid as uid } from '../helpers/ids';
import { permissionApi } from '../helpers/permissions';
import { pagesMatch, rawJson } from '../helpers/raw-json';
import { authedGame, startTestApp, type TestApp } from '../helpers/test-app';

/**
 * The group list and a group's children are written as JSON by groupJson: the bytes are those
 * JSON.stringify writes of toGroupDto's Groups, read here as the rows the list's order names, with
 * names, kinds, metadata and owners that need escaping (control characters among them: the database
 * packs a row's fields with one), tags, a passcode, a cap, a parent and a default role; with and
 * without a viewer, page by page.
 */
describe('group list and children, byte for byte', () => {
  let t: TestApp;
  let auth: Record<string, string>;
  let gameId: string;
  let parent: string;
  const owner = uid('o "\\ 漢');
  const stranger = uid('stranger');

  beforeAll(async () => {
    t = await startTestApp();
    ({ auth, gameId } = await authedGame(t, 'group list bytes'));
    const api = permissionApi(t, auth);
    parent = await api.group({ kind: 'clan', name: 'Parent', creatorUserId: owner });
    const bodies = [
      { kind: 'guild', name: 'plain', visibility: 'public' },
      {
        kind: 'k"\\ind',
        name: 'a", "b: c, d \\ tab\t é😀 \u2028 \u0001\u001f\b\u007f',
        visibility: 'invite-only',
        creatorUserId: owner,
        metadata: { s: 'x: "y", z \u0001\u001f', n: 1.5, deep: { '10': [true, null, 'q'], a: {} }, '': '' },
        tags: ['pvp', 'eu:west'],
        passcode: 'secret-1',
        maxMembers: 40,
      },
      { kind: 'guild', name: 'secret child', visibility: 'secret', creatorUserId: owner, metadata: { k: 'no numbers' } },
      { kind: 'guild', name: 'deleted child' },
    ];
    for (const body of bodies) {
      const id = await api.group(body);
      expect((await t.http.put(`/v1/groups/${id}/parent`).set(auth).send({ parentGroupId: parent })).status).toBe(200);
      if (body.name === 'secret child') {
        const role = await api.role(id, 'lead', 1);
        expect((await t.http.patch(`/v1/groups/${id}`).set(auth).send({ defaultRoleId: role })).status).toBe(200);
      }
      if (body.name === 'deleted child') expect((await t.http.delete(`/v1/groups/${id}`).set(auth)).status).toBe(200);
    }
  });
  afterAll(() => t.close());

  /** The live groups the list names, in its order, as toGroupDto makes them. */
  const expected = async (where: string, params: unknown[]) =>
    (
      await t.db.query<GroupRow>(
        `SELECT ${GROUP_COLUMNS} FROM groups g WHERE g.game_id = $1 AND g.soft_deleted_at IS NULL AND ${where}
         ORDER BY g.created_at DESC, g.id DESC`,
        [gameId, ...params],
      )
    ).map(toGroupDto);

  it("answers what JSON.stringify writes of toGroupDto's Groups, whole and page by page", async () => {
    const items = await expected('true', []);
    expect(items).toHaveLength(4);
    expect(await rawJson(t, '/v1/groups', auth)).toBe(JSON.stringify({ items, nextCursor: null }));
    await pagesMatch(t, '/v1/groups', auth, items, 1);
    await pagesMatch(t, '/v1/groups', auth, items, 3);
  });

  it('hides secret groups from a viewer who is not in them, and shows them to one who is', async () => {
    const all = await expected('true', []);
    const visible = await expected("g.visibility <> 'secret'", []);
    expect(visible).toHaveLength(3);
    await pagesMatch(t, `/v1/groups?viewer=${encodeURIComponent(stranger)}`, auth, visible, 2);
    await pagesMatch(t, `/v1/groups?viewer=${encodeURIComponent(owner)}`, auth, all, 2);
  });

  it("answers a group's live children the same way", async () => {
    const children = await expected('g.parent_group_id = $2', [parent]);
    expect(children.map((c) => c.name)).toEqual(['secret child', 'a", "b: c, d \\ tab\t é😀 \u2028 \u0001\u001f\b\u007f', 'plain']);
    expect(children[0]).toMatchObject({ defaultRoleId: expect.any(String), parentGroupId: parent });
    expect(await rawJson(t, `/v1/groups/${parent}/children`, auth)).toBe(JSON.stringify({ items: children, nextCursor: null }));
    await pagesMatch(t, `/v1/groups/${parent}/children`, auth, children, 1);
    await pagesMatch(t, `/v1/groups/${parent}/children?viewer=${encodeURIComponent(stranger)}`, auth, children.slice(1), 1);
  });
});
