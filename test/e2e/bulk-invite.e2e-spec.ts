import { randomUUID } from 'node:crypto';
import { expectError } from '../helpers/errors';
import { postGroup } from '../helpers/groups';
import { seqUid as uid } from '../helpers/ids';
import { journalAudit, journalEvents } from '../helpers/journal';
import { ISO_MS, type Invitation } from '../helpers/shapes';
import { authedGame, startTestApp, type TestApp } from '../helpers/test-app';

/**
 * DECISIONS §4 Bulk invite: `{ rows: [{ userId, roleId?, expiresIn? }] }`, at most 1000 rows
 * (malformed ones included; over it the whole request is 400), 200 `{ results }` in row order, each
 * `{ index, userId, invitation }` or `{ index, userId?, error: { code, message } }`, index from 0;
 * banned users are per-row `banned` errors. SPEC §8: row userId ≤ 255 chars; expiresIn a positive
 * integer then s, m, h or d.
 */

const CODE = /^[0-9a-f]{16}$/;

type Result =
  | { index: number; userId: string; invitation: Invitation; error?: undefined }
  | { index: number; userId?: string; invitation?: undefined; error: { code: string; message: string } };

describe('bulk invite', () => {
  let t: TestApp;
  let auth: Record<string, string>;
  let otherAuth: Record<string, string>;

  beforeAll(async () => {
    t = await startTestApp();
    ({ auth } = await authedGame(t, 'bulk'));
    ({ auth: otherAuth } = await authedGame(t, 'bulk other'));
  });
  afterAll(() => t.close());

  function createGroup(body: Record<string, unknown> = {}, as = auth): Promise<string> {
    return postGroup(t, as, { kind: 'guild', name: 'G', visibility: 'invite-only', ...body }).then((g) => g.id);
  }
  const bulk = (groupId: string, body: unknown, as = auth) => t.http.post(`/v1/groups/${groupId}/bulk-invite`).set(as).send(body as object);
  const invitationRows = (groupId: string) =>
    t.db.query<{ code: string; target_user_id: string | null }>('SELECT code, target_user_id FROM invitations WHERE group_id = $1', [groupId]);
  const auditCount = async (groupId: string) =>
    (await t.db.query(`SELECT 1 FROM ${journalAudit()} WHERE group_id = $1 AND action = $2`, [groupId, 'member.invited'])).length;
  const eventCount = async (groupId: string) =>
    (await t.db.query(`SELECT 1 FROM ${journalEvents()} WHERE group_id = $1 AND type = $2`, [groupId, 'invitation.created'])).length;

  it('1000 rows are accepted: 200 with 1000 results in row order, 1000 targeted invitations', async () => {
    const g = await createGroup();
    const users = Array.from({ length: 1000 }, (_, i) => `bulk-${i}-${randomUUID().slice(0, 6)}`);
    const r = await bulk(g, { rows: users.map((userId) => ({ userId })) });
    expect(r.status).toBe(200);
    const results = r.body.results as Result[];
    expect(results).toHaveLength(1000);
    results.forEach((res, i) => {
      expect(res.index).toBe(i);
      expect(res.userId).toBe(users[i]);
      expect(res.error).toBeUndefined();
      expect(res.invitation!.targetUserId).toBe(users[i]);
    });
    const rows = await invitationRows(g);
    expect(rows).toHaveLength(1000);
    expect(new Set(rows.map((x) => x.code)).size).toBe(1000);
    expect(new Set(rows.map((x) => x.target_user_id))).toEqual(new Set(users));
    expect(await auditCount(g)).toBe(1000);
    expect(await eventCount(g)).toBe(1000);
  });

  it('1001 rows are 400 for the whole request and nothing is created', async () => {
    const g = await createGroup();
    const r = await bulk(g, { rows: Array.from({ length: 1001 }, (_, i) => ({ userId: `over-${i}` })) });
    expectError(r, 400, 'bad_request');
    expect(r.body.message).toContain('rows');
    expect(await invitationRows(g)).toHaveLength(0);
    expect(await auditCount(g)).toBe(0);
    expect(await eventCount(g)).toBe(0);
  });

  it('malformed rows count toward the 1000: 1001 rows, most of them malformed, are 400 too', async () => {
    const g = await createGroup();
    const rows: unknown[] = Array.from({ length: 1000 }, () => 42);
    rows.push({ userId: 'the-only-good-row' });
    expectError(await bulk(g, { rows }), 400, 'bad_request');
    expect(await invitationRows(g)).toHaveLength(0);
  });

  it('malformed rows come back as per-row errors with their index (from 0); good rows still get invitations', async () => {
    const g = await createGroup();
    const ok255 = 'x'.repeat(255);
    const rows: unknown[] = [
      { userId: 'good-0' }, // 0
      42, // 1 non-object
      null, // 2
      'a string', // 3
      ['array'], // 4
      {}, // 5 missing userId
      { userId: '' }, // 6 empty
      { userId: 'y'.repeat(256) }, // 7 over 255
      { userId: ok255 }, // 8 exactly 255
      { userId: 12345 }, // 9 non-string
      { userId: 'bad-exp-1', expiresIn: '0d' }, // 10
      { userId: 'bad-exp-2', expiresIn: '7x' }, // 11
      { userId: 'bad-exp-3', expiresIn: '-1h' }, // 12
      { userId: 'bad-exp-4', expiresIn: 5 }, // 13
      { userId: 'bad-exp-5', expiresIn: '1.5h' }, // 14
      { userId: 'bad-exp-6', expiresIn: '' }, // 15
      { userId: 'good-16', expiresIn: '2h', roleId: 'role-hint' }, // 16
    ];
    const before = Date.now();
    const r = await bulk(g, { rows });
    const after = Date.now();
    expect(r.status).toBe(200);
    const results = r.body.results as Result[];
    expect(results.map((x) => x.index)).toEqual(rows.map((_, i) => i));

    const errorAt = (i: number) => {
      const res = results[i];
      expect(res.invitation).toBeUndefined();
      expect(res.error).toEqual({ code: 'bad_request', message: expect.any(String) });
      return res;
    };
    for (const i of [1, 2, 3, 4]) {
      // not an object: no userId to echo
      expect(errorAt(i).error!.message).toMatch(/object/);
      expect(results[i]).toEqual({ index: i, error: expect.anything() });
    }
    for (const i of [5, 6, 9]) expect(errorAt(i).error!.message).toContain('userId');
    const long = errorAt(7);
    expect(long.error!.message).toContain('userId');
    expect(long.error!.message).toContain('255');
    for (let i = 10; i <= 15; i++) {
      const res = errorAt(i);
      expect(res.userId).toBe(`bad-exp-${i - 9}`);
      expect(res.error!.message).toContain('expiresIn');
    }

    expect(results[0]).toEqual({ index: 0, userId: 'good-0', invitation: expect.objectContaining({ targetUserId: 'good-0', expiresAt: null }) });
    expect(results[8]).toEqual({ index: 8, userId: ok255, invitation: expect.objectContaining({ targetUserId: ok255 }) });
    const timed = results[16].invitation!;
    expect(timed).toEqual({
      id: expect.any(String),
      groupId: g,
      code: expect.stringMatching(CODE),
      roleId: 'role-hint',
      targetUserId: 'good-16',
      invitedByUserId: null,
      createdBy: null,
      createdAt: expect.stringMatching(ISO_MS),
      expiresAt: expect.stringMatching(ISO_MS),
      usedAt: null,
      usedBy: null,
      maxUses: 1,
      uses: 0,
    });
    const exp = Date.parse(timed.expiresAt!);
    expect(exp).toBeGreaterThanOrEqual(before + 7_200_000 - 1_000);
    expect(exp).toBeLessThanOrEqual(after + 7_200_000 + 1_000);

    const stored = await invitationRows(g);
    expect(stored.map((x) => x.target_user_id).sort()).toEqual(['good-0', 'good-16', ok255].sort());
    expect(await auditCount(g)).toBe(3);
    expect(await eventCount(g)).toBe(3);
  });

  it('a row userId holding a NUL character is a per-row bad_request; the other rows still succeed', async () => {
    const g = await createGroup();
    const good = uid('good');
    const r = await bulk(g, { rows: [{ userId: 'bad\u0000user' }, { userId: good }] });
    expect(r.status).toBe(200);
    const results = r.body.results as Result[];
    expect(results[0]).toMatchObject({ index: 0, error: { code: 'bad_request' } });
    expect(results[0].error!.message).toContain('userId');
    expect(results[1]).toMatchObject({ index: 1, userId: good, invitation: { targetUserId: good } });
    expect((await invitationRows(g)).map((x) => x.target_user_id)).toEqual([good]);
  });

  it('results keep row order when successes and failures interleave', async () => {
    const g = await createGroup();
    const banned = uid('banned');
    expect((await t.http.post('/v1/bans').set(auth).send({ userId: banned })).status).toBe(201);
    const a = uid('a');
    const b = uid('b');
    const rows = [{ userId: a }, { userId: banned }, {}, { userId: b }, { userId: banned }];
    const r = await bulk(g, { rows });
    expect(r.status).toBe(200);
    const results = r.body.results as Result[];
    expect(results.map((x) => [x.index, x.userId ?? null, x.error?.code ?? 'ok'])).toEqual([
      [0, a, 'ok'],
      [1, banned, 'banned'],
      [2, null, 'bad_request'],
      [3, b, 'ok'],
      [4, banned, 'banned'],
    ]);
    expect(results[3].invitation!.targetUserId).toBe(b);
  });

  it('invitations are targeted to the row userId: another user cannot accept, the target can', async () => {
    const g = await createGroup();
    const target = uid('target');
    const r = await bulk(g, { rows: [{ userId: target }] });
    const inv = (r.body.results as Result[])[0].invitation!;
    expect(inv.targetUserId).toBe(target);
    const preview = await t.http.get(`/v1/invitations/${inv.code}`);
    expect(preview.body).toEqual({ ...inv, group: { id: g, name: 'G', kind: 'guild' } });
    expectError(await t.http.post(`/v1/invitations/${inv.code}/accept`).set(auth).send({ userId: uid('intruder') }), 403, 'permission_denied');
    const ok = await t.http.post(`/v1/invitations/${inv.code}/accept`).set(auth).send({ userId: target });
    expect(ok.status).toBe(201);
    expect(ok.body).toMatchObject({ groupId: g, userId: target, status: 'active' });
  });

  it('an empty rows array is accepted with no results', async () => {
    const g = await createGroup();
    const r = await bulk(g, { rows: [] });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ results: [] });
  });

  it.each<[string, unknown]>([
    ['a missing rows', {}],
    ['rows as an object', { rows: { userId: 'x' } }],
    ['rows as a string', { rows: 'x' }],
    ['rows null', { rows: null }],
  ])('%s is 400 naming rows', async (_label, body) => {
    const g = await createGroup();
    const r = await bulk(g, body);
    expectError(r, 400, 'bad_request');
    expect(r.body.message).toContain('rows');
  });

  it('an array body or malformed JSON is 400', async () => {
    const g = await createGroup();
    expectError(await bulk(g, [{ userId: 'x' }]), 400, 'bad_request');
    const bad = await t.http.post(`/v1/groups/${g}/bulk-invite`).set(auth).set('content-type', 'application/json').send('{"rows": [');
    expectError(bad, 400, 'bad_request');
    expect(await invitationRows(g)).toHaveLength(0);
  });

  it('unknown, malformed, other-game or soft-deleted group is 404; no key is 401', async () => {
    const rows = [{ userId: 'x' }];
    expectError(await bulk(randomUUID(), { rows }), 404, 'not_found');
    expectError(await bulk('nope', { rows }), 404, 'not_found');
    const theirs = await createGroup({}, otherAuth);
    expectError(await bulk(theirs, { rows }), 404, 'not_found');
    expect(await invitationRows(theirs)).toHaveLength(0);
    const g = await createGroup();
    expect((await t.http.delete(`/v1/groups/${g}`).set(auth)).status).toBe(200);
    expectError(await bulk(g, { rows }), 404, 'not_found');
    expectError(await t.http.post(`/v1/groups/${g}/bulk-invite`).send({ rows }), 401, 'invalid_api_key');
  });

  it('creates no identity for the targets (SPEC §1.4: inviting is not an auto-creating write)', async () => {
    const g = await createGroup();
    const target = uid('noid');
    expect((await bulk(g, { rows: [{ userId: target }] })).status).toBe(200);
    expect(await t.db.query('SELECT 1 FROM user_identities WHERE external_id = $1', [target])).toHaveLength(0);
  });
});
