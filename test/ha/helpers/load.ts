import type { IncomingMessage, ServerResponse } from 'node:http';
import { http, sleep } from '../../helpers/process';
import { openSse, type SseStream } from '../../helpers/sse';
import { listenLocal, type LocalServer } from '../../helpers/webhook-receiver';

/** One write as a client saw it: what it asked, what came back, and when (ms since the epoch). */
export interface WriteResult {
  op: 'join' | 'accept' | 'friend';
  instance: number;
  start: number;
  end: number;
  status: number;
  /** The id of the row the write created (a member or a friend request), on a 2xx. */
  id?: string;
  code?: string;
  retryAfter?: string | null;
  /** A transport failure (no answer at all). */
  error?: string;
}

export interface Targets {
  instances: readonly string[];
  key: string;
  groups: readonly string[];
  invitationCode: string;
}

/**
 * Clients writing in a loop until `stop()` is called: joins to public groups, invitation accepts
 * and friend requests, alternating between the instances. Each write is for a new user, so an
 * unacknowledged one (which may or may not have committed) never collides with a later one.
 */
export function writeLoad(t: Targets, clients: number, prefix: string, pauseMs = 20): { results: WriteResult[]; stop(): Promise<void> } {
  const results: WriteResult[] = [];
  let stopped = false;
  let n = 0;
  const auth = { authorization: `Bearer ${t.key}` };
  const one = async (c: number) => {
    while (!stopped) {
      const i = n++;
      const instance = (c + i) % t.instances.length;
      const base = t.instances[instance];
      const op = (['join', 'accept', 'friend'] as const)[i % 3];
      const req =
        op === 'join'
          ? { path: `/v1/groups/${t.groups[i % t.groups.length]}/join`, body: { userId: `${prefix}j${i}` } }
          : op === 'accept'
            ? { path: `/v1/invitations/${t.invitationCode}/accept`, body: { userId: `${prefix}a${i}` } }
            : { path: `/v1/users/${prefix}f${i}/friend-requests`, body: { targetSvcUserId: `${prefix}t${i}` } };
      const r: WriteResult = { op, instance, start: Date.now(), end: 0, status: 0 };
      try {
        const res = await http(`${base}${req.path}`, { method: 'POST', headers: auth, body: req.body, timeoutMs: 30_000 });
        r.status = res.status;
        if (res.status === 201) r.id = op === 'friend' ? res.body.request?.id : res.body.id;
        else {
          r.code = res.body?.code;
          r.retryAfter = res.headers.get('retry-after');
        }
      } catch (err) {
        r.error = (err as Error).message;
      }
      r.end = Date.now();
      results.push(r);
      await sleep(r.status === 201 ? pauseMs : 100);
    }
  };
  const all = Promise.all(Array.from({ length: clients }, (_, c) => one(c)));
  return {
    results,
    stop: async () => {
      stopped = true;
      await all;
    },
  };
}

/**
 * The unavailable window of a run of writes around `at` (a kill or a switchover): the failed
 * writes answered from then on, the first and last of them, and the first 2xx answered after the
 * last failure (when writes work again).
 */
export function outage(results: readonly WriteResult[], at: number): { failures: WriteResult[]; firstFailure: number | null; lastFailure: number | null; backAt: number | null } {
  const failures = results.filter((r) => r.end >= at && r.status !== 201);
  const firstFailure = failures.length ? Math.min(...failures.map((r) => r.end)) : null;
  const lastFailure = failures.length ? Math.max(...failures.map((r) => r.end)) : null;
  const oks = results.filter((r) => r.status === 201 && r.end >= (lastFailure ?? at));
  const backAt = oks.length ? Math.min(...oks.map((r) => r.end)) : null;
  return { failures, firstFailure, lastFailure, backAt };
}

