// The rows of the permission model's many answers (EXTENSIONS X8): a batch of 100 checks whose
// members' grant profiles are cached (half of the keys never asked before), the same size of batch
// over members none of whose profiles is cached, a member's effective permissions, the groups in which a
// player is allowed a key, and the first page of the big group's members holding a key. Set up
// through the API (and one set-based insert for the big group's role holders), each first answer
// checked; the rows are then measured as the other read rows, each followed by its SQL alone.
import { randomBytes } from 'node:crypto';
import { groupUuid, memberStride } from './seed.mjs';

/**
 * `api(method, path, body, expect)` calls the server with the game's key; `q` is a client of the
 * database; `G0` the 100,000-member group; `sizes` the seed's. Returns `rowsFor(base)`: rows as
 * measureHttp takes them.
 */
export async function permissionScenarios({ api, q, key, G0, sizes }) {
  const headers = { authorization: `Bearer ${key}` };
  const json = { ...headers, 'content-type': 'application/json' };

  // A member of the big group with 5 roles of 8 keys each (overlapping by half), one of them for a
  // month, and two overrides: one denying a key of a role, one granting a key no role has.
  const holder = 'p321';
  for (let i = 0; i < 5; i++) {
    const role = await api('POST', `/v1/groups/${G0}/roles`, { name: `x8 role ${i}`, priority: i }, 201);
    for (let k = 0; k < 8; k++) await api('POST', `/v1/roles/${role.id}/permissions`, { permission: `x8.k${i * 4 + k}` }, 200);
    await api('POST', `/v1/groups/${G0}/members/${holder}/roles/${role.id}`, i === 4 ? { expiresIn: '30d' } : undefined, 200);
  }
  await api('POST', `/v1/groups/${G0}/members/${holder}/permissions/x8.k3`, { allowed: false }, 200);
  await api('POST', `/v1/groups/${G0}/members/${holder}/permissions/x8.extra`, { allowed: true }, 200);
  const effectivePath = `/v1/groups/${G0}/members/${holder}/permissions`;
  const effective = await api('GET', effectivePath, undefined, 200);
  if (effective.permissions.length !== 24) throw new Error(`effective permissions: unexpected ${JSON.stringify(effective).slice(0, 300)}`);

  // One member in 10 of the big group holds the veteran role (10,000 at scale 1).
  const veteran = await api('POST', `/v1/groups/${G0}/roles`, { name: 'x8 veteran', priority: 1 }, 201);
  await api('POST', `/v1/roles/${veteran.id}/permissions`, { permission: 'guild.invite' }, 200);
  await q.query(
    `INSERT INTO member_roles (member_id, role_id) SELECT id, $2 FROM members WHERE group_id = $1 AND status = 'active' AND abs(hashtext(id::text)) % 10 = 0
     ON CONFLICT DO NOTHING`,
    [G0, veteran.id],
  );
  // Vacuumed, as the seed leaves every table: the row below reads these rows, and until autovacuum
  // came by, its first runs cost PostgreSQL up to 1.13 ms a request against 0.70-0.80 after (two
  // runs of four, one build on both sides, 2026-12-06); vacuumed here, 0.70-0.80 from the first.
  await q.query('VACUUM (ANALYZE) member_roles');
  const membersPath = `/v1/groups/${G0}/members?permission=guild.invite`;
  const holders = await api('GET', membersPath, undefined, 200);
  if (holders.items.length !== 50 || !holders.nextCursor) throw new Error(`members holding a key: unexpected ${JSON.stringify(holders).slice(0, 300)}`);

  // A player in 200 groups: the creator of each, allowed raid.lead through a role in 180 of them,
  // through an override in 10, and denied by an override in the last 10 despite the role.
  const player = 'x8-player';
  const playerGroups = [];
  for (let g = 0; g < 200; g++) {
    const group = await api('POST', '/v1/groups', { kind: 'guild', name: `x8 ${g}`, visibility: 'public', creatorUserId: player }, 201);
    playerGroups.push(group.id);
    if (g >= 180 && g < 190) {
      await api('POST', `/v1/groups/${group.id}/members/${player}/permissions/raid.lead`, { allowed: true }, 200);
      continue;
    }
    const role = await api('POST', `/v1/groups/${group.id}/roles`, { name: 'lead', priority: 1 }, 201);
    await api('POST', `/v1/roles/${role.id}/permissions`, { permission: 'raid.lead' }, 200);
    await api('POST', `/v1/groups/${group.id}/members/${player}/roles/${role.id}`, undefined, 200);
    if (g >= 190) await api('POST', `/v1/groups/${group.id}/members/${player}/permissions/raid.lead`, { allowed: false }, 200);
  }
  const groupsPath = `/v1/users/${player}/groups?permission=raid.lead`;
  const groups = await api('GET', groupsPath, undefined, 200);
  if (groups.items.length !== 50 || !groups.nextCursor) throw new Error(`groups allowing a key: unexpected ${JSON.stringify(groups).slice(0, 300)}`);

  // The batch: 50 checks that stay cached (the holder's keys in the big group, warmed here) and
  // 50 keys never asked before (a new key per request) over the player's groups: the service
  // caches a member's whole grant profile, so once the player's 200 are loaded these are answered
  // from memory too.
  const cached = Array.from({ length: 50 }, (_, i) => ({ userId: holder, groupId: G0, permission: `x8.k${i}` }));
  await api('POST', '/v1/permissions/check-batch', { checks: cached }, 200);
  const nonce = randomBytes(4).toString('hex');
  let n = 0;
  const batchBody = () => {
    const r = n++;
    const misses = Array.from({ length: 50 }, (_, i) => ({ userId: player, groupId: playerGroups[(r + i) % playerGroups.length], permission: `x8.miss.${nonce}.${r}.${i}` }));
    return JSON.stringify({ checks: [...cached, ...misses] });
  };
  const answered = await api('POST', '/v1/permissions/check-batch', JSON.parse(batchBody()), 200);
  if (answered.results.length !== 100 || answered.results[1].allowed !== true) throw new Error(`batch: unexpected ${JSON.stringify(answered).slice(0, 300)}`);

  // The cold batch: 100 members of 100 small groups per request, (group, member) pairs that do not
  // come back for 9,000 requests or so, so no profile is cached: the cost of loading them.
  const stride = memberStride(sizes);
  const perGroup = Math.ceil((sizes.members - sizes.bigGroup) / (sizes.groups - 1));
  let c = 0;
  const coldBody = () => {
    const r = c++;
    const checks = Array.from({ length: 100 }, (_, i) => {
      const at = r * 100 + i;
      const g = 1 + (at % (sizes.groups - 1));
      const k = Math.floor(at / (sizes.groups - 1)) % perGroup;
      return { userId: `p${(k * stride + g) % sizes.users}`, groupId: groupUuid(g), permission: `x8.cold.${i % 10}` };
    });
    return JSON.stringify({ checks });
  };

  return {
    rowsFor: (base) => [
      {
        key: 'permBatch',
        name: 'Batch of 100 permission checks, members\' profiles cached (50 keys asked before, 50 never asked)',
        target: { url: base, headers: json, requests: [{ method: 'POST', setupRequest: (req) => ({ ...req, method: 'POST', path: '/v1/permissions/check-batch', body: batchBody() }) }] },
      },
      {
        key: 'permBatchCold',
        name: 'Batch of 100 permission checks, no profile cached (100 members of 100 groups, new each request)',
        target: { url: base, headers: json, requests: [{ method: 'POST', setupRequest: (req) => ({ ...req, method: 'POST', path: '/v1/permissions/check-batch', body: coldBody() }) }] },
      },
      { key: 'permEffective', name: 'Effective permissions of a member with 5 roles (24 keys)', target: { url: `${base}${effectivePath}`, headers } },
      { key: 'permGroups', name: 'Groups allowing a key, first page, for a player in 200 groups', target: { url: `${base}${groupsPath}`, headers } },
      { key: 'permMembers', name: 'Members holding a key (1 in 10) in the 100,000-member group, first page', target: { url: `${base}${membersPath}`, headers } },
    ],
  };
}
