import { expectError } from '../helpers/errors';
import { journalAudit, journalEvents } from '../helpers/journal';
import { authedGame, startTestApp, type TestApp } from '../helpers/test-app';

/**
 * A group's tags, member cap and owner (EXTENSIONS X5, X6) as fields: set on create and PATCH,
 * validated, answered everywhere a Group is, and written into group.updated's diff.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ WEBHOOK_WORKER_ENABLED: 'false' });
});
afterAll(() => t.close());

type Auth = Record<string, string>;
const create = (auth: Auth, body: Record<string, unknown>) => t.http.post('/v1/groups').set(auth).send({ kind: 'guild', name: 'Knights of Dawn', ...body });
const patch = (auth: Auth, id: string, body: Record<string, unknown>) => t.http.patch(`/v1/groups/${id}`).set(auth).send(body);

describe('tags and maxMembers', () => {
  it('are stored on create and answered by every Group read', async () => {
    const g = await authedGame(t);
    const r = await create(g.auth, { tags: ['lang:en', 'region:eu', 'casual_2-x'], maxMembers: 50 });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ tags: ['lang:en', 'region:eu', 'casual_2-x'], maxMembers: 50, ownerUserId: null });
    const got = await t.http.get(`/v1/groups/${r.body.id}`).set(g.auth);
    expect(got.body).toMatchObject({ tags: ['lang:en', 'region:eu', 'casual_2-x'], maxMembers: 50 });
    const listed = await t.http.get('/v1/groups').set(g.auth);
    expect(listed.body.items[0]).toMatchObject({ tags: ['lang:en', 'region:eu', 'casual_2-x'], maxMembers: 50 });
  });

  it.each([
    ['a tag with an upper-case letter', { tags: ['Lang:en'] }, 'tags'],
    ['a tag with a space', { tags: ['two words'] }, 'tags'],
    ['an empty tag', { tags: [''] }, 'tags'],
    ['a tag of 33 characters', { tags: ['a'.repeat(33)] }, 'tags'],
    ['11 tags', { tags: Array.from({ length: 11 }, (_, i) => `t${i}`) }, 'tags'],
    ['a repeated tag', { tags: ['pvp', 'pvp'] }, 'tags'],
    ['tags that are not a list', { tags: 'pvp' }, 'tags'],
    ['a tag that is not a string', { tags: [7] }, 'tags'],
    ['maxMembers 0', { maxMembers: 0 }, 'maxMembers'],
    ['maxMembers 100001', { maxMembers: 100_001 }, 'maxMembers'],
    ['maxMembers 1.5', { maxMembers: 1.5 }, 'maxMembers'],
    ['maxMembers as a string', { maxMembers: '10' }, 'maxMembers'],
  ])('400 naming the field for %s, on create and on PATCH, writing nothing', async (_what, body, field) => {
    const g = await authedGame(t);
    const created = await create(g.auth, body);
    expectError(created, 400, 'bad_request');
    expect(created.body.message).toContain(field);
    const ok = await create(g.auth, {});
    const patched = await patch(g.auth, ok.body.id, body);
    expectError(patched, 400, 'bad_request');
    expect(patched.body.message).toContain(field);
    const [{ n }] = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM groups WHERE game_id = $1', [g.gameId]);
    expect(n).toBe(1);
  });

  it('accept the bounds: 10 tags of 32 characters, maxMembers 1 and 100000, and null for no cap', async () => {
    const g = await authedGame(t);
    const tags = Array.from({ length: 10 }, (_, i) => `${i}`.padEnd(32, 'x'));
    expect((await create(g.auth, { tags, maxMembers: 1 })).status).toBe(201);
    expect((await create(g.auth, { maxMembers: 100_000 })).status).toBe(201);
    expect((await create(g.auth, { maxMembers: null, tags: [] })).body).toMatchObject({ maxMembers: null, tags: [] });
  });

  it('PATCH writes a change into group.updated (audit and event) and leaves an unchanged value out', async () => {
    const g = await authedGame(t);
    const { body: group } = await create(g.auth, { tags: ['pvp'], maxMembers: 10 });
    const r = await patch(g.auth, group.id, { tags: ['pvp', 'lang:fr'], maxMembers: null });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ tags: ['pvp', 'lang:fr'], maxMembers: null });
    const [audit] = await t.db.query<{ payload: unknown }>(`SELECT payload FROM ${journalAudit()} WHERE group_id = $1 AND action = 'group.updated'`, [group.id]);
    expect(audit.payload).toEqual({ before: { tags: ['pvp'], maxMembers: 10 }, after: { tags: ['pvp', 'lang:fr'], maxMembers: null } });
    const [event] = await t.db.query<{ body: { changes: string[]; group: { tags: string[] } } }>(
      `SELECT body FROM ${journalEvents()} WHERE group_id = $1 AND type = 'group.updated'`,
      [group.id],
    );
    expect(event.body.changes).toEqual(['tags', 'maxMembers']);
    expect(event.body.group.tags).toEqual(['pvp', 'lang:fr']);

    const same = await patch(g.auth, group.id, { tags: ['pvp', 'lang:fr'], maxMembers: null });
    expect(same.status).toBe(200);
    const [{ n }] = await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${journalAudit()} WHERE group_id = $1 AND action = 'group.updated'`, [group.id]);
    expect(n).toBe(1);
  });
});

describe('the owner at creation', () => {
  it('is the creator, whether the game knew them or not; a group created without one has none', async () => {
    const g = await authedGame(t);
    const fresh = await create(g.auth, { creatorUserId: 'newcomer' });
    expect(fresh.body.ownerUserId).toBe('newcomer');
    const known = await create(g.auth, { creatorUserId: 'newcomer', name: 'Second' });
    expect(known.body.ownerUserId).toBe('newcomer');
    const rows = await t.db.query<{ owner_user_id: string; owner_external_id: string; member: string }>(
      `SELECT g.owner_user_id, g.owner_external_id, m.user_id AS member FROM groups g JOIN members m ON m.group_id = g.id WHERE g.game_id = $1`,
      [g.gameId],
    );
    expect(rows).toHaveLength(2);
    for (const r of rows) expect(r).toEqual({ owner_user_id: r.member, owner_external_id: 'newcomer', member: r.member });
    const [created] = await t.db.query<{ body: { group: { ownerUserId: string } } }>(
      `SELECT body FROM ${journalEvents()} WHERE group_id = $1 AND type = 'group.created'`,
      [fresh.body.id],
    );
    expect(created.body.group.ownerUserId).toBe('newcomer');
    expect((await create(g.auth, { name: 'Ownerless' })).body.ownerUserId).toBeNull();
  });
});
