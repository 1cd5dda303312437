import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { http, sleep, TEST_ADMIN_TOKEN } from '../helpers/process';
import { caseContext, startInstance, type Instance } from './helpers/service';

/**
 * DECISIONS §31 against the real process: large bodies sent without credentials (or to no route)
 * are refused on arrival, so they cost the server neither time nor memory. Each client here really
 * sends its whole body, as fast as the server lets it, the way an attacker would.
 */
const MIB = 1024 * 1024;

/** The process's resident memory, from the kernel's own count. */
function rssOf(pid: number): number {
  const kb = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!kb) throw new Error(`no VmRSS for ${pid}`);
  return Number(kb[1]) * 1024;
}

/** Sends `size` bytes of body in 1 MiB writes; resolves with the answer's status and how long it took to come. */
function sendBody(base: string, method: string, path: string, headers: Record<string, string>, size: number): Promise<{ status: number; ms: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const chunk = Buffer.alloc(MIB, 0x61);
    const req = request(`${base}${path}`, { method, headers: { ...headers, 'content-type': 'application/json', 'content-length': String(size) } });
    req.on('response', (res) => {
      res.resume();
      resolve({ status: res.statusCode ?? 0, ms: performance.now() - started });
      req.destroy();
    });
    // The server closes the connection after its answer, while this client is still writing.
    req.on('error', (err: NodeJS.ErrnoException) => (['EPIPE', 'ECONNRESET'].includes(err.code ?? '') ? undefined : reject(err)));
    let sent = 0;
    const pump = () => {
      while (sent < size && !req.destroyed) {
        sent += MIB;
        if (!req.write(sent === MIB ? Buffer.concat([Buffer.from('{"name":"'), chunk.subarray(9)]) : chunk)) return void req.once('drain', pump);
      }
      if (!req.destroyed) req.end();
    };
    pump();
  });
}

describe('large bodies without credentials', () => {
  let ctx: Awaited<ReturnType<typeof caseContext>>;
  let svc: Instance;

  beforeAll(async () => {
    ctx = await caseContext();
    svc = await startInstance(ctx.db, { LOG_LEVEL: 'info' });
  }, 120_000);

  afterAll(async () => {
    await svc?.stop();
    await ctx?.done();
  }, 60_000);

  it('answers three concurrent 95 MiB bodies (no key, a wrong key, no route) at once, the server\'s memory flat', async () => {
    const pid = svc.proc.child.pid!;
    // Warm: the first requests load code and fill caches; the baseline is taken after them.
    for (let i = 0; i < 20; i++) await http(`${svc.base}/v1/groups`, { method: 'POST', body: { kind: 'guild', name: 'x' } });
    await sleep(500);
    const before = rssOf(pid);
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, rssOf(pid))), 20);
    try {
      const started = performance.now();
      const answers = await Promise.all([
        sendBody(svc.base, 'POST', '/v1/groups', {}, 95 * MIB),
        sendBody(svc.base, 'POST', '/v1/groups', { authorization: 'Bearer jk_0123456789abcdef.wrongwrongwrongwrongwrongwrongwrongwrong12' }, 95 * MIB),
        sendBody(svc.base, 'POST', '/v1/no-such-route', {}, 95 * MIB),
        sendBody(svc.base, 'POST', '/v1/admin/games', { authorization: 'Bearer not-the-token' }, 60 * MIB),
      ]);
      const wall = performance.now() - started;
      await sleep(200);
      const grewMib = (peak - before) / MIB;
      process.stdout.write(`unauthenticated bodies: answered in ${answers.map((a) => `${a.ms.toFixed(0)} ms`).join(', ')} (all ${wall.toFixed(0)} ms); RSS ${(before / MIB).toFixed(0)} MiB, peak +${grewMib.toFixed(1)} MiB\n`);
      expect(answers.map((a) => a.status)).toEqual([401, 401, 404, 401]);
      for (const a of answers) expect(a.ms).toBeLessThan(500);
      expect(grewMib).toBeLessThan(32);
    } finally {
      clearInterval(sampler);
    }
    // And it still serves its clients.
    const admin = await http(`${svc.base}/v1/admin/games`, { method: 'POST', headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` }, body: { name: 'after' } });
    expect(admin.status).toBe(201);
  }, 60_000);
});
