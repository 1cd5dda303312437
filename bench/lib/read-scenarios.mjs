// The read rows (lists, friends, audit, group search), defined once: their set-up runs on the
// server first (deep pages reached by walking the cursors as a client would, each first answer
// checked), then `rowsFor(base)` gives the rows for any server on the same database, so that
// BENCH_REPLICA=1 measures the same requests on a second server reading from a standby.
import { queryString, searchScenarios } from './search.mjs';
import { friendOffsets, GAME_ID, groupUuid, userUuid } from './seed.mjs';

/**
 * `api(method, path, body, expect)` calls the server with the game's key `key`; `call(method,
 * path, body, expect, token)` with any token (`adminToken` makes the search game's key); `q` is a
 * client of the database. Returns `{ rowsFor(base), pageParams }`: rows are `{ key, name, target }`
 * (target as measureHttp takes it), search rows also `{ search: { gameId, queries } }` for their
 * SQL ceiling; `pageParams` are the parameters of each row's main statement, for its plan.
 */
export async function readScenarios({ api, call, q, sizes, key, adminToken, wanted }) {
  const G0 = groupUuid(0);
  const walk = async (path, pages) => {
    let cursor;
    for (let i = 1; i < pages; i++) {
      const page = await api('GET', `${path}${path.includes('?') ? '&' : '?'}${cursor ? `cursor=${cursor}` : ''}`, undefined, 200);
      if (!page.nextCursor) throw new Error(`${path}: the list ended at page ${i}`);
      cursor = page.nextCursor;
    }
    return cursor;
  };
  const keysetOf = (cursor) => {
    const [, at, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    return { at, id };
  };
  const expectPage = async (path, check) => {
    const page = await api('GET', path, undefined, 200);
    if (!Array.isArray(page.items) || page.items.length === 0 || !check(page)) throw new Error(`${path}: unexpected page ${JSON.stringify(page).slice(0, 300)}`);
  };
  const pageParams = {};

  const groupsPages = Math.ceil(sizes.groups / 50);
  const groupsDeepPage = Math.floor(groupsPages * 0.9);
  await expectPage('/v1/groups', (p) => p.items.length === 50 && typeof p.items[0].memberCount === 'number');
  const groupsCursor = await walk('/v1/groups', groupsDeepPage);
  await expectPage(`/v1/groups?cursor=${groupsCursor}`, (p) => p.items.length === 50);
  pageParams.groupsDeep = { gameId: GAME_ID, after: (({ at, id }) => ({ createdAt: at, id }))(keysetOf(groupsCursor)) };
  pageParams.groupsFirst = { gameId: GAME_ID };

  const memberPages = Math.ceil(sizes.bigGroup / 50);
  const membersDeepPage = Math.min(1000, Math.floor(memberPages / 2));
  await expectPage(`/v1/groups/${G0}/members`, (p) => p.items.length === 50);
  const membersCursor = await walk(`/v1/groups/${G0}/members`, membersDeepPage);
  await expectPage(`/v1/groups/${G0}/members?cursor=${membersCursor}`, (p) => p.items.length === 50);
  pageParams.membersFirst = { gameId: GAME_ID, groupId: G0 };
  pageParams.membersDeep = { gameId: GAME_ID, groupId: G0, after: keysetOf(membersCursor) };

  // Friends: a random user (or friend pair) per request, over the whole graph.
  const offsets = friendOffsets(sizes);
  const randomUser = () => Math.floor(Math.random() * sizes.users);
  const friendOf = (i) => (i + offsets[Math.floor(Math.random() * offsets.length)]) % sizes.users;
  await expectPage('/v1/users/p42/friends', (p) => p.items.length === 50 && p.nextCursor);
  await expectPage('/v1/users/p42/friends/suggestions', (p) => p.items.length === 20);
  const rel = await api('GET', `/v1/users/p42/friends/p${(42 + offsets[0]) % sizes.users}/relationship`, undefined, 200);
  if (rel.state !== 'friends') throw new Error(`relationship: unexpected ${JSON.stringify(rel)}`);
  pageParams.friendsList = { gameId: GAME_ID, userUuid: userUuid(42) };
  pageParams.suggestions = { gameId: GAME_ID, userUuid: userUuid(42) };
  pageParams.suggestionsCold = pageParams.suggestions;
  // Suggestions are kept per user once computed: the warm row reads users whose lists were computed
  // here (1 in every `warmStride`), the cold row users never read before, each once, in an order
  // that spreads them over the graph.
  const warmStride = Math.max(5, Math.floor(sizes.users / 2000));
  const warmUsers = Array.from({ length: Math.floor(sizes.users / warmStride) }, (_, i) => i * warmStride);
  if (wanted('suggestions')) {
    for (let i = 0; i < warmUsers.length; i += 4) {
      await Promise.all(warmUsers.slice(i, i + 4).map((u) => api('GET', `/v1/users/p${u}/friends/suggestions`, undefined, 200)));
    }
  }
  let coldNext = 0;
  const coldUser = () => {
    for (;;) {
      const u = (coldNext++ * 7919 + 1) % sizes.users;
      if (u % warmStride !== 0 && u !== 42) return u;
    }
  };
  pageParams.relationship = { gameId: GAME_ID, userUuid: userUuid(42), otherUuid: userUuid((42 + offsets[0]) % sizes.users) };

  // Audit: the long history of the big group; the deep page starts 3/4 down it.
  const depth = Math.floor(sizes.longHistory * 0.75);
  const deep = (
    await q.query(`SELECT id, created_at FROM journal WHERE group_id = $1 AND action IS NOT NULL ORDER BY created_at DESC, id DESC OFFSET $2 LIMIT 1`, [G0, depth])
  ).rows[0];
  await expectPage(`/v1/groups/${G0}/audit`, (p) => p.items.length === 50);
  await expectPage(`/v1/groups/${G0}/audit?before=${deep.id}`, (p) => p.items.length === 50);
  pageParams.auditFirst = { gameId: GAME_ID, groupId: G0, start: {} };
  pageParams.auditDeep = { gameId: GAME_ID, groupId: G0, start: { beforeId: deep.id } };

  // Group search: a query drawn at random per request from each row's list (bench/lib/search.mjs);
  // the first 20 answered once, so that none is a first-ever statement in the measured run.
  const searches = [];
  for (const row of searchScenarios(sizes)) {
    if (!wanted(row.key) || (row.gameId && !sizes.searchGroups)) continue;
    const gameId = row.gameId ?? GAME_ID;
    const rowKey = row.gameId ? (await call('POST', `/v1/admin/games/${gameId}/api-keys`, undefined, 201, adminToken)).key : key;
    const paths = row.queries.map((query) => `/v1/groups/search?${queryString(query)}`);
    for (const path of paths.slice(0, 20)) await call('GET', path, undefined, 200, rowKey);
    searches.push({ row, gameId, rowKey, paths });
    pageParams[row.key] = { gameId, query: row.queries[0] };
  }

  const headers = { authorization: `Bearer ${key}` };
  const random = (path) => [{ method: 'GET', setupRequest: (req) => ({ ...req, path: path() }) }];
  const rowsFor = (base) => [
    { key: 'groupsFirst', name: 'Group list, first page (50, with memberCount)', target: { url: `${base}/v1/groups`, headers } },
    { key: 'groupsDeep', name: `Group list, page ${groupsDeepPage} of ${groupsPages} (cursor)`, target: { url: `${base}/v1/groups?cursor=${groupsCursor}`, headers } },
    {
      key: 'membersFirst',
      name: `Member list of the ${sizes.bigGroup.toLocaleString('en-US')}-member group, first page`,
      target: { url: `${base}/v1/groups/${G0}/members`, headers },
    },
    {
      key: 'membersDeep',
      name: `Member list of the ${sizes.bigGroup.toLocaleString('en-US')}-member group, page ${membersDeepPage} (cursor)`,
      target: { url: `${base}/v1/groups/${G0}/members?cursor=${membersCursor}`, headers },
    },
    {
      key: 'friendsList',
      name: 'Friends list, first page (random user of 100 friends)',
      target: { url: base, headers, requests: random(() => `/v1/users/p${randomUser()}/friends`) },
    },
    {
      key: 'suggestions',
      name: `Friend suggestions, kept: a random user of ${warmUsers.length.toLocaleString('en-US')} read before (20 of ~5 000 candidates)`,
      target: { url: base, headers, requests: random(() => `/v1/users/p${warmUsers[Math.floor(Math.random() * warmUsers.length)]}/friends/suggestions`) },
    },
    {
      key: 'suggestionsCold',
      name: 'Friend suggestions, first read: each request a user never read before',
      target: { url: base, headers, requests: random(() => `/v1/users/p${coldUser()}/friends/suggestions`) },
    },
    {
      key: 'relationship',
      name: 'Relationship state (random pair of friends)',
      target: {
        url: base,
        headers,
        requests: random(() => {
          const i = randomUser();
          return `/v1/users/p${i}/friends/p${friendOf(i)}/relationship`;
        }),
      },
    },
    {
      key: 'auditFirst',
      name: `Audit log of the group with ${sizes.longHistory.toLocaleString('en-US')} entries, first page`,
      target: { url: `${base}/v1/groups/${G0}/audit`, headers },
    },
    {
      key: 'auditDeep',
      name: `Audit log of the same group, ${depth.toLocaleString('en-US')} entries deep (before=<id>)`,
      target: { url: `${base}/v1/groups/${G0}/audit?before=${deep.id}`, headers },
    },
    ...searches.map(({ row, gameId, rowKey, paths }) => ({
      key: row.key,
      name: row.name,
      target: { url: base, headers: { authorization: `Bearer ${rowKey}` }, requests: random(() => paths[Math.floor(Math.random() * paths.length)]) },
      search: { gameId, queries: row.queries },
    })),
  ];
  return { rowsFor, pageParams };
}
