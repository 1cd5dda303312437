import { GROUP_COLUMNS, type GroupRow } from '../../src/groups/group-row';
import { toGroupDto } from '../../src/groups/group-view';
import { seqUid as uid } from '../helpers/ids';
import { permissionApi } from '../helpers/permissions';
import { rawJson } from '../helpers/raw-json';
import { authedGame, startTestApp, type TestApp } from '../helpers/test-app';

/**
 * The groups allowing a key are written as JSON by groupJson: the bytes are those JSON.stringify
 * writes of toGroupDto's Groups, with a name, kind, metadata and owner that need escaping (control
 * characters among them: the database packs a row's fields with one), tags, a passcode, a cap, a
 * parent and a default role, and integer-like metadata keys.
 */
describe('groups allowing a key, byte for byte', () => {
  let t: TestApp;
  let auth: Record<string, string>;
  let gameId: string;

  beforeAll(async () => {
    t = await startTestApp();
    ({ auth, gameId } = await authedGame(t, 'groups bytes'));
  });
  afterAll(() => t.close());

  const text = (path: string) => rawJson(t, path, auth);

  it("answers what JSON.stringify writes of toGroupDto's Groups, on every page", async () => {
    const api = permissionApi(t, auth);
    const player = uid('p "\\ 漢');
    const parent = await api.group({ kind: 'clan', name: 'Parent' });
    const bodies = [
      { kind: 'guild', name: 'plain', visibility: 'public', creatorUserId: player },
      {
        kind: 'k"\\ind',
        name: 'a", "b: c, d \\ tab\t é😀 \u2028 \u0001\u001f\b\u007f',
        visibility: 'invite-only',
        creatorUserId: player,
        metadata: { s: 'x: "y", z \u0001\u001f', n: 1.5, deep: { '10': [true, null, 'q'], a: {} }, '': '' },
        tags: ['pvp', 'eu:west'],
        passcode: 'secret-1',
        maxMembers: 40,
      },
      { kind: 'guild', name: 'child', visibility: 'secret', creatorUserId: player, metadata: { k: 'no numbers' } },
    ];
    for (const body of bodies) {
      const id = await api.group(body);
      const role = await api.role(id, 'lead', 1);
      await api.grant(role, 'raid.lead');
      await api.assign(id, player, role);
      if (body.name !== 'child') continue;
      expect((await t.http.put(`/v1/groups/${id}/parent`).set(auth).send({ parentGroupId: parent })).status).toBe(200);
      expect((await t.http.patch(`/v1/groups/${id}`).set(auth).send({ defaultRoleId: role })).status).toBe(200);
    }
    const rows = await t.db.query<GroupRow>(
      `SELECT ${GROUP_COLUMNS} FROM groups g JOIN members m ON m.group_id = g.id
       WHERE g.game_id = $1 AND m.external_user_id = $2 ORDER BY m.joined_at DESC, m.id DESC`,
      [gameId, player],
    );
    expect(rows).toHaveLength(3);
    expect(rows[0]).toMatchObject({ parentGroupId: parent, defaultRoleId: expect.any(String) });
    const items = rows.map(toGroupDto);
    const path = `/v1/users/${encodeURIComponent(player)}/groups?permission=raid.lead`;
    expect(await text(path)).toBe(JSON.stringify({ items, nextCursor: null }));
    let cursor: string | null = null;
    for (let i = 0; i < 3; i++) {
      const page = await text(`${path}&limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      cursor = (JSON.parse(page) as { nextCursor: string | null }).nextCursor;
      expect(page).toBe(JSON.stringify({ items: items.slice(i, i + 1), nextCursor: cursor }));
    }
    expect(cursor).toBeNull();
  });
});
