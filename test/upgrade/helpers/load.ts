import { sleep } from '../../helpers/process';
import { openSse, type SseStream } from '../../helpers/sse';
import { startOutcome, type Balancer, type Outcome } from './fleet';

/**
 * The load of the rolling upgrade: players joining and leaving open groups, targeted invitations
 * sent and accepted, friend requests sent and accepted, a feed consumer and a stream subscriber.
 * It is what a client that sends no `x-svc-consistency` header and pages no list cursor does: the
 * feed pages by event id (`nextAfter`), which every release reads alike. (Tokens and list cursors
 * of one release are not all readable by the other: the spec probes that apart from the load.)
 */

export interface Targets {
  key: string;
  openGroups: readonly string[];
  inviteOnlyGroup: string;
  /** Makes this run's user ids its own. */
  prefix: string;
}

export type WriteOp = 'join' | 'leave' | 'invite' | 'accept' | 'friend' | 'friend-accept';

/** A write answered 2xx: the event it must have produced, by eventKey's name for it. */
export interface AckedWrite {
  op: WriteOp;
  at: number;
  instance: string;
  release: string;
  eventKey: string;
}

/**
 * The end state each acknowledged write promises, per row: the states the row may be in. One state
 * when every later change was acknowledged or refused; two when a later change got no answer (it
 * may or may not have committed).
 */
export interface Promised {
  members: Map<string, Set<'active' | 'left'>>;
  invitations: Map<string, Set<'unused' | 'used'>>;
  relationships: Map<string, Set<'request' | 'friend'>>;
}

/**
 * The name of what an event says happened, as a write's expectation names it: the member, the
 * invitation, or the pair of players. Two events with one name would be one write announced twice.
 */
export function eventKey(type: string, body: Record<string, unknown>): string {
  const idOf = (field: string) => (body[field] as { id?: unknown } | undefined)?.id;
  if (type === 'member.joined' || type === 'member.left') return `${type} member=${idOf('member')}`;
  if (type === 'invitation.created') return `${type} invitation=${idOf('invitation')}`;
  if (type.startsWith('friend.request.')) return `${type} ${body.actorSvcUserId}->${body.targetSvcUserId}`;
  return `${type} ${body.id}`;
}

const ok = (o: Outcome) => o.status >= 200 && o.status < 300;

/** Writes in `clients` loops of each kind until `stop()`; every acknowledged write and the rows' promised states are kept. */
export function writeLoad(b: Balancer, t: Targets, clients: number, pauseMs: number): { acked: AckedWrite[]; promised: Promised; stop(): Promise<void> } {
  const acked: AckedWrite[] = [];
  const promised: Promised = { members: new Map(), invitations: new Map(), relationships: new Map() };
  const auth = { authorization: `Bearer ${t.key}` };
  let stopped = false;
  const ack = (op: WriteOp, o: Outcome, key: string) => acked.push({ op, at: o.end, instance: o.instance, release: o.release, eventKey: key });
  const post = (op: WriteOp, path: string, body?: unknown) => b.request(op, 'POST', path, { headers: auth, body });

  // Each cycle is a new player: a write that got no answer (it may have committed) never meets a later one.
  const joinLeave = async (c: number) => {
    for (let n = 0; !stopped; n++) {
      const userId = `${t.prefix}c${c}j${n}`;
      const group = t.openGroups[(c + n) % t.openGroups.length];
      const join = await post('join', `/v1/groups/${group}/join`, { userId });
      if (!ok(join.outcome) || !join.res) {
        await sleep(pauseMs * 4);
        continue;
      }
      const memberId = join.res.body.id as string;
      ack('join', join.outcome, `member.joined member=${memberId}`);
      const states = new Set<'active' | 'left'>(['active']);
      promised.members.set(memberId, states);
      await sleep(pauseMs);
      // A leave is idempotent (a member no longer active comes back unchanged): retried until answered.
      for (let attempt = 0; attempt < 5; attempt++) {
        const leave = await post('leave', `/v1/groups/${group}/leave`, { userId });
        if (ok(leave.outcome)) {
          ack('leave', leave.outcome, `member.left member=${memberId}`);
          states.clear();
          states.add('left');
          break;
        }
        // Refused before any change (503, 4xx) leaves it active; no answer at all may have left it.
        if (leave.outcome.status === 0 || leave.outcome.status >= 500) states.add('left');
        await sleep(250);
      }
      await sleep(pauseMs);
    }
  };

  const invite = async (c: number) => {
    for (let n = 0; !stopped; n++) {
      const userId = `${t.prefix}c${c}i${n}`;
      const created = await post('invite', `/v1/groups/${t.inviteOnlyGroup}/invitations`, { targetUserId: userId });
      if (!ok(created.outcome) || !created.res) {
        await sleep(pauseMs * 4);
        continue;
      }
      const invitation = created.res.body as { id: string; code: string };
      ack('invite', created.outcome, `invitation.created invitation=${invitation.id}`);
      const states = new Set<'unused' | 'used'>(['unused']);
      promised.invitations.set(invitation.id, states);
      await sleep(pauseMs);
      const accepted = await post('accept', `/v1/invitations/${invitation.code}/accept`, { userId });
      if (ok(accepted.outcome) && accepted.res) {
        const memberId = accepted.res.body.id as string;
        ack('accept', accepted.outcome, `member.joined member=${memberId}`);
        promised.members.set(memberId, new Set(['active']));
        states.clear();
        states.add('used');
      } else if (accepted.outcome.status === 0 || accepted.outcome.status >= 500) states.add('used');
      await sleep(pauseMs);
    }
  };

  const befriend = async (c: number) => {
    for (let n = 0; !stopped; n++) {
      const from = `${t.prefix}c${c}fa${n}`;
      const to = `${t.prefix}c${c}fb${n}`;
      const sent = await post('friend', `/v1/users/${from}/friend-requests`, { targetSvcUserId: to });
      if (!ok(sent.outcome) || !sent.res?.body?.request?.id) {
        await sleep(pauseMs * 4);
        continue;
      }
      const requestId = sent.res.body.request.id as string;
      ack('friend', sent.outcome, `friend.request.sent ${from}->${to}`);
      const states = new Set<'request' | 'friend'>(['request']);
      promised.relationships.set(requestId, states);
      await sleep(pauseMs);
      const accepted = await post('friend-accept', `/v1/friend-requests/${requestId}/accept`);
      if (ok(accepted.outcome)) {
        ack('friend-accept', accepted.outcome, `friend.request.accepted ${from}->${to}`);
        states.clear();
        states.add('friend');
      } else if (accepted.outcome.status === 0 || accepted.outcome.status >= 500) states.add('friend');
      await sleep(pauseMs);
    }
  };

  const loops: Promise<void>[] = [];
  for (let c = 0; c < clients; c++) loops.push(joinLeave(c), invite(c), befriend(c));
  const all = Promise.all(loops);
  return {
    acked,
    promised,
    stop: async () => {
      stopped = true;
      await all;
    },
  };
}

