import { asAdmin, bearer, newGame, startTestApp, type TestApp } from '../helpers/test-app';

type Call = { method: 'post' | 'put' | 'patch' | 'delete'; url: string; body?: object };

/** Admin POSTs that only read (a POST for the body a text travels in): nothing to audit. */
const READS = ['adminTestName'];

/**
 * Every admin mutation leaves an operator audit entry naming who made it. The table lists each
 * mutating admin operation of the API document with a call that succeeds and the action it must
 * record: a new admin mutation fails this test until it is added here (and audited).
 */
describe('the operator audit covers every admin mutation', () => {
  let t: TestApp;
  let owner: { id: string; token: string };
  let operations: string[];
  const s: Record<string, string> = {};

  beforeAll(async () => {
    t = await startTestApp();
    const made = await t.http.post('/v1/admin/operators').set(asAdmin).send({ name: 'Audited owner', role: 'owner' });
    owner = { id: made.body.id, token: made.body.token };
    const document = (await t.http.get('/openapi.json')).body as { paths: Record<string, Record<string, { operationId: string; security?: Record<string, unknown>[] }>> };
    operations = Object.values(document.paths).flatMap((item) =>
      Object.entries(item)
        .filter(([method, op]) => method !== 'get' && op.security?.some((sec) => 'adminToken' in sec))
        .map(([, op]) => op.operationId)
        .filter((id) => !READS.includes(id)),
    );

    const { gameId, key } = await newGame(t, 'Audit coverage');
    const game = bearer(key);
    Object.assign(s, { gameId });
    const group = await t.http.post('/v1/groups').set(game).send({ kind: 'guild', name: 'Watched', visibility: 'public', creatorUserId: 'lead' });
    s.groupId = group.body.id;
    for (const userId of ['kicked', 'banned']) await t.http.post(`/v1/groups/${s.groupId}/join`).set(game).send({ userId });
    s.roleId = (await t.http.post(`/v1/groups/${s.groupId}/roles`).set(game).send({ name: 'Officer', priority: 1 })).body.id;
    const closed = await t.http.post('/v1/groups').set(game).send({ kind: 'guild', name: 'Closed', visibility: 'invite-only' });
    s.closedId = closed.body.id;
    s.approveId = (await t.http.post(`/v1/groups/${s.closedId}/join-requests`).set(game).send({ userId: 'asker-1' })).body.id;
    s.declineId = (await t.http.post(`/v1/groups/${s.closedId}/join-requests`).set(game).send({ userId: 'asker-2' })).body.id;
    s.spareKeyId = (await t.http.post(`/v1/admin/games/${gameId}/api-keys`).set(asAdmin)).body.id;
    const other = await newGame(t, 'Where the player started');
    await t.http.post('/v1/users/traveller/blocks').set(bearer(other.key)).send({ targetSvcUserId: 'someone' });
    const [row] = await t.db.query<{ user_id: string }>(`SELECT user_id FROM user_identities WHERE game_id = $1 AND external_id = 'traveller'`, [other.gameId]);
    s.travellerId = row.user_id;
    s.operatorId = (await t.http.post('/v1/admin/operators').set(asAdmin).send({ name: 'Short-lived', role: 'viewer' })).body.id;
    s.reportId = (await t.http.post('/v1/reports').set(game).send({ reporterUserId: 'kicked', subject: { type: 'group', id: s.groupId }, category: 'spam' })).body.id;
  });
  afterAll(() => t.close());

  const A = () => `/v1/admin/games/${s.gameId}`;
  /** In the order they run: later calls need what earlier ones did (a ban before its lifting). */
  const TABLE: Record<string, [action: string, call: () => Call | Promise<Call>]> = {
    adminCreateGame: ['game.created', () => ({ method: 'post', url: '/v1/admin/games', body: { name: 'Made by an operator' } })],
    adminMintApiKey: ['api_key.minted', () => ({ method: 'post', url: `${A()}/api-keys`, body: { scopes: ['read'] } })],
    adminRevokeApiKey: ['api_key.revoked', () => ({ method: 'post', url: `${A()}/api-keys/${s.spareKeyId}/revoke` })],
    adminUpdateGameConfig: ['game.config_updated', () => ({ method: 'patch', url: `${A()}/config`, body: { networkId: 'audited-network' } })],
    adminLinkIdentity: ['identity.linked', () => ({ method: 'put', url: `${A()}/users/traveller-here`, body: { svcUserId: s.travellerId } })],
    adminAssignMemberRole: ['member.role_assigned', () => ({ method: 'post', url: `${A()}/groups/${s.groupId}/members/lead/roles/${s.roleId}`, body: { expiresIn: '7d' } })],
    adminTimeoutMember: ['member.timed_out', () => ({ method: 'post', url: `${A()}/groups/${s.groupId}/members/kicked/timeout`, body: { duration: '10m', reason: 'spam' } })],
    adminLiftMemberTimeout: ['member.timeout_lifted', () => ({ method: 'delete', url: `${A()}/groups/${s.groupId}/members/kicked/timeout` })],
    adminKickMember: ['member.kicked', () => ({ method: 'post', url: `${A()}/groups/${s.groupId}/members/kicked/kick`, body: { reason: 'spam' } })],
    adminBanFromGroup: ['group.ban_added', () => ({ method: 'post', url: `${A()}/groups/${s.groupId}/bans`, body: { userId: 'banned' } })],
    adminUnbanFromGroup: ['group.ban_removed', () => ({ method: 'delete', url: `${A()}/groups/${s.groupId}/bans/banned` })],
    adminBanUser: ['game.ban_added', () => ({ method: 'post', url: `${A()}/bans`, body: { userId: 'cheater', reason: 'aimbot' } })],
    adminLiftBan: ['game.ban_removed', () => ({ method: 'delete', url: `${A()}/bans/cheater` })],
    adminApproveJoinRequest: ['join_request.approved', () => ({ method: 'post', url: `${A()}/join-requests/${s.approveId}/approve` })],
    adminDeclineJoinRequest: ['join_request.declined', () => ({ method: 'post', url: `${A()}/join-requests/${s.declineId}/decline`, body: { reason: 'full' } })],
    adminUpdateGroup: ['group.updated', () => ({ method: 'patch', url: `${A()}/groups/${s.groupId}`, body: { name: 'Watched by operators' } })],
    adminDeleteGroup: ['group.deleted', () => ({ method: 'delete', url: `${A()}/groups/${s.groupId}` })],
    adminRestoreGroup: ['group.restored', () => ({ method: 'post', url: `${A()}/groups/${s.groupId}/restore` })],
    adminScanNames: ['names.scanned', () => ({ method: 'post', url: `${A()}/names/scan` })],
    adminResolveReport: ['report.resolved', () => ({ method: 'post', url: `${A()}/reports/${s.reportId}/resolve`, body: { resolution: 'actioned', note: 'renamed' } })],
    adminExportUserByBody: ['user.exported', () => ({ method: 'post', url: `${A()}/users/export`, body: { userId: 'lead' } })],
    adminEraseUser: ['user.erased', () => ({ method: 'delete', url: `${A()}/users/lead` })],
    adminEraseUserByBody: ['user.erased', () => ({ method: 'post', url: `${A()}/users/erase`, body: { userId: 'kicked' } })],
    adminApplyErasures: [
      'erasures.applied',
      async () => ({ method: 'post', url: '/v1/admin/erasures/apply', body: { items: (await t.http.get('/v1/admin/erasures').set(asAdmin)).body.items } }),
    ],
    adminCreateOperator: ['operator.created', () => ({ method: 'post', url: '/v1/admin/operators', body: { name: 'Made by an owner', role: 'moderator' } })],
    adminUpdateOperator: ['operator.role_changed', () => ({ method: 'patch', url: `/v1/admin/operators/${s.operatorId}`, body: { role: 'admin' } })],
    adminDeleteOperator: ['operator.deleted', () => ({ method: 'delete', url: `/v1/admin/operators/${s.operatorId}` })],
  };

  it('the table names every admin mutation of the API document', () => {
    expect([...operations].sort()).toEqual(Object.keys(TABLE).sort());
  });

  it('each one, made by an operator, writes one entry with its action, naming the operator', async () => {
    const missed: string[] = [];
    for (const [operationId, [action, make]] of Object.entries(TABLE)) {
      const call = await make();
      const [{ last }] = await t.db.query<{ last: string }>('SELECT coalesce(max(id), 0)::text AS last FROM operator_audit');
      const req = t.http[call.method](call.url).set(bearer(owner.token));
      const r = await (call.body ? req.send(call.body) : req);
      if (r.status >= 300) {
        missed.push(`${operationId}: ${r.status} ${r.text}`);
        continue;
      }
      const added = await t.db.query<{ action: string; operator_id: string; operator_name: string }>(
        'SELECT action, operator_id, operator_name FROM operator_audit WHERE id > $1::bigint ORDER BY id',
        [last],
      );
      if (added.length !== 1 || added[0].action !== action || added[0].operator_id !== owner.id || added[0].operator_name !== 'Audited owner') {
        missed.push(`${operationId}: expected one ${action} by the owner, got ${JSON.stringify(added)}`);
      }
    }
    expect(missed).toEqual([]);
  });
});
