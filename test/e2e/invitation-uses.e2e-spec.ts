import { expectError } from '../helpers/errors';
import { postGroup } from '../helpers/groups';
import { identityOf } from '../helpers/identities';
import { journalAudit, journalEvents } from '../helpers/journal';
import { seqUid as uid } from '../helpers/ids';
import { ISO_MS, type Invitation } from '../helpers/shapes';
import { authedGame, startTestApp, type TestApp } from '../helpers/test-app';

/**
 * EXTENSIONS X4: open invitations with several uses. `maxUses` and `uses` on every Invitation,
 * accepts counted under concurrency (never past maxUses), the accept that reaches maxUses closing
 * the code, and maxUses 1 answering exactly as SPEC §3 Invitation.
 */

let t: TestApp;
let gameId: string;
let auth: Record<string, string>;

beforeAll(async () => {
  // Room for real parallelism in the races below.
  t = await startTestApp({ DATABASE_POOL_MAX: '20', WEBHOOK_WORKER_ENABLED: 'false' });
  ({ gameId, auth } = await authedGame(t, 'invitation uses'));
});
afterAll(() => t.close());

const group = async () => (await postGroup(t, auth, { kind: 'guild', name: 'G' })).id;
const createInv = (groupId: string, body: unknown) => t.http.post(`/v1/groups/${groupId}/invitations`).set(auth).send(body as object);
async function link(groupId: string, maxUses?: number): Promise<Invitation> {
  const r = await createInv(groupId, maxUses === undefined ? {} : { maxUses });
  if (r.status !== 201) throw new Error(`invite: ${r.status} ${r.text}`);
  return r.body;
}
const accept = (code: string, userId: string) => t.http.post(`/v1/invitations/${code}/accept`).set(auth).send({ userId });
const preview = async (code: string): Promise<Invitation> => (await t.http.get(`/v1/invitations/${code}`)).body;
const activeCount = async (groupId: string) =>
  Number((await t.db.query<{ n: string }>(`SELECT count(*) AS n FROM members WHERE group_id = $1 AND status = 'active'`, [groupId]))[0].n);

describe('creating', () => {
  it('maxUses defaults to 1; 1 to 10000 are taken; every Invitation answer carries maxUses and uses', async () => {
    const g = await group();
    expect(await link(g)).toMatchObject({ maxUses: 1, uses: 0 });
    const big = await link(g, 10_000);
    expect(big).toMatchObject({ maxUses: 10_000, uses: 0, targetUserId: null });
    expect(await preview(big.code)).toMatchObject({ maxUses: 10_000, uses: 0 });
    const listed = await t.http.get(`/v1/groups/${g}/invitations`).set(auth);
    for (const i of listed.body.items) expect(i).toEqual(expect.objectContaining({ maxUses: expect.any(Number), uses: 0 }));
    const bulk = await t.http.post(`/v1/groups/${g}/bulk-invite`).set(auth).send({ rows: [{ userId: uid() }] });
    expect(bulk.body.results[0].invitation).toMatchObject({ maxUses: 1, uses: 0 });
    const [event] = await t.db.query<{ body: { invitation: Invitation } }>(
      `SELECT body FROM ${journalEvents()} WHERE type = 'invitation.created' AND body->'invitation'->>'id' = $1`,
      [big.id],
    );
    expect(event.body.invitation).toMatchObject({ maxUses: 10_000, uses: 0 });
  });

  it.each<[string, unknown]>([
    ['0', 0],
    ['10001', 10_001],
    ['a fraction', 2.5],
    ['a numeric string', '5'],
    ['null', null],
    ['negative', -3],
  ])('maxUses %s is 400 naming maxUses, and nothing is created', async (_case, maxUses) => {
    const g = await group();
    const r = await createInv(g, { maxUses });
    expectError(r, 400, 'bad_request');
    expect(r.body.message).toMatch(/maxUses/);
    expect(await t.db.query('SELECT 1 FROM invitations WHERE group_id = $1', [g])).toEqual([]);
  });

  it('maxUses with a targetUserId is 400 naming maxUses', async () => {
    const g = await group();
    for (const maxUses of [1, 5]) {
      const r = await createInv(g, { targetUserId: uid(), maxUses });
      expectError(r, 400, 'bad_request');
      expect(r.body.message).toMatch(/maxUses/);
    }
  });
});

