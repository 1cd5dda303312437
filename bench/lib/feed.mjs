// The game's event feed (EXTENSIONS X1): 1 M retained events seeded by set-based SQL, then
//   - a page of 1000 events (`GET /v1/events/feed?after=<id>&limit=1000`) from random positions;
//   - the replay of 100 000 events over the game's stream (`GET /v1/events?after=<id>`), events/s
//     from the request to the 100 000th frame.
// (Commit to receipt on the game's stream reuses stream.mjs with path /v1/events.)
import { request } from 'node:http';
import { log } from './processes.mjs';

/**
 * `count` member.joined events of the game, as the unit of work writes them (their bodies without
 * what the row's columns hold, their members short: src/db/member-snapshot.ts; their ids starting
 * with the millisecond), in chunks of
 * `chunk` rows per transaction (so they span several transaction ids, as real ones do).
 */
export async function seedFeed(db, gameId, { count, chunk = 250_000, groupId }) {
  const t0 = performance.now();
  for (let from = 0; from < count; from += chunk) {
    const n = Math.min(chunk, count - from);
    await db.query(
      `INSERT INTO journal (id, game_id, group_id, type, body, created_at, names)
       SELECT (e.id || '00000000')::uuid, $1::uuid, $2::uuid, 'member.joined', b.body, now(), svc_journal_names(NULL, NULL, NULL, b.body)
       FROM generate_series($3::int, $4::int) AS i,
            LATERAL (SELECT lpad(to_hex((extract(epoch FROM now()) * 1000)::bigint), 12, '0') || lpad(to_hex(i), 12, '0') AS id) e,
            LATERAL (SELECT jsonb_build_object(
                'member', jsonb_build_object('id', lpad(to_hex(i), 32, '0')::uuid, 'userId', 'feed' || i,
                  'joinedAt', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))) AS body) b`,
      [gameId, groupId, from + 1, from + n],
    );
  }
  await db.query('ANALYZE journal');
  const ms = performance.now() - t0;
  log(`  seed: ${count.toLocaleString('en-US')} feed events in ${(ms / 1000).toFixed(1)} s`);
  return ms;
}

/** `n` event ids of the game spread evenly over its feed, each at least `tail` events from its end. */
export async function feedPositions(db, gameId, n, tail) {
  const { rows } = await db.query(
    `SELECT id FROM (
       SELECT left(replace(id::text, '-', ''), 24) AS id, row_number() OVER (ORDER BY era, xid, seq) AS k, count(*) OVER () AS total
       FROM journal WHERE game_id = $1 AND type IS NOT NULL
     ) x WHERE k <= total - $3 AND k % greatest(1, (total - $3) / $2) = 0 LIMIT $2`,
    [gameId, n, tail],
  );
  return rows.map((r) => r.id);
}

/** Replays `count` events over `GET /v1/events?after=<after>` on one socket; events/s to the last frame. */
export function measureReplay({ base, key, after, count }) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    let received = 0;
    let firstAt = NaN;
    let buf = '';
    const req = request(`${base}/v1/events?after=${after}`, { agent: false, headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream' } }, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        return reject(new Error(`replay: ${res.statusCode}`));
      }
      res.setEncoding('utf8');
      res.on('data', (chunk) => {
        buf += chunk;
        let i;
        while ((i = buf.indexOf('\n\n')) >= 0) {
          if (buf.startsWith('id: ')) {
            if (!received) firstAt = performance.now() - t0;
            received++;
          }
          buf = buf.slice(i + 2);
        }
        if (received >= count) {
          const s = (performance.now() - t0) / 1000;
          req.destroy();
          resolve({ events: received, seconds: s, perS: received / s, firstMs: firstAt });
        }
      });
      res.on('close', () => received < count && reject(new Error(`replay: stream closed after ${received} events`)));
    });
    req.on('error', (err) => received < count && reject(err));
    req.end();
  });
}
