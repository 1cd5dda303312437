// Group search (GET /v1/groups/search): the names, tags and caps the seed gives groups, the big
// search game (1,000,000 groups at scale 1), the queries the bench sends, and the database ceiling
// of each search row: pgbench -f running the statement the service sends (captured from the built
// repository, not copied), with the same distribution of parameters, on the same connections.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { log } from './processes.mjs';
import { inlined, runSqlCeiling } from './sql-ceiling.mjs';

/** The game of the search rows at a million groups (the main game has the bench's 10,000). */
export const SEARCH_GAME_ID = '01900000-0000-7000-8000-000000000002';
export const SEARCH_GROUP_PREFIX = '0196';

export const ADJECTIVES = [
  'Iron', 'Silver', 'Golden', 'Crimson', 'Shadow', 'Frost', 'Storm', 'Ember', 'Silent', 'Ancient', 'Savage', 'Brave',
  'Hidden', 'Eternal', 'Wild', 'Dark', 'Bright', 'Lunar', 'Solar', 'Azure', 'Scarlet', 'Obsidian', 'Emerald', 'Thunder',
  'Mystic', 'Noble', 'Rogue', 'Royal', 'Fallen', 'Rising', 'Burning', 'Frozen', 'Howling', 'Northern', 'Southern', 'Eastern',
  'Western', 'Grim', 'Swift', 'Steel', 'Stone', 'Blood', 'Night', 'Dawn', 'Dusk', 'Sacred', 'Cursed', 'Lost', 'Free',
  'Black', 'White', 'Red', 'Blue', 'Green', 'Jade', 'Onyx', 'Ivory', 'Copper', 'Bronze', 'Velvet', 'Phantom',
];
export const NOUNS = [
  'Knights', 'Wolves', 'Dragons', 'Ravens', 'Legion', 'Order', 'Guardians', 'Hunters', 'Wardens', 'Blades', 'Lions', 'Hawks',
  'Serpents', 'Titans', 'Phoenix', 'Reapers', 'Sentinels', 'Crusaders', 'Templars', 'Rangers', 'Raiders', 'Outlaws', 'Pirates', 'Vikings',
  'Spartans', 'Paladins', 'Druids', 'Mages', 'Warlocks', 'Assassins', 'Nomads', 'Pilgrims', 'Brotherhood', 'Sisterhood', 'Covenant', 'Alliance',
  'Syndicate', 'Dynasty', 'Empire', 'Kingdom', 'Clan', 'Tribe', 'Pack', 'Horde', 'Company', 'Fellowship', 'Circle', 'Council',
  'Vanguard', 'Crows', 'Owls', 'Bears', 'Foxes', 'Stags', 'Vipers', 'Scorpions', 'Sharks', 'Krakens', 'Giants', 'Golems',
  'Spirits', 'Shades', 'Watchers', 'Seekers', 'Wanderers', 'Champions', 'Heralds',
];
export const PLACES = ['Dawn', 'the North', 'the Abyss', 'Valhalla', 'Avalon', 'the Void', 'Eldoria', 'the Deep', 'Ashvale', 'Stormhold', 'the Isles', 'Kharak', 'Midgard', 'Zion', 'Mordheim', 'the Sun', 'the Moon', 'Ironforge', 'Rivendale', 'Thule', 'Emberfall', 'Skyreach', 'Blackmarsh'];
/** Skewed as a game's players are: English first. */
export const LANGS = ['en', 'en', 'en', 'en', 'en', 'de', 'de', 'fr', 'fr', 'es', 'es', 'pt', 'ru', 'ja', 'ko', 'pl'];
export const REGIONS = ['eu', 'eu', 'eu', 'na', 'na', 'apac', 'sa', 'me'];
export const STYLES = ['casual', 'hardcore', 'pvp', 'pve', 'rp', 'social'];

const arr = (a) => `(ARRAY[${a.map((x) => `'${x.replace(/'/g, "''")}'`).join(',')}])`;
/** A spread of the integer SQL expression `g` over [0, n), decorrelated from other uses by `salt`. */
const pick = (g, n, salt) => `(abs(hashint4((${g})::int + ${salt})) % ${n})`;

/**
 * SQL expressions of the search columns of the seeded group number `g`: a name like a player
 * would give ("Iron Wolves", "Crimson Dragons of the North", "Storm Knights 317"), 2-3 tags
 * (lang:, region:, and for half of them a style), and a cap on 1 in 4.
 */
