import { session } from './session';

/** An error answer of the service, as its envelope gives it (code, message, requestId). */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly requestId: string | undefined,
  ) {
    super(message);
  }
}

export type Query = Record<string, string | number | boolean | string[] | undefined>;

/** A path with its query; empty values and empty lists are left out, lists repeat their name. */
export function withQuery(path: string, query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined || value === '') continue;
    for (const v of Array.isArray(value) ? value : [value]) params.append(name, String(v));
  }
  const qs = params.toString();
  return qs ? `${path}?${qs}` : path;
}

/** Called when the service refuses the token (401), so the console can ask for it again. */
let onUnauthorised: () => void = () => undefined;
export function whenUnauthorised(handler: () => void): void {
  onUnauthorised = handler;
}

export interface CallOptions {
  method?: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  query?: Query;
  body?: unknown;
  signal?: AbortSignal;
  token?: string;
}

/** Headers of an admin call: the token goes in Authorization, never in the URL. */
export function authHeaders(token = session.token()): Record<string, string> {
  return token ? { authorization: `Bearer ${token}` } : {};
}

/** One call to the service's admin API; answers the parsed JSON or throws an ApiFailure. */
export async function api<T>(path: string, options: CallOptions = {}): Promise<T> {
  const res = await send(path, 'application/json', options);
  return (res.status === 204 ? undefined : await res.json()) as T;
}

/** One call whose answer is a file to save rather than read: its body whole, as a Blob of `type`. */
export async function apiFile(path: string, type: string, options: CallOptions = {}): Promise<Blob> {
  const res = await send(path, type, options);
  return new Blob([await res.blob()], { type });
}

/** Sends a call; answers a 2xx response, or throws an ApiFailure (a network error included). */
async function send(path: string, accept: string, options: CallOptions): Promise<Response> {
  const headers: Record<string, string> = { accept, ...authHeaders(options.token) };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(withQuery(path, options.query), {
      method: options.method ?? 'GET',
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal: options.signal,
      cache: 'no-store',
    });
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
    throw new ApiFailure(0, 'network_error', 'the service could not be reached', undefined);
  }
  if (res.ok) return res;
  throw await failureOf(res, options.token === undefined);
}

/** The envelope of an error answer; a body that is not one still gives its status. */
export async function failureOf(res: Response, signOutOn401: boolean): Promise<ApiFailure> {
  const body = (await res.json().catch(() => null)) as { code?: string; message?: string; requestId?: string } | null;
  const failure = new ApiFailure(
    res.status,
    body?.code ?? `http_${res.status}`,
    body?.message ?? res.statusText,
    body?.requestId ?? res.headers.get('x-request-id') ?? undefined,
  );
  if (res.status === 401 && signOutOn401) onUnauthorised();
  return failure;
}
