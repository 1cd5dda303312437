/** The real service on its own database, listening on a port, and what the client tests share. */
import type { AddressInfo } from 'node:net';
import { newGame, startTestApp, type TestApp } from '../../../test/helpers/test-app';
import type { TestDatabase } from '../../../test/helpers/test-db';
import { createGuildhallClient, type GuildhallClient } from '../src/index.js';

export interface Service {
  t: TestApp;
  baseUrl: string;
}

/** The production app (startTestApp), listening on an ephemeral 127.0.0.1 port. */
export async function startService(env: Record<string, string> = {}, db?: TestDatabase): Promise<Service> {
  const t = await startTestApp(env, db);
  await t.app.listen(0, '127.0.0.1');
  return { t, baseUrl: `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}` };
}

/** What a recorded request came to: its status, or the error that stopped it before one. */
export interface RecordedCall {
  url: string;
  status?: number;
  error?: string;
}

/** A `fetch` (by default the global one) that records the URL and outcome of every request it makes. */
export function recordingFetch(inner: typeof globalThis.fetch = fetch): { fetch: typeof globalThis.fetch; calls: RecordedCall[] } {
  const calls: RecordedCall[] = [];
  const recording: typeof globalThis.fetch = async (input, init) => {
    const call: RecordedCall = { url: input instanceof Request ? input.url : String(input) };
    calls.push(call);
    try {
      const response = await inner(input, init);
      call.status = response.status;
      return response;
    } catch (err) {
      call.error = String(err);
      throw err;
    }
  };
  return { fetch: recording, calls };
}

export interface GameClient {
  gameId: string;
  key: string;
  client: GuildhallClient;
}

/** A new game (admin API) and a client holding its key. */
export async function gameClient(s: Service, fetch?: typeof globalThis.fetch): Promise<GameClient> {
  const { gameId, key } = await newGame(s.t);
  return { gameId, key, client: createGuildhallClient({ baseUrl: s.baseUrl, apiKey: key, fetch }) };
}

/**
 * Resolves once `cond` holds, checking every 20 ms; fails after `ms` naming `what` (a function:
 * described as things stand at the failure).
 */
export async function waitFor(cond: () => boolean, ms: number, what: string | (() => string)): Promise<void> {
  const until = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > until) throw new Error(`${typeof what === 'string' ? what : what()}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The error an async call throws (fails the test when it resolves). */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error('expected a rejection');
}
