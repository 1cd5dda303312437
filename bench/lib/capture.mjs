// What a read request really sends to PostgreSQL, for its row's "SQL alone" (sql-ceiling.mjs).
//
// Not rewritten by hand, nor rebuilt from the repositories: a capture server (the same build and
// settings as the measured one, its webhook worker off) has its DATABASE_URL pointed at a TCP
// relay in this process, which forwards every byte to the bench's database and reads the
// frontend messages on the way: simple queries ('Q'), and the extended protocol's Parse (the text
// of a statement, named or not, per connection), Bind (its parameters) and Execute (the statement
// runs: it is recorded). So whatever a request runs is caught: the API key lookup when it misses the
// cache, the game's config, the page, its counts, BEGIN/COMMIT folded into a batch, a statement
// prepared on the connection long before. The row's requests are sent to the capture server one
// at a time, after a warm-up of the same requests (so caches are as warm as in the measured run),
// and each request's statements are those executed between its send and its answer. The server's
// own background work (the member counter folder's transaction each second, the schema check, the
// suggestions refresh, the grant sweep) would land in those windows too: its statement texts are
// learnt in an idle window when the capture server starts, long enough for every periodic task to
// come round, and in a shorter one before each row's requests; a
// transaction with such a statement is left out whole (a request's own BEGIN and COMMIT, of the
// same texts, stay), even when it straddles two requests' windows. And a request that happens to
// open a pool connection (when the folder holds the other one) runs the connection's set-up first
// (the feed era's check, pg's onConnect), which a measured server under load pays once a
// connection, not once a request: a statement that began two connections or more so far is taken
// for the set-up, and left out where it begins a connection.
import net from 'node:net';
import { inlined } from './sql-ceiling.mjs';
import { freePort, sleep, startNode, stopNode, waitHttp } from './processes.mjs';

const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;

/** Longer than the period of every task the server runs on its own (src/: the grant sweeper's 15 s). */
const LEARN_IDLE_MS = 16_000;

const TX_START = /^\s*(BEGIN|START TRANSACTION)\b/i;
const TX_END = /^\s*(COMMIT|ROLLBACK)\b/i;

/**
 * The statements of `stream` (in the order the relay read them, every connection) that are not the
 * server's own background work: per connection, a transaction (BEGIN to COMMIT or ROLLBACK) with a
 * statement of a `background` text is left out whole, and so is one still open at the end (a
 * read's own transaction ends before its answer); a statement outside a transaction on its own.
 */
function requestStatements(stream, background) {
  const keep = new Set();
  const open = new Map(); // connection -> { items, background }
  for (const st of stream) {
    let tx = open.get(st.conn);
    if (!tx && TX_START.test(st.sql)) open.set(st.conn, (tx = { items: [], background: false }));
    if (!tx) {
      if (!background.has(st.sql)) keep.add(st);
      continue;
    }
    tx.items.push(st);
    tx.background ||= background.has(st.sql);
    if (TX_END.test(st.sql)) {
      open.delete(st.conn);
      if (!tx.background) for (const x of tx.items) keep.add(x);
    }
  }
  return keep;
}

const cstring = (buf, at) => {
  const end = buf.indexOf(0, at);
  return [buf.toString('utf8', at, end), end + 1];
};

/**
 * Reads one connection's frontend messages; `onExecute({ sql, params, types })` for every
 * statement the server is asked to run, `onStartup(params)` with the startup message's parameters.
 */