export function searchColumns(g, capAt) {
  const name = `${arr(ADJECTIVES)}[1 + ${pick(g, ADJECTIVES.length, 11)}] || ' ' || ${arr(NOUNS)}[1 + ${pick(g, NOUNS.length, 23)}]
    || CASE ${pick(g, 3, 37)} WHEN 0 THEN '' WHEN 1 THEN ' of ' || ${arr(PLACES)}[1 + ${pick(g, PLACES.length, 41)}] ELSE ' ' || (${g}) % 997 END`;
  return {
    name,
    tags: `ARRAY['lang:' || ${arr(LANGS)}[1 + ${pick(g, LANGS.length, 53)}], 'region:' || ${arr(REGIONS)}[1 + ${pick(g, REGIONS.length, 67)}]]
      || CASE WHEN ${pick(g, 2, 71)} = 0 THEN ARRAY['style:' || ${arr(STYLES)}[1 + ${pick(g, STYLES.length, 79)}]] ELSE '{}'::text[] END`,
    maxMembers: `CASE WHEN ${pick(g, 4, 83)} = 0 THEN ${capAt} END`,
  };
}

const uid = (prefix, expr) => `('${prefix}0000-0000-7000-8000-' || lpad(to_hex(${expr}), 12, '0'))::uuid`;

/**
 * The search game: `count` groups and the words of their names (group_search_words), no member rows (each group's folded counter is set: 0-59
 * members, 1 in 4 capped at 50, so some are full), 1 in 10 secret, 1 in 10 invite-only. The
 * groups table's secondary indexes are dropped for the load and rebuilt from their own
 * definitions after it, which is several times faster than inserting into them.
 */
export async function seedSearchGame(clients, count, base) {
  const [c] = clients;
  await c.query(`INSERT INTO games (id, name) VALUES ($1, 'bench search')`, [SEARCH_GAME_ID]);
  const indexes = (
    await c.query(
      `SELECT i.indexrelid::regclass::text AS name, pg_get_indexdef(i.indexrelid) AS def
       FROM pg_index i
       WHERE i.indrelid = 'groups'::regclass AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid)
       ORDER BY 1`,
    )
  ).rows;
  for (const ix of indexes) await c.query(`DROP INDEX ${ix.name}`);
  const col = searchColumns('g', 50);
  const chunk = 100_000;
  const ranges = [];
  for (let lo = 0; lo < count; lo += chunk) ranges.push([lo, Math.min(count, lo + chunk)]);
  let next = 0;
  await Promise.all(
    clients.map(async (client) => {
      while (next < ranges.length) {
        const [lo, hi] = ranges[next++];
        // search_name written here: the trigger that keeps it is off in replica mode.
        await client.query(
          `INSERT INTO groups (id, game_id, kind, name, search_name, visibility, tags, max_members, active_member_count, created_at, updated_at)
           SELECT ${uid(SEARCH_GROUP_PREFIX, 'g')}, $3, CASE WHEN g % 5 = 4 THEN 'party' ELSE 'guild' END, n.name, svc_search_text(n.name),
                  CASE WHEN g % 10 = 8 THEN 'secret' WHEN g % 10 = 9 THEN 'invite-only' ELSE 'public' END,
                  ${col.tags}, ${col.maxMembers}, ${pick('g', 60, 97)},
                  $4::timestamptz - ($2::int - g) * interval '1 second', $4::timestamptz - ($2::int - g) * interval '1 second'
           FROM generate_series($1::int, $2::int - 1) g CROSS JOIN LATERAL (SELECT ${col.name} AS name) n`,
          [lo, hi, SEARCH_GAME_ID, base],
        );
      }
    }),
  );
  // The words of the names, which the trigger off in replica mode would have kept.
  await c.query(`INSERT INTO group_search_words (game_id, word) SELECT DISTINCT $1::uuid, w FROM groups g, svc_search_words(g.search_name) w WHERE g.game_id = $1 ON CONFLICT DO NOTHING`, [SEARCH_GAME_ID]);
  await Promise.all(clients.map((client) => client.query(`SET maintenance_work_mem = '256MB'`)));
  next = 0;
  await Promise.all(
    clients.map(async (client) => {
      while (next < indexes.length) await client.query(indexes[next++].def);
    }),
  );
  return indexes.length;
}

/** A deterministic pseudo-random generator, so every run sends the same mix. */
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Two neighbouring letters near the end swapped, a player's typo: "knights" -> "knigths". */
const typo = (word) => {
  const i = word.length - 3;
  return word.slice(0, i) + word[i + 1] + word[i] + word.slice(i + 2);
};

/**
 * The q of the relevance row, `n` of them: 30 % an adjective (names starting with it), 30 % a noun
 * (names containing it), 15 % an adjective and a noun, 15 % a noun with two letters swapped (found
 * by spelling distance only), 10 % the first 4 letters of a noun (a player still typing).
 */
