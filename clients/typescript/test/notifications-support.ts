/** What the notification tests share: a player the game has seen, and notifications written to them. */
import { randomUUID } from 'node:crypto';
import type { GameClient } from './support';

export interface Player {
  userId: string;
  /** Writes `n` notifications to the player (targeted invitations to a group of the game), one by one. */
  invite(n: number): Promise<void>;
}

/** A player the game has seen (the creator of a group: no notification), and a group that invites them. */
export async function seenPlayer(g: GameClient): Promise<Player> {
  const userId = `player-${randomUUID().slice(0, 8)}`;
  const home = await g.client.POST('/v1/groups', { body: { kind: 'guild', name: 'Home', visibility: 'public', creatorUserId: userId } });
  if (home.response.status !== 201) throw new Error(`home group: ${home.response.status}`);
  const inviting = (await g.client.POST('/v1/groups', { body: { kind: 'guild', name: 'Night Watch', visibility: 'public' } })).data!;
  return {
    userId,
    invite: async (n) => {
      for (let i = 0; i < n; i++) {
        const r = await g.client.POST('/v1/groups/{id}/invitations', { params: { path: { id: inviting.id } }, body: { targetUserId: userId, invitedByUserId: 'captain' } });
        if (r.response.status !== 201) throw new Error(`invitation: ${r.response.status}`);
      }
    },
  };
}

/** A `fetch` recording, for each request, its path and its Last-Event-ID header, and the answer's status. */
export function headerRecordingFetch(): { fetch: typeof globalThis.fetch; calls: { path: string; lastEventId: string | null; status?: number }[] } {
  const calls: { path: string; lastEventId: string | null; status?: number }[] = [];
  const recording: typeof globalThis.fetch = async (input, init) => {
    const request = new Request(input, init);
    const call: { path: string; lastEventId: string | null; status?: number } = { path: new URL(request.url).pathname, lastEventId: request.headers.get('last-event-id') };
    calls.push(call);
    const response = await fetch(input, init);
    call.status = response.status;
    return response;
  };
  return { fetch: recording, calls };
}

/**
 * A header-recording fetch whose stream requests wait while the gate is shut, so that notifications
 * and marks commit while the follower is away; `attempts` counts the stream requests made.
 */
export function gatedStreams(): ReturnType<typeof headerRecordingFetch> & { attempts(): number; shut(): void; open(): void } {
  const recorder = headerRecordingFetch();
  let gate: Promise<void> = Promise.resolve();
  let release = () => undefined as void;
  let attempts = 0;
  const gated: typeof globalThis.fetch = async (input, init) => {
    if (new URL(new Request(input, init).url).pathname.endsWith('/stream')) {
      attempts++;
      await gate;
    }
    return recorder.fetch(input, init);
  };
  return {
    fetch: gated,
    calls: recorder.calls,
    attempts: () => attempts,
    shut: () => {
      gate = new Promise((r) => (release = r));
    },
    open: () => release(),
  };
}
