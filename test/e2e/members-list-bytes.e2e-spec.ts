import { MEMBER_COLUMNS, type MemberRow } from '../../src/members/member-row';
import { toMemberDto } from '../../src/members/member-view';
import { seqUid as uid } from '../helpers/ids';
import { permissionApi } from '../helpers/permissions';
import { rawJson } from '../helpers/raw-json';
import { authedGame, startTestApp, type TestApp } from '../helpers/test-app';

/**
 * The member list is written as JSON by memberJson: the bytes are those JSON.stringify writes of
 * toMemberDto's Members, for every status, with metadata and notes that need escaping (control
 * characters among them: the database packs a row's fields with one), integer-like
 * metadata keys, roles with and without an expiry, a ban with its end, a timeout in force, and a
 * timeout that has ended; filtered by status and by a key, on every page.
 */
describe('the member list, byte for byte', () => {
  let t: TestApp;
  let auth: Record<string, string>;

  beforeAll(async () => {
    t = await startTestApp();
    ({ auth } = await authedGame(t, 'members bytes'));
  });
  afterAll(() => t.close());

  const text = (path: string) => rawJson(t, path, auth);
  const ok = async (p: PromiseLike<{ status: number; text: string }>, status: number) => {
    const r = await p;
    expect(`${r.status} ${r.text}`).toMatch(new RegExp(`^${status} `));
  };

  it("answers what JSON.stringify writes of toMemberDto's Members, on every page and filter", async () => {
    const api = permissionApi(t, auth);
    const owner = uid('owner');
    const group = await api.group({ creatorUserId: owner });
    const lead = await api.role(group, 'lead', 5);
    const temp = await api.role(group, 'temp', 1);
    await api.grant(lead, 'raid.lead');
    await api.grant(temp, 'raid.lead');
    const players = [uid('a "\\ 漢'), uid('plain'), uid('kicked'), uid('banned'), uid('timed'), uid('ended')];
    for (const p of players) await api.join(group, p);
    const [odd, plain, kicked, banned, timed, ended] = players;
    const member = (p: string) => `/v1/groups/${group}/members/${encodeURIComponent(p)}`;
    await ok(
      t.http.patch(member(odd)).set(auth).send({
        metadata: { s: 'x: "y", z', n: 1.5, deep: { '10': [true, null, 'q'], a: {} }, '': '' },
        notesPublic: 'tab\t é😀 \u2028 "q" \u0001\u001f\b\u007f',
        notesPrivate: 'back\\slash',
      }),
      200,
    );
    await api.assign(group, odd, lead);
    await api.assign(group, odd, temp, { expiresAt: new Date(Date.now() + 86_400_000).toISOString() });
    await api.assign(group, plain, temp);
    await api.kick(group, kicked);
    await ok(t.http.post(`/v1/groups/${group}/bans`).set(auth).send({ userId: banned, expiresAt: new Date(Date.now() + 3_600_000).toISOString() }), 201);
    await ok(t.http.post(`${member(timed)}/timeout`).set(auth).send({ duration: '1h' }), 200);
    await ok(t.http.post(`${member(ended)}/timeout`).set(auth).send({ duration: '1h' }), 200);
    await t.db.query(`UPDATE members SET timed_out_until = now() - interval '1 minute' WHERE group_id = $1 AND external_user_id = $2`, [group, ended]);

    const rows = (status: string | null) =>
      t.db.query<MemberRow>(
        `SELECT ${MEMBER_COLUMNS} FROM members m WHERE m.group_id = $1 AND ($2::text IS NULL OR m.status = $2) ORDER BY m.joined_at DESC, m.id DESC`,
        [group, status],
      );
    const all = (await rows(null)).map((r) => toMemberDto(r));
    expect(all).toHaveLength(7);
    expect(all.map((m) => m.status).sort()).toEqual(['active', 'active', 'active', 'active', 'active', 'banned', 'kicked']);
    expect(all.find((m) => m.userId === timed)?.timedOutUntil).not.toBeNull();
    expect(all.find((m) => m.userId === odd)?.roleGrants).toHaveLength(2);

    expect(await text(`/v1/groups/${group}/members?status=all`)).toBe(JSON.stringify({ items: all, nextCursor: null }));
    const active = (await rows('active')).map((r) => toMemberDto(r));
    expect(await text(`/v1/groups/${group}/members`)).toBe(JSON.stringify({ items: all, nextCursor: null }));
    expect(await text(`/v1/groups/${group}/members?status=active`)).toBe(JSON.stringify({ items: active, nextCursor: null }));
    const holders = all.filter((m) => m.roles.length > 0);
    expect(holders.map((m) => m.userId).sort()).toEqual([odd, plain].sort());
    expect(await text(`/v1/groups/${group}/members?permission=raid.lead`)).toBe(JSON.stringify({ items: holders, nextCursor: null }));

    let cursor: string | null = null;
    for (let i = 0; i < all.length; i++) {
      const page = await text(`/v1/groups/${group}/members?status=all&limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      cursor = (JSON.parse(page) as { nextCursor: string | null }).nextCursor;
      expect(page).toBe(JSON.stringify({ items: all.slice(i, i + 1), nextCursor: cursor }));
    }
    expect(cursor).toBeNull();
  });
});