export function searchWords(n) {
  const r = rng(29);
  const of = (list) => list[Math.floor(r() * list.length)];
  return Array.from({ length: n }, () => {
    const x = r();
    if (x < 0.3) return of(ADJECTIVES).toLowerCase();
    if (x < 0.6) return of(NOUNS).toLowerCase();
    if (x < 0.75) return `${of(ADJECTIVES)} ${of(NOUNS)}`.toLowerCase();
    if (x < 0.9) return typo(of(NOUNS).toLowerCase());
    return of(NOUNS).slice(0, 4).toLowerCase();
  });
}

/** The tags of the tags row, `n` of them: 60 % one lang: tag, 40 % a lang: and a region: tag. */
export function searchTags(n) {
  const r = rng(31);
  const of = (list) => list[Math.floor(r() * list.length)];
  return Array.from({ length: n }, () => (r() < 0.6 ? `lang:${of(LANGS)}` : `lang:${of(LANGS)},region:${of(REGIONS)}`));
}

/** The search rows' queries: `{ key, name, queries: [{ q?, tags?, open?, sort }] }`. */
export function searchScenarios(sizes) {
  // 100 each: pgbench takes at most 128 scripts, one per distinct statement.
  const n = 100;
  const words = searchWords(n);
  const tags = searchTags(n);
  const rows = [];
  for (const [suffix, gameId, groups] of [
    ['', null, sizes.groups],
    ['1M', SEARCH_GAME_ID, sizes.searchGroups],
  ]) {
    const at = `${groups.toLocaleString('en-US')} groups`;
    rows.push({
      key: `searchText${suffix}`,
      gameId,
      name: `Group search by q (a word, two words, a typo, a prefix), open=true, sorted by relevance, ${at}`,
      queries: words.map((q) => ({ q, open: 'true' })),
    });
    rows.push({
      key: `searchTags${suffix}`,
      gameId,
      name: `Group search by tags (lang:, or lang: and region:), sorted by members, ${at}`,
      queries: tags.map((t) => ({ tags: t, sort: 'members' })),
    });
  }
  return rows;
}

export const queryString = (query) => new URLSearchParams(query).toString();

/**
 * The statements the built service sends for `query` in `gameId`, with their parameters: the
 * words' normalization (run on `db` for its answer) and the search itself (captured, not run).
 */
export async function searchStatements(root, db, gameId, query) {
  const require = createRequire(join(root, 'package.json'));
  const { GroupSearchRepository } = require(join(root, 'dist/src/groups/group-search.repository.js'));
  const { parseSearchQuery, withCursor } = require(join(root, 'dist/src/groups/group-search-query.js'));
  const seen = [];
  const manager = {
    query: async (sql, params) => {
      seen.push({ sql, params });
      return seen.length === 1 && /svc_search_text/.test(sql) && !/FROM groups/.test(sql) ? (await db.query(sql, params)).rows : [];
    },
  };
  await new GroupSearchRepository().search(manager, withCursor(parseSearchQuery(gameId, query)));
  return seen;
}

/** The search statement proper (the last one), for EXPLAIN. */
export const searchStatement = async (root, db, gameId, query) => (await searchStatements(root, db, gameId, query)).at(-1);

/**
 * The database ceiling of a search row: every query of the row as a pgbench script of its own (its
 * statements, as the service sends them: the words' normalization, then the search),
 * each drawn with the same weight (the HTTP row draws its queries uniformly too), `connections`
 * clients, `durationS` seconds, on the bench's database (bench/lib/sql-ceiling.mjs). Returns
 * `{ tps, p50, p99, failed, cpu, statements, connections }` (latencies in ms, from pgbench's per-transaction log).
 */
export async function searchCeiling({ root, db, url, gameId, queries, connections, durationS, warmupS, postmasterPid }) {
  const scripts = [];
  const distinct = [...new Map(queries.map((q) => [queryString(q), q])).values()];
  for (const query of distinct) {
    const statements = await searchStatements(root, db, gameId, query);
    // Weighted by how often the row sends it.
    const weight = queries.filter((q) => queryString(q) === queryString(query)).length;
    scripts.push({ statements: statements.map((st) => inlined(st).replace(/\s+/g, ' ')), weight });
  }
  // The word statement sets its own similarity threshold, as the service sends it.
  const r = await runSqlCeiling({ url, scripts, connections, durationS, warmupS, postmasterPid });
  log(`  pgbench -f (${distinct.length} statements): ${Math.round(r.tps)} statements/s, p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms`);
  return { ...r, statements: distinct.length, connections };
}