/** Answers that are not what a client may see across a failover: anything but 201, or 503 service_unavailable with Retry-After. */
export const unexpected = (results: readonly WriteResult[]): WriteResult[] =>
  results.filter((r) => r.status !== 201 && !(r.status === 503 && r.code === 'service_unavailable' && r.retryAfter && Number(r.retryAfter) >= 1));

/**
 * An SSE consumer that reconnects with its last id whenever the stream ends or is refused, as a
 * client following the docs does; collects the ids of the events it received, in order.
 */
export function followStream(
  base: string,
  path: string,
  key: string,
  lastId: string | null,
): { ids: string[]; reconnects: number; refusals: Record<string, number>; stop(): void; cut(): void } {
  const state = { ids: [] as string[], reconnects: 0, refusals: {} as Record<string, number>, stop: () => undefined as void, cut: () => undefined as void };
  let last = lastId;
  let current: SseStream | null = null;
  let stopped = false;
  const loop = async () => {
    while (!stopped) {
      try {
        const s = await openSse(base, path, { authorization: `Bearer ${key}`, ...(last ? { 'last-event-id': last } : {}) });
        current = s;
        if (s.status === 200) {
          let seen = 0;
          s.onData(() => {
            const ids = s.ids();
            for (; seen < ids.length; seen++) {
              state.ids.push(ids[seen]);
              last = ids[seen];
            }
          });
          await s.ended;
        } else {
          const why = `${s.status} ${String(s.body?.code ?? '')}`.trim();
          state.refusals[why] = (state.refusals[why] ?? 0) + 1;
        }
      } catch (err) {
        // Cut before the headers: reconnect.
        const why = (err as NodeJS.ErrnoException).code ?? 'error';
        state.refusals[why] = (state.refusals[why] ?? 0) + 1;
      }
      current = null;
      if (stopped) break;
      state.reconnects++;
      await sleep(300);
    }
  };
  void loop();
  state.stop = () => {
    stopped = true;
    current?.close();
  };
  // The connection drops as a network would drop it: the loop reconnects with the last id.
  state.cut = () => current?.close();
  return state;
}

/** Pulls GET /v1/events/feed from `after` until stopped, retrying on failures; keeps every item's id in order. */
export function followFeed(base: string, key: string, after: string | null): { ids: string[]; failures: number; stop(): Promise<void> } {
  const state = { ids: [] as string[], failures: 0, stop: async () => undefined as void };
  let cursor = after;
  let stopped = false;
  const loop = async () => {
    while (!stopped) {
      try {
        const r = await http(`${base}/v1/events/feed?limit=500${cursor ? `&after=${cursor}` : ''}`, { headers: { authorization: `Bearer ${key}` }, timeoutMs: 30_000 });
        if (r.status !== 200) {
          state.failures++;
          await sleep(300);
          continue;
        }
        for (const item of r.body.items as { id: string }[]) state.ids.push(item.id);
        if (r.body.items.length) cursor = r.body.items[r.body.items.length - 1].id;
        if (r.body.items.length < 500) await sleep(200);
      } catch {
        state.failures++;
        await sleep(300);
      }
    }
  };
  const done = loop();
  state.stop = async () => {
    stopped = true;
    await done;
  };
  return state;
}

export interface Receipt {
  eventId: string;
  type: string;
  arrivedAt: number;
}

/** A webhook endpoint on `host` that answers 200 and records every delivery. */
export async function webhookReceiver(host: string): Promise<LocalServer & { receipts: Receipt[] }> {
  const receipts: Receipt[] = [];
  const server = await listenLocal((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      try {
        const event = JSON.parse(body);
        receipts.push({ eventId: event.id, type: event.type, arrivedAt: Date.now() });
      } catch {
        // Not an event: counted nowhere.
      }
      res.end('ok');
    });
  }, host);
  return { ...server, receipts };
}

/** Polls `cond` until it holds or `ms` pass; says whether it held. */
export async function eventually(cond: () => boolean | Promise<boolean>, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await cond()) return true;
    if (Date.now() > deadline) return false;
    await sleep(500);
  }
}
