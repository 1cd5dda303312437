import type { FuzzRequest } from './openapi-fuzz';

export interface FuzzAnswer {
  status: number;
  contentType: string;
  text: string;
  /** Parsed JSON, or undefined when the body is not JSON (or an event stream). */
  json: unknown;
}

/**
 * Sends one fuzzed request. An event stream is closed as soon as its headers arrive (the server
 * would hold it open); every other answer is read in full.
 */
export async function send(base: string, req: FuzzRequest, authorization: string | undefined): Promise<FuzzAnswer> {
  const headers: Record<string, string> = {};
  if (authorization) headers.authorization = authorization;
  if (req.contentType) headers['content-type'] = req.contentType;
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), 15_000);
  try {
    const res = await fetch(`${base}${req.url}`, { method: req.method, headers, body: req.body, signal: abort.signal });
    const contentType = res.headers.get('content-type') ?? '';
    if (contentType.startsWith('text/event-stream')) {
      abort.abort();
      return { status: res.status, contentType, text: '', json: undefined };
    }
    const text = await res.text();
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return { status: res.status, contentType, text, json };
  } finally {
    clearTimeout(timer);
  }
}

/** Runs `fn` over `items`, `concurrency` at a time, in order of start. */
export async function pool<T>(items: T[], concurrency: number, fn: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) {
        const i = next++;
        await fn(items[i], i);
      }
    }),
  );
}

/** The values of fields named like secrets anywhere in a JSON value (a `key` only when it is an API key). */
export function secretFields(value: unknown, names = /^(key|secret|standardSecret|passcode|token)$/): string[] {
  const found: string[] = [];
  const walk = (v: unknown, name: string, depth: number) => {
    if (depth > 20 || v === null || v === undefined) return;
    if (typeof v === 'string') {
      if (names.test(name) && (name !== 'key' || v.startsWith('jk_'))) found.push(v);
    } else if (Array.isArray(v)) {
      for (const x of v) walk(x, name, depth + 1);
    } else if (typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) walk(x, k, depth + 1);
    }
  };
  walk(value, '', 0);
  return found;
}