function frontendReader(onExecute, onStartup) {
  let pending = Buffer.alloc(0);
  let startup = true;
  const statements = new Map(); // prepared statement name ('' = unnamed) -> { sql, types }
  const portals = new Map(); // portal name -> { sql, params, types }
  const message = (type, body) => {
    if (type === 'Q') onExecute({ sql: cstring(body, 0)[0], params: [], types: [], named: false });
    else if (type === 'P') {
      const [name, a] = cstring(body, 0);
      const [sql, b] = cstring(body, a);
      const n = body.readInt16BE(b);
      const types = Array.from({ length: n }, (_, i) => body.readUInt32BE(b + 2 + 4 * i));
      statements.set(name, { sql, types, named: name !== '' });
    } else if (type === 'B') {
      const [portal, a] = cstring(body, 0);
      const [name, b] = cstring(body, a);
      let at = b;
      const nFormats = body.readInt16BE(at);
      const formats = Array.from({ length: nFormats }, (_, i) => body.readInt16BE(at + 2 + 2 * i));
      at += 2 + 2 * nFormats;
      const nParams = body.readInt16BE(at);
      at += 2;
      const params = [];
      for (let i = 0; i < nParams; i++) {
        const len = body.readInt32BE(at);
        at += 4;
        if (len < 0) {
          params.push(null);
          continue;
        }
        const raw = body.subarray(at, at + len);
        at += len;
        const binary = (nFormats === 1 ? formats[0] : formats[i]) === 1;
        params.push(binary ? `\\x${raw.toString('hex')}` : raw.toString('utf8'));
      }
      const st = statements.get(name);
      if (!st) throw new Error(`capture: Bind of the unknown statement ${JSON.stringify(name)}`);
      portals.set(portal, { sql: st.sql, params, types: st.types, named: st.named });
    } else if (type === 'E') {
      const portal = portals.get(cstring(body, 0)[0]);
      if (portal) onExecute(portal);
    } else if (type === 'C') {
      const [name] = cstring(body, 1);
      (body[0] === 0x53 ? statements : portals).delete(name);
    }
  };
  return (chunk) => {
    pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
    for (;;) {
      if (startup) {
        if (pending.length < 8) return;
        const len = pending.readInt32BE(0);
        if (pending.length < len) return;
        const code = pending.readInt32BE(4);
        if (code !== SSL_REQUEST && code !== GSSENC_REQUEST) {
          startup = false;
          const params = {};
          const fields = pending.subarray(8, len).toString('utf8').split('\0');
          for (let i = 0; i + 1 < fields.length; i += 2) if (fields[i]) params[fields[i]] = fields[i + 1];
          onStartup(params);
        }
        pending = pending.subarray(len);
        continue;
      }
      if (pending.length < 5) return;
      const len = pending.readInt32BE(1);
      if (pending.length < 1 + len) return;
      message(String.fromCharCode(pending[0]), pending.subarray(5, 1 + len));
      pending = pending.subarray(1 + len);
    }
  };
}

