// The write scenarios: each one a cycle of API calls over a pool of work items (a group and a user,
// say). A connection takes a free item, runs the cycle's steps on it in order and gives it back, so
// every request succeeds and the dataset ends as it began; a run cut off mid-cycle is repaired
// afterwards. Most come twice: spread over many groups, and all on one hot group.

/**
 * A scenario for measureHttp. `steps` are made by `step()`: each builds its request from the item
 * (and what earlier steps captured in the connection's context); `repair(item)` undoes a cycle cut
 * off after any step.
 */
export function cycle({ base, headers, items, steps, repair }) {
  const free = [...items];
  const out = new Set();
  const request = (step, i) => ({
    method: 'GET',
    setupRequest: (req, context) => {
      if (i === 0) {
        // No item free only when a cycle's last answer never came (a socket error): reuse one then.
        context.item = free.shift() ?? [...out][Math.floor(Math.random() * out.size)];
        out.add(context.item);
      }
      const { method, path, body } = step.build(context.item, context);
      // A fresh headers object each time: autocannon writes the body's Content-Length into it.
      if (body === undefined) return { ...req, method, path, headers: { ...headers }, body: undefined };
      return { ...req, method, path, headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) };
    },
    onResponse: (status, body, context) => {
      if (step.capture && status >= 200 && status < 300) step.capture(JSON.parse(body), context);
      if (i === steps.length - 1) {
        out.delete(context.item);
        free.push(context.item);
      }
    },
  });
  return {
    url: base,
    requests: () => steps.map((step, i) => request(step, i)),
    after: async () => {
      await new Promise((r) => setTimeout(r, 300));
      for (const item of [...out]) {
        await repair(item);
        out.delete(item);
        free.push(item);
      }
    },
  };
}

/** A step: `build(item, context)` makes the request; `capture` keeps an id from its answer. */
const step = (build, capture) => ({ build, capture });

/**
 * The scenarios, by key. `base()` is the server that repairs go through (with BENCH_BEFORE, the
 * one being measured); `many` is a list of
 * { groupId, userId } over many public groups (the user, a seeded player, not a member), `hot` the same on one public
 * group; `members` and `hotMembers` are { groupId, userId, roleId } of active members, each with a
 * role of their group; `friendPairs` are { userId, otherId } of users who are not friends.
 * `capped` and `cappedHot` are join items of groups with a member cap (EXTENSIONS X5) far from full,
 * many and one; `exclusive` those of groups of a kind the game allows once per player. `policyHeaders`
 * (or null) authenticate as a second game whose name policy holds 1,000 words (EXTENSIONS X10).
 */
