// A player's export at the size (EXTENSIONS X7): a user with 10,000 friends and 100,000
// audit entries (and 20,000 events naming them) is exported through the API. The row reports when
// the answer starts, how long the whole document takes, and how far the server's memory rises while
// it streams, beside the same for a player with a tenth of that history. RSS alone says little (V8
// grows its heap under any steady allocation), so the large document is also exported from a
// server whose JavaScript heap is capped below the document's own size in memory: a document built
// whole would not fit, a streamed one does.
import { freePort, procMb, sleep, startNode, stopNode, waitHttp } from './processes.mjs';
import { ERASURE_SIZE, seedSubject, subjectGroups } from './erasure.mjs';

export const EXPORT_SIZE = { friends: 10_000, audit: ERASURE_SIZE.audit, events: ERASURE_SIZE.events };
const SMALL_SIZE = { friends: 1_000, audit: 10_000, events: 2_000 };
/**
 * The capped server's old-space limit: the service itself holds about 30 MB of it once booted (it
 * does not boot under 32 MB), which leaves less room than the large document's 40 MB.
 */
const CAPPED_HEAP_MB = 48;

/** Reads the answer as a stream; the server's RSS is sampled every 10 ms meanwhile. */
async function exportOnce(base, headers, externalId, pid) {
  const rssBefore = procMb(pid);
  let rssPeak = rssBefore;
  const sampler = setInterval(() => {
    rssPeak = Math.max(rssPeak, procMb(pid));
  }, 10);
  try {
    const start = performance.now();
    const r = await fetch(`${base}/v1/users/${encodeURIComponent(externalId)}/export`, { headers });
    const headersMs = performance.now() - start;
    if (r.status !== 200) throw new Error(`export: ${r.status} ${await r.text()}`);
    const reader = r.body.getReader();
    const parts = [];
    let firstByteMs = NaN;
    let bytes = 0;
    let chunks = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!chunks) firstByteMs = performance.now() - start;
      chunks++;
      bytes += value.length;
      parts.push(value);
    }
    const totalMs = performance.now() - start;
    const doc = JSON.parse(Buffer.concat(parts).toString('utf8'));
    return { headersMs, firstByteMs, totalMs, bytes, chunks, doc, rssBefore, rssPeak };
  } finally {
    clearInterval(sampler);
  }
}

/** Seeds a subject of `size`, exports it twice (the first warms plans and pages) and keeps the second. */
async function measureOne({ q, base, headers, gameId, users, pid, log }, size) {
  const t0 = performance.now();
  const externalId = await seedSubject(q, gameId, users, subjectGroups(), size);
  log(`  subject of ${size.friends} friends and ${size.audit} audit entries seeded in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  await exportOnce(base, headers, externalId, pid);
  await sleep(1000);
  const r = await exportOnce(base, headers, externalId, pid);
  const counts = { friends: r.doc.friends.friends.length, audit: r.doc.audit.length, events: r.doc.events.length };
  // Each export records a user.exported entry naming the player before it reads: the second holds both.
  if (counts.friends !== Math.min(size.friends, users) || counts.audit !== size.audit + 2 || counts.events !== size.events) {
    throw new Error(`export: unexpected counts ${JSON.stringify(counts)}`);
  }
  const { doc: _doc, ...figures } = r;
  return { ...figures, externalId, counts, rssRiseMb: r.rssPeak - r.rssBefore, documentMb: r.bytes / 2 ** 20 };
}

/** The same export from a server of its own with a capped heap: whole and identical, or why not. */
async function exportCapped({ headers, serverArgs }, externalId, bytes) {
  const port = await freePort();
  const server = startNode('guildhall (capped heap)', ...serverArgs(port, {}, [`--max-old-space-size=${CAPPED_HEAP_MB}`]));
  try {
    const base = `http://127.0.0.1:${port}`;
    await waitHttp(server, `${base}/`);
    const r = await exportOnce(base, headers, externalId, server.pid);
    return { heapMb: CAPPED_HEAP_MB, ok: r.bytes === bytes, failure: r.bytes === bytes ? null : `${r.bytes} bytes, not ${bytes}`, rssPeak: r.rssPeak };
  } catch (err) {
    return { heapMb: CAPPED_HEAP_MB, ok: false, failure: `${err.message}; ${server.tail().slice(-300)}`, rssPeak: NaN };
  } finally {
    await stopNode(server);
  }
}

export async function measureExport(ctx) {
  const small = await measureOne(ctx, SMALL_SIZE);
  await sleep(1000);
  const large = await measureOne(ctx, EXPORT_SIZE);
  return { ...large, small, capped: await exportCapped(ctx, large.externalId, large.bytes) };
}