describe('accepting', () => {
  it('each accept by a new member counts one use; the one reaching maxUses closes the code; later accepts are 410', async () => {
    const g = await group();
    const inv = await link(g, 3);
    const [a, b, c, d] = [uid('a'), uid('b'), uid('c'), uid('d')];
    const first = await accept(inv.code, a);
    expect(first.status).toBe(201);
    expect(await preview(inv.code)).toMatchObject({ uses: 1, usedAt: null, usedBy: null });
    // Still usable, so still in the default list.
    expect((await t.http.get(`/v1/groups/${g}/invitations`).set(auth)).body.items.map((i: Invitation) => i.code)).toContain(inv.code);
    expect((await accept(inv.code, b)).status).toBe(201);
    expect((await accept(inv.code, c)).status).toBe(201);
    const used = await preview(inv.code);
    expect(used).toMatchObject({ uses: 3, maxUses: 3, usedAt: expect.stringMatching(ISO_MS), usedBy: await identityOf(t, gameId, c) });
    expectError(await accept(inv.code, d), 410, 'invitation_used');
    expect(await activeCount(g)).toBe(3);
    const joined = await t.db.query<{ payload: Record<string, unknown> }>(
      `SELECT payload FROM ${journalAudit()} WHERE group_id = $1 AND action = 'member.joined' ORDER BY created_at, id`,
      [g],
    );
    expect(joined.map((j) => j.payload)).toEqual([first.body.id, expect.any(String), expect.any(String)].map((memberId) => ({
      memberId,
      invitationId: inv.id,
      code: inv.code,
    })));
  });

  it('an accept that fails counts no use: an active member (409 already_member), a banned user (403 banned)', async () => {
    const g = await group();
    const inv = await link(g, 2);
    const member = uid('member');
    const banned = uid('banned');
    expect((await accept(inv.code, member)).status).toBe(201);
    expectError(await accept(inv.code, member), 409, 'already_member');
    await t.http.post('/v1/bans').set(auth).send({ userId: banned }).expect(201);
    expectError(await accept(inv.code, banned), 403, 'banned');
    expect(await preview(inv.code)).toMatchObject({ uses: 1, usedAt: null });
  });

  it('a partly used code past its expiry is 410 invitation_expired', async () => {
    const g = await group();
    const inv = await link(g, 5);
    expect((await accept(inv.code, uid())).status).toBe(201);
    await t.db.query(`UPDATE invitations SET expires_at = now() - interval '1 minute' WHERE id = $1`, [inv.id]);
    expectError(await accept(inv.code, uid()), 410, 'invitation_expired');
  });

  it('maxUses 1 answers exactly as a SPEC invitation: one accept, then 410 invitation_used', async () => {
    const g = await group();
    const inv = await link(g, 1);
    const u = uid();
    expect((await accept(inv.code, u)).status).toBe(201);
    expect(await preview(inv.code)).toMatchObject({ uses: 1, maxUses: 1, usedAt: expect.stringMatching(ISO_MS), usedBy: await identityOf(t, gameId, u) });
    expectError(await accept(inv.code, uid()), 410, 'invitation_used');
  });

  it('50 concurrent accepts of a maxUses 10 code: exactly 10 members, 40 × 410 invitation_used', async () => {
    const g = await group();
    const inv = await link(g, 10);
    const rs = await Promise.all(Array.from({ length: 50 }, (_, i) => accept(inv.code, uid(`crowd${i}`))));
    expect(rs.filter((r) => r.status === 201)).toHaveLength(10);
    const losers = rs.filter((r) => r.status !== 201);
    expect(losers).toHaveLength(40);
    for (const r of losers) expectError(r, 410, 'invitation_used');
    expect(await activeCount(g)).toBe(10);
    expect(await preview(inv.code)).toMatchObject({ uses: 10, usedAt: expect.stringMatching(ISO_MS) });
    expect((await t.http.get(`/v1/groups/${g}`).set(auth)).body.memberCount).toBe(10);
  });

  it('one user accepting a multi-use code several times at once: one 201, the rest 409 already_member, one use', async () => {
    const g = await group();
    const inv = await link(g, 5);
    const u = uid('eager');
    const rs = await Promise.all(Array.from({ length: 5 }, () => accept(inv.code, u)));
    expect(rs.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409]);
    expect(await preview(inv.code)).toMatchObject({ uses: 1, usedAt: null });
  });
});

describe('declining and revoking', () => {
  it('declining a code with several uses is 400, used up or not; maxUses 1 declines as SPEC (204, uses 0)', async () => {
    const g = await group();
    const multi = await link(g, 2);
    const decline = (code: string) => t.http.post(`/v1/invitations/${code}/decline`).set(auth).send({});
    expectError(await decline(multi.code), 400, 'bad_request');
    await accept(multi.code, uid());
    await accept(multi.code, uid());
    expectError(await decline(multi.code), 400, 'bad_request');
    const single = await link(g, 1);
    expect((await decline(single.code)).status).toBe(204);
    expect(await preview(single.code)).toMatchObject({ uses: 0, usedAt: expect.stringMatching(ISO_MS) });
  });

  it('revoking a partly used code removes it: no further accepts', async () => {
    const g = await group();
    const inv = await link(g, 4);
    await accept(inv.code, uid());
    expect((await t.http.delete(`/v1/invitations/${inv.code}`).set(auth)).status).toBe(204);
    expectError(await accept(inv.code, uid()), 404, 'not_found');
  });
});
