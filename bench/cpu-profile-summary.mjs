#!/usr/bin/env node
// Where a server's CPU went, from the V8 profile `npm run bench` writes with BENCH_CPU_PROF=dir:
//   node bench/cpu-profile-summary.mjs <dir or .cpuprofile> [top]
// Self time by area (our code, each dependency, Node's internals, GC, idle) and the functions with
// the most self time. Time descheduled inside a system call counts as that call's (V8 cannot tell):
// on a machine whose cores are all busy, a write that wakes a PostgreSQL backend or the load
// generator is often where the server is preempted, so a native write is split by the stream it
// wrote to (a query to PostgreSQL, an HTTP response), read from the JavaScript frames above it.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

const [target, topArg] = process.argv.slice(2);
if (!target) {
  console.error('usage: node bench/cpu-profile-summary.mjs <dir or .cpuprofile> [top]');
  process.exit(2);
}
const file = statSync(target).isDirectory()
  ? readdirSync(target)
      .filter((f) => f.endsWith('.cpuprofile'))
      .map((f) => join(target, f))
      .sort((a, b) => statSync(b).size - statSync(a).size)[0]
  : target;
const profile = JSON.parse(readFileSync(file, 'utf8'));

/** The area a frame belongs to: a package, our code, Node's internals, or V8's pseudo-frames. */
function areaOf({ url, functionName }) {
  if (!url) {
    if (functionName === '(garbage collector)') return 'GC';
    if (functionName === '(idle)') return 'idle';
    if (functionName === '(program)') return 'V8 / native (program)';
    return `native: ${functionName || '(anonymous)'}`;
  }
  const pkg = url.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/);
  if (pkg) return pkg[1];
  if (url.startsWith('node:')) return 'node internals';
  if (url.includes('/dist/src/')) return 'service (dist/src)';
  return url;
}

const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parentOf = new Map();
for (const n of profile.nodes) for (const child of n.children ?? []) parentOf.set(child, n.id);

/** Native calls that write to a socket; what they wrote is told by the frames above them. */
const SOCKET_WRITES = new Set(['writev', 'writeBuffer', 'writeUtf8String', 'writeLatin1String', 'writeAsciiString']);

/** `native: writev (a query to PostgreSQL)` and the like, or null when no frame above says. */
function socketWriteArea(id) {
  const { functionName } = byId.get(id).callFrame;
  for (let at = parentOf.get(id); at !== undefined; at = parentOf.get(at)) {
    const { url } = byId.get(at).callFrame;
    if (/node_modules\/pg(-pool)?\//.test(url)) return `native: ${functionName} (a query to PostgreSQL)`;
    if (/node_modules\/fastify\/|node:_http_outgoing/.test(url)) return `native: ${functionName} (an HTTP response)`;
  }
  return null;
}
const selfUs = new Map();
const deltas = profile.timeDeltas;
for (let i = 0; i < profile.samples.length; i++) {
  const id = profile.samples[i];
  selfUs.set(id, (selfUs.get(id) ?? 0) + (deltas[i] ?? 0));
}
const total = [...selfUs.values()].reduce((a, b) => a + b, 0);
const areas = new Map();
const fns = new Map();
for (const [id, us] of selfUs) {
  const { callFrame } = byId.get(id);
  const area = (!callFrame.url && SOCKET_WRITES.has(callFrame.functionName) && socketWriteArea(id)) || areaOf(callFrame);
  areas.set(area, (areas.get(area) ?? 0) + us);
  const key = `${callFrame.functionName || '(anonymous)'}  ${area}${callFrame.url ? `:${callFrame.lineNumber + 1}` : ''}`;
  fns.set(key, (fns.get(key) ?? 0) + us);
}
const busy = total - (areas.get('idle') ?? 0);
const pct = (us, of) => `${((us / of) * 100).toFixed(1).padStart(5)} %`;
console.log(`${file}: ${(total / 1e6).toFixed(1)} s sampled, ${(busy / 1e6).toFixed(1)} s busy (not idle)`);
console.log('\nSelf time by area, of the busy time:');
for (const [area, us] of [...areas].filter(([a]) => a !== 'idle').sort((a, b) => b[1] - a[1]).slice(0, 20)) {
  console.log(`  ${pct(us, busy)}  ${area}`);
}
console.log(`\nThe ${Number(topArg) || 25} functions with the most self time:`);
for (const [fn, us] of [...fns].filter(([k]) => !k.startsWith('(idle)')).sort((a, b) => b[1] - a[1]).slice(0, Number(topArg) || 25)) {
  console.log(`  ${pct(us, busy)}  ${fn}`);
}