/** A relay to `dbUrl`'s server that records every statement run through it while `recording`. */
async function startRelay(dbUrl) {
  const target = new URL(dbUrl);
  const state = { recording: null, startup: null, sockets: new Set(), connections: 0, firsts: [] };
  const server = net.createServer((client) => {
    const conn = ++state.connections;
    let first = true;
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    state.sockets.add(client).add(upstream);
    const read = frontendReader(
      (st) => {
        if (first) state.firsts.push(st.sql);
        state.recording?.push({ ...st, conn, first });
        first = false;
      },
      (params) => (state.startup ??= params),
    );
    client.on('data', (chunk) => {
      upstream.write(chunk);
      try {
        read(chunk);
      } catch (err) {
        state.failure ??= err;
      }
    });
    upstream.pipe(client);
    const close = () => {
      client.destroy();
      upstream.destroy();
      state.sockets.delete(client);
      state.sockets.delete(upstream);
    };
    for (const s of [client, upstream]) s.on('error', close).on('close', close);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(dbUrl);
  url.hostname = '127.0.0.1';
  url.port = String(server.address().port);
  return {
    url: url.toString(),
    state,
    close: () => {
      for (const s of state.sockets) s.destroy();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

/** The request a row's target (as measureHttp takes it) sends next: `{ method, path, headers, body }`. */
function nextRequest(target) {
  const first = target.requests?.[0];
  const url = new URL(target.url);
  const req = first?.setupRequest ? first.setupRequest({ method: first.method ?? 'GET', path: '/', headers: {} }) : { method: first?.method ?? 'GET', path: `${url.pathname}${url.search}` };
  return { method: req.method ?? 'GET', path: req.path, headers: { ...(target.headers ?? {}), ...(req.headers ?? {}) }, body: req.body };
}

/**
 * Starts the capture server (`serverArgs(port, extraEnv)` gives startNode's arguments for one more
 * server of the bench's build and settings) behind the relay. `capture(target, n)` sends `n`
 * requests of a row (after `n / 5` of warm-up) and returns their statement sets, as pgbench
 * scripts weighted by how many requests sent each (sql-ceiling.mjs), with the session options the
 * service's connections open with; `stop()` stops the server and the relay.
 */
export async function startCaptureServer({ dbUrl, serverArgs, typeName }) {
  const relay = await startRelay(dbUrl);
  const port = await freePort();
  const proc = startNode('capture server', ...serverArgs(port, { DATABASE_URL: relay.url, WEBHOOK_WORKER_ENABLED: 'false' }));
  const base = `http://127.0.0.1:${port}`;
  const stop = async () => {
    await stopNode(proc);
    await relay.close();
  };
  try {
    await waitHttp(proc, `${base}/`);
  } catch (err) {
    await stop();
    throw err;
  }
  const send = async ({ method, path, headers, body }) => {
    const r = await fetch(`${base}${path}`, { method, headers, body, signal: AbortSignal.timeout(10_000) });
    const text = await r.text();
    if (r.status !== 200) throw new Error(`capture server: ${method} ${path}: ${r.status} ${text.slice(0, 300)}`);
  };
  // Statements run during `fn()`, as [from, to) in the stream being recorded.
  const during = async (fn) => {
    const from = relay.state.recording.length;
    await fn();
    return [from, relay.state.recording.length];
  };
  // Statement texts of the server's own periodic work, other than transaction brackets.
  const backgroundTexts = (statements) => statements.map((st) => st.sql).filter((sql) => !TX_START.test(sql) && !TX_END.test(sql));
  // Every periodic task the server runs comes round within LEARN_IDLE_MS (the grant sweeper's
  // 15 s is the longest): learnt once here, so that a schema check or a suggestions refresh that
  // falls in a request's window is never taken for the request's (it made a row's captured sets
  // unnamed, and its SQL alone re-plan every statement).
  let learnt;
  try {
    const stream = (relay.state.recording = []);
    await sleep(LEARN_IDLE_MS);
    learnt = new Set(backgroundTexts(stream));
  } catch (err) {
    await stop();
    throw err;
  } finally {
    relay.state.recording = null;
  }
  return {
    pid: proc.pid,
    stop,
    async capture(target, n) {
      for (let i = 0; i < Math.ceil(n / 5); i++) await send(nextRequest(target));
      const stream = (relay.state.recording = []);
      const windows = [];
      let idle;
      try {
        // The server's own periodic statements (the folder ticks each second): learnt while idle.
        idle = await during(() => sleep(2500));
        for (let i = 0; i < n; i++) {
          const request = nextRequest(target);
          windows.push(await during(() => send(request)));
        }
      } finally {
        relay.state.recording = null;
      }
      if (relay.state.failure) throw relay.state.failure;
      const background = new Set([...learnt, ...backgroundTexts(stream.slice(...idle))]);
      const { firsts } = relay.state;
      const setUp = new Set(firsts.filter((sql, i) => firsts.indexOf(sql) !== i));
      const keep = requestStatements(
        stream.filter((st) => !(st.first && setUp.has(st.sql))),
        background,
      );
      const sets = new Map();
      let named = true;
      for (const window of windows) {
        const statements = [];
        for (const st of stream.slice(...window).filter((x) => keep.has(x))) {
          named &&= st.named || TX_START.test(st.sql) || TX_END.test(st.sql);
          statements.push(inlined({ ...st, casts: await Promise.all(st.types.map((oid) => (oid ? typeName(oid) : null))) }));
        }
        const key = statements.join(';\n');
        sets.set(key, { statements, weight: (sets.get(key)?.weight ?? 0) + 1 });
      }
      // The session settings the service's connections open with (startup parameters), for pgbench's.
      const { options, ...startup } = relay.state.startup ?? {};
      const settings = Object.entries(startup).filter(([k]) => !['user', 'database', 'application_name', 'client_encoding', 'replication'].includes(k));
      const pgOptions = [options, ...settings.map(([k, v]) => `-c ${k}=${v}`)].filter(Boolean).join(' ') || undefined;
      // Statements the service prepares (named) are planned once a connection; unnamed ones on every call.
      return { scripts: [...sets.values()], pgOptions, requests: n, mode: named ? 'prepared' : 'extended' };
    },
  };
}
