import { randomUUID } from 'node:crypto';
import { journalAudit } from '../helpers/journal';
import { asAdmin, bearer, newGame, startTestApp, type TestApp } from '../helpers/test-app';

type Role = 'viewer' | 'moderator' | 'admin' | 'owner';
const ROLES: Role[] = ['viewer', 'moderator', 'admin', 'owner'];

/**
 * The least operator role of every admin operation. A new admin route fails this test until it is
 * added here with the role it should have, and the route states the same one (@MinRole).
 */
const EXPECTED: Record<string, Role> = {
  adminListGames: 'viewer',
  adminGetGame: 'viewer',
  adminListApiKeys: 'viewer',
  adminGetPermissionCatalog: 'viewer',
  adminCheckPermission: 'viewer',
  adminGetGameConfig: 'viewer',
  adminGetUser: 'viewer',
  adminExportUser: 'viewer',
  adminExportUserByBody: 'viewer',
  adminListUserNotifications: 'viewer',
  adminListErasures: 'viewer',
  adminGetStats: 'viewer',
  adminListLatestAudit: 'viewer',
  adminSearchGameAudit: 'viewer',
  adminListGroups: 'viewer',
  adminSearchGroups: 'viewer',
  adminGetGroup: 'viewer',
  adminListGroupMembers: 'viewer',
  adminGetGroupMember: 'viewer',
  adminGetEffectivePermissions: 'viewer',
  adminSearchGroupAudit: 'viewer',
  listUserGames: 'viewer',
  adminListGroupRoles: 'viewer',
  adminListBans: 'viewer',
  adminGetEventFeed: 'viewer',
  adminStreamGameEvents: 'viewer',
  adminStreamGroupEvents: 'viewer',
  adminListWebhooks: 'viewer',
  adminListWebhookDeliveries: 'viewer',
  adminGetWebhookDelivery: 'viewer',
  adminGetGroupChurn: 'viewer',
  adminGetGroupGrowth: 'viewer',
  adminGetMemberActivity: 'viewer',
  adminGetRoleDistribution: 'viewer',
  adminGetPermissionUsage: 'viewer',
  adminWhoami: 'viewer',
  adminListOperatorAudit: 'viewer',
  adminListGroupJoinRequests: 'viewer',
  adminEraseUser: 'moderator',
  adminEraseUserByBody: 'moderator',
  adminKickMember: 'moderator',
  adminAssignMemberRole: 'moderator',
  adminTimeoutMember: 'moderator',
  adminLiftMemberTimeout: 'moderator',
  adminBanUser: 'moderator',
  adminLiftBan: 'moderator',
  adminBanFromGroup: 'moderator',
  adminUnbanFromGroup: 'moderator',
  adminApproveJoinRequest: 'moderator',
  adminDeclineJoinRequest: 'moderator',
  adminUpdateGroup: 'moderator',
  adminTestName: 'moderator',
  adminScanNames: 'moderator',
  adminDeleteGroup: 'moderator',
  adminRestoreGroup: 'moderator',
  adminListReports: 'moderator',
  adminListReportedSubjects: 'moderator',
  adminResolveReport: 'moderator',
  adminCreateGame: 'admin',
  adminMintApiKey: 'admin',
  adminRevokeApiKey: 'admin',
  adminUpdateGameConfig: 'admin',
  adminLinkIdentity: 'admin',
  adminApplyErasures: 'admin',
  adminCreateOperator: 'owner',
  adminListOperators: 'owner',
  adminUpdateOperator: 'owner',
  adminDeleteOperator: 'owner',
};

interface AdminOperation {
  id: string;
  method: string;
  path: string;
  role: Role | undefined;
  stream: boolean;
}

describe('operator roles on every admin route', () => {
  let t: TestApp;
  let gameId: string;
  const tokens = {} as Record<Role, string>;
  let operations: AdminOperation[];

  beforeAll(async () => {
    t = await startTestApp();
    ({ gameId } = await newGame(t, 'Roles'));
    for (const role of ROLES) tokens[role] = (await t.http.post('/v1/admin/operators').set(asAdmin).send({ name: role, role })).body.token;
    const document = (await t.http.get('/openapi.json')).body as {
      paths: Record<string, Record<string, { operationId: string; security?: Record<string, unknown>[]; responses: Record<string, { content?: object }>; 'x-svc-operator-role'?: Role }>>;
    };
    operations = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([, op]) => op.security?.some((s) => 'adminToken' in s))
        .map(([method, op]) => ({
          id: op.operationId,
          method,
          path,
          role: op['x-svc-operator-role'],
          stream: Object.keys(op.responses['200']?.content ?? {}).includes('text/event-stream'),
        })),
    );
  });
  afterAll(() => t.close());

  /** A call that reaches the handler only past the guard: ids that exist nowhere, bodies that are empty. */
  const call = (op: AdminOperation, token: string) => {
    const url = op.path.replace('{gameId}', gameId).replace(/\{[^}]+\}/g, () => randomUUID());
    const req = t.http[op.method as 'get' | 'post' | 'put' | 'patch' | 'delete'](url).set(bearer(token));
    return op.method === 'get' || op.method === 'delete' ? req : req.send({});
  };

  it('every admin operation states its least role, and it is the expected one', () => {
    expect(Object.fromEntries(operations.map((op) => [op.id, op.role]))).toEqual(EXPECTED);
  });

  it('an operator below the role gets 403 permission_denied and nothing is written; at the role, the guard lets it through', async () => {
    const writes = async () => (await t.db.query<{ n: string }>(`SELECT (SELECT count(*) FROM operator_audit) + (SELECT count(*) FROM games) + (SELECT count(*) FROM api_keys) + (SELECT count(*) FROM operators) + (SELECT count(*) FROM ${journalAudit()}) AS n`))[0].n;
    const before = await writes();
    const refused: string[] = [];
    for (const op of operations) {
      const needed = ROLES.indexOf(op.role!);
      for (const role of ROLES.slice(0, needed)) {
        const r = await call(op, tokens[role]);
        if (r.status !== 403 || r.body.code !== 'permission_denied') refused.push(`${op.id} as ${role}: ${r.status}`);
      }
    }
    expect(refused).toEqual([]);
    expect(await writes()).toBe(before);

    const passed: string[] = [];
    for (const op of operations.filter((o) => !o.stream)) {
      const r = await call(op, tokens[op.role!]);
      if (r.status === 401 || r.status === 403) passed.push(`${op.id} as ${op.role}: ${r.status} ${r.body.message}`);
    }
    expect(passed).toEqual([]);
  });

  it('the root token passes every role check', async () => {
    const stopped: string[] = [];
    for (const op of operations.filter((o) => !o.stream && o.role !== 'viewer')) {
      const r = await call(op, (asAdmin as { authorization: string }).authorization.slice('Bearer '.length));
      if (r.status === 401 || r.status === 403) stopped.push(`${op.id}: ${r.status}`);
    }
    expect(stopped).toEqual([]);
  });
});