/** Pages GET /v1/events/feed by nextAfter through the balancer until stopped; keeps every item's id in order. */
export function followFeed(b: Balancer, key: string): { ids: string[]; pages: number; stop(): Promise<void> } {
  const state = { ids: [] as string[], pages: 0, stop: async () => undefined as void };
  let after: string | null = null;
  let stopped = false;
  const loop = async () => {
    while (!stopped) {
      const { outcome, res } = await b.request('feed', 'GET', `/v1/events/feed?limit=500${after ? `&after=${after}` : ''}`, { headers: { authorization: `Bearer ${key}` } });
      if (!ok(outcome) || !res) {
        await sleep(300);
        continue;
      }
      state.pages++;
      const items = res.body.items as { id: string }[];
      for (const item of items) state.ids.push(item.id);
      after = res.body.nextAfter ?? after;
      if (items.length < 500) await sleep(250);
    }
  };
  const done = loop();
  state.stop = async () => {
    stopped = true;
    await done;
  };
  return state;
}

/**
 * The game's stream as an EventSource follows it: opened through the balancer, and when the
 * connection ends (its instance stopped) opened again on another with Last-Event-ID, the last id
 * of any frame (the id-only frame a live stream opens with included). Keeps the ids of the events
 * received, in order, duplicates included. Resolves once the first stream is open.
 */
export async function followStream(b: Balancer, key: string): Promise<{ ids: string[]; opened: string[]; stop(): void }> {
  /** opened: the instance of each stream that answered 200, in order (all but the first are reconnects). */
  const state = { ids: [] as string[], opened: [] as string[], stop: () => undefined as void };
  let lastId: string | null = null;
  let current: SseStream | null = null;
  let stopped = false;
  let opened!: () => void;
  const first = new Promise<void>((r) => (opened = r));
  const loop = async () => {
    while (!stopped) {
      const instance = b.pick();
      const outcome = startOutcome(instance, 'stream', 'GET', '/v1/events');
      try {
        const s = await openSse(instance.base, '/v1/events', { authorization: `Bearer ${key}`, ...(lastId ? { 'last-event-id': lastId } : {}) });
        outcome.end = Date.now();
        outcome.status = s.status;
        outcome.retryAfter = typeof s.headers['retry-after'] === 'string' ? s.headers['retry-after'] : null;
        outcome.requestId = typeof s.headers['x-request-id'] === 'string' ? s.headers['x-request-id'] : null;
        if (s.status !== 200) outcome.body = JSON.stringify(s.body).slice(0, 300);
        b.record(outcome);
        if (s.status === 200) {
          current = s;
          state.opened.push(instance.name);
          opened();
          let seen = 0;
          s.onData(() => {
            for (; seen < s.frames.length; seen++) {
              const f = s.frames[seen];
              if (f.id !== undefined) lastId = f.id;
              if (f.id !== undefined && f.data !== undefined) state.ids.push(f.id);
            }
          });
          await s.ended;
        }
      } catch (err) {
        outcome.end = Date.now();
        outcome.error = (err as { code?: string }).code ?? (err as Error).message;
        outcome.errorWhile = instance.state;
        b.record(outcome);
      }
      current = null;
      if (stopped) break;
      await sleep(200);
    }
  };
  void loop();
  state.stop = () => {
    stopped = true;
    current?.close();
  };
  await first;
  return state;
}