export function writeScenarios({ base, headers, many, hot, members, hotMembers, friendPairs, creators, capped, cappedHot, exclusive, policyHeaders }) {
  // Through base(), the server being measured: with BENCH_BEFORE the other one is stopped.
  const tolerate = (...ok) => async (method, path, body) => {
    const r = await fetch(`${base()}${path}`, { method, headers: { ...headers, 'content-type': 'application/json' }, body: body ? JSON.stringify(body) : undefined });
    const text = await r.text();
    if (!ok.includes(r.status)) throw new Error(`repair ${method} ${path}: ${r.status} ${text}`);
    return text ? JSON.parse(text) : undefined;
  };
  const leave = ({ groupId, userId }) => tolerate(200, 404)('POST', `/v1/groups/${groupId}/leave`, { userId });
  const joinLeave = (items) => ({
    items,
    steps: [
      step(({ groupId, userId }) => ({ method: 'POST', path: `/v1/groups/${groupId}/join`, body: { userId } })),
      step(({ groupId, userId }) => ({ method: 'POST', path: `/v1/groups/${groupId}/leave`, body: { userId } })),
    ],
    repair: leave,
  });
  const inviteAccept = (items) => ({
    items,
    steps: [
      step(
        ({ groupId, userId }) => ({ method: 'POST', path: `/v1/groups/${groupId}/invitations`, body: { targetUserId: userId } }),
        (invitation, context) => (context.code = invitation.code),
      ),
      step(({ userId }, context) => ({ method: 'POST', path: `/v1/invitations/${context.code}/accept`, body: { userId } })),
      step(({ groupId, userId }) => ({ method: 'POST', path: `/v1/groups/${groupId}/leave`, body: { userId } })),
    ],
    repair: leave,
  });
  const banUnban = (items) => ({
    items,
    steps: [
      step(({ groupId, userId }) => ({ method: 'POST', path: `/v1/groups/${groupId}/bans`, body: { userId, reason: 'bench' } })),
      step(({ groupId, userId }) => ({ method: 'DELETE', path: `/v1/groups/${groupId}/bans/${userId}` })),
    ],
    repair: ({ groupId, userId }) => tolerate(200, 404)('DELETE', `/v1/groups/${groupId}/bans/${userId}`),
  });
  const roleAssign = (items) => ({
    items,
    steps: [
      step(({ groupId, userId, roleId }) => ({ method: 'POST', path: `/v1/groups/${groupId}/members/${userId}/roles/${roleId}` })),
      step(({ groupId, userId, roleId }) => ({ method: 'DELETE', path: `/v1/groups/${groupId}/members/${userId}/roles/${roleId}` })),
    ],
    repair: ({ groupId, userId, roleId }) => tolerate(200, 204, 404)('DELETE', `/v1/groups/${groupId}/members/${userId}/roles/${roleId}`),
  });
  const overrideSet = (items) => ({
    items,
    steps: [
      step(({ groupId, userId }) => ({ method: 'POST', path: `/v1/groups/${groupId}/members/${userId}/permissions/bench.override`, body: { allowed: true } })),
      step(({ groupId, userId }) => ({ method: 'DELETE', path: `/v1/groups/${groupId}/members/${userId}/permissions/bench.override` })),
    ],
    repair: ({ groupId, userId }) => tolerate(204, 404)('DELETE', `/v1/groups/${groupId}/members/${userId}/permissions/bench.override`),
  });
  const friendRequestAccept = (items) => ({
    items,
    steps: [
      step(
        ({ userId, otherId }) => ({ method: 'POST', path: `/v1/users/${userId}/friend-requests`, body: { targetSvcUserId: otherId } }),
        (answer, context) => (context.requestId = answer.request.id),
      ),
      step((_pair, context) => ({ method: 'POST', path: `/v1/friend-requests/${context.requestId}/accept` })),
      step(({ userId, otherId }) => ({ method: 'DELETE', path: `/v1/users/${userId}/friends/${otherId}` })),
    ],
    repair: async ({ userId, otherId }) => {
      const { outbound } = await tolerate(200)('GET', `/v1/users/${userId}/friend-requests?direction=out`);
      for (const r of outbound) await tolerate(200, 204, 404)('DELETE', `/v1/friend-requests/${r.id}`);
      await tolerate(200, 204, 404)('DELETE', `/v1/users/${userId}/friends/${otherId}`);
    },
  });
  // A targeted invitation, alone (the invitations pile up, as the groups of groupCreate do): to a
  // player the game has seen, it writes a notification (EXTENSIONS X9) in its transaction; to an id
  // the game has never seen, the same statements write none. Measured one after the other, the
  // difference is the cost of writing a notification.
  const invite = (items) => ({
    items,
    steps: [step(({ groupId, userId }) => ({ method: 'POST', path: `/v1/groups/${groupId}/invitations`, body: { targetUserId: userId, invitedByUserId: 'bench-inviter' } }))],
    repair: async () => undefined,
  });
  const neverSeen = many.map(({ groupId }, i) => ({ groupId, userId: `never-seen-${i}` }));
  let created = 0;
  const groupCreate = {
    items: creators,
    steps: [
      step((userId) => ({ method: 'POST', path: '/v1/groups', body: { kind: 'guild', name: `bench group ${++created}`, visibility: 'public', creatorUserId: userId } })),
    ],
    repair: async () => undefined,
  };
  // The same creates in the game with a name policy: names it lets through, so every create is
  // checked against all 1,000 words and succeeds; the difference to groupCreate is the check.
  const policyRows = policyHeaders
    ? [{ key: 'groupCreatePolicy', name: 'The same group create, in a game whose name policy holds 1,000 words', ...groupCreate, headers: policyHeaders, family: 'other' }]
    : [];
  const many_ = 'over many groups';
  const hot_ = 'on one hot group';
  return [
    { key: 'joinLeave', name: 'Public join then leave (identity, member, audit, outbox, delivery)', ...joinLeave(many), family: 'join' },
    { key: 'joinLeaveHot', name: `Public join then leave, ${hot_}`, ...joinLeave(hot), hot: true, family: 'join' },
    { key: 'joinLeaveCapped', name: `Public join then leave, groups with a member cap, ${many_}`, ...joinLeave(capped), family: 'join' },
    { key: 'joinLeaveCappedHot', name: `Public join then leave, a group with a member cap, ${hot_}`, ...joinLeave(cappedHot), hot: true, family: 'join' },
    { key: 'joinLeaveExclusive', name: `Public join then leave, groups of a kind allowed once per player, ${many_}`, ...joinLeave(exclusive), family: 'join' },
    { key: 'groupCreate', name: 'Group create with its creator as first member', ...groupCreate, family: 'other' },
    ...policyRows,
    { key: 'inviteAccept', name: `Invitation create, accept, then leave, ${many_}`, ...inviteAccept(many), family: 'other' },
    { key: 'inviteAcceptHot', name: `Invitation create, accept, then leave, ${hot_}`, ...inviteAccept(hot), hot: true, family: 'other' },
    { key: 'banUnban', name: `Group ban then unban, ${many_}`, ...banUnban(many), family: 'other' },
    { key: 'banUnbanHot', name: `Group ban then unban, ${hot_}`, ...banUnban(hot), hot: true, family: 'other' },
    { key: 'roleAssign', name: `Role assign then remove, ${many_}`, ...roleAssign(members), family: 'other' },
    { key: 'roleAssignHot', name: `Role assign then remove, ${hot_}`, ...roleAssign(hotMembers), hot: true, family: 'other' },
    { key: 'overrideSet', name: `Permission override set then clear, ${many_}`, ...overrideSet(members), family: 'other' },
    { key: 'overrideSetHot', name: `Permission override set then clear, ${hot_}`, ...overrideSet(hotMembers), hot: true, family: 'other' },
    { key: 'friendRequest', name: 'Friend request, accept, then remove (pairs of users who are not friends)', ...friendRequestAccept(friendPairs), family: 'other' },
    { key: 'inviteNotifyNobody', name: `Targeted invitation to an id the game has never seen (notifies nobody), ${many_}`, ...invite(neverSeen), family: 'other' },
    { key: 'inviteNotify', name: `The same targeted invitation to a seeded player (writes their notification), ${many_}`, ...invite(many), family: 'other' },
  ];
}
