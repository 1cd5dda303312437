import type { Operation } from './api-document';

export interface Answer {
  status: number;
  text: string;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  headers: Headers;
}

export interface CallOptions {
  params?: Record<string, string>;
  query?: Record<string, string | number | boolean | string[]>;
  body?: unknown;
  /** null: no Authorization header; a string: that bearer token; omitted: the operation's own credential. */
  token?: string | null;
  /** Request headers beside the credential's. */
  headers?: Record<string, string>;
}

/** What every client made from one rig shares: the operations, what each answered, the violations. */
export interface Ledger {
  ops: Map<string, Operation>;
  seen: Map<string, Set<number>>;
  violations: string[];
}

/**
 * Calls operations of the API document through Prism, by their document key ('POST /v1/groups'), so
 * a typo or an undocumented route fails at once. Prism (run with --errors) answers a request or an
 * answer that breaks the document itself, with application/problem+json; it also names any lesser
 * mismatch in an sl-violations header. Either one fails the call.
 */
export class ContractClient {
  constructor(
    private readonly base: string,
    private readonly ledger: Ledger,
    private readonly tokens: { apiKey?: string; adminToken: string },
  ) {}

  /** The same client, calling game routes with another game's key. */
  withKey(apiKey: string): ContractClient {
    return new ContractClient(this.base, this.ledger, { ...this.tokens, apiKey });
  }

  /** The same client, calling admin routes with another admin credential (an operator's token). */
  withAdminToken(adminToken: string): ContractClient {
    return new ContractClient(this.base, this.ledger, { ...this.tokens, adminToken });
  }

  operation(key: string): Operation {
    const op = this.ledger.ops.get(key);
    if (!op) throw new Error(`${key} is not an operation of /openapi.json`);
    return op;
  }

  async call(key: string, opts: CallOptions = {}): Promise<Answer> {
    const op = this.operation(key);
    const res = await fetch(this.base + this.url(op, opts), {
      method: op.method,
      headers: this.headers(op, opts),
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
      signal: AbortSignal.timeout(15_000),
    });
    const text = await res.text();
    const answer: Answer = { status: res.status, text, body: parse(text), headers: res.headers };
    const violation = res.headers.get('sl-violations') ?? (/problem\+json/.test(res.headers.get('content-type') ?? '') ? text : null);
    if (violation !== null) {
      const message = `${key} answered ${res.status}; Prism reports: ${violation.slice(0, 3000)}`;
      this.ledger.violations.push(message);
      throw new Error(message);
    }
    this.record(op, res.status);
    return answer;
  }

  /** Calls and insists on `status`; returns the parsed body. */
  async expect(key: string, status: number, opts: CallOptions = {}): Promise<any> { // eslint-disable-line @typescript-eslint/no-explicit-any
    const r = await this.call(key, opts);
    if (r.status !== status) throw new Error(`${key}: expected ${status}, got ${r.status} ${r.text.slice(0, 500)}`);
    return r.body;
  }

  /**
   * A stream's 200 goes to the service itself (Prism would wait for the end of an endless answer):
   * checks its status and documented media type, then hangs up.
   */
  async openStream(serviceBase: string, key: string, opts: CallOptions = {}): Promise<void> {
    const op = this.operation(key);
    const ctrl = new AbortController();
    const res = await fetch(serviceBase + this.url(op, opts), { headers: this.headers(op, opts), signal: ctrl.signal });
    const type = res.headers.get('content-type') ?? '';
    ctrl.abort();
    if (res.status !== 200 || !type.startsWith('text/event-stream')) throw new Error(`${key}: expected a 200 event stream, got ${res.status} ${type}`);
    this.record(op, 200);
  }

  private record(op: Operation, status: number): void {
    const statuses = this.ledger.seen.get(op.key) ?? new Set<number>();
    statuses.add(status);
    this.ledger.seen.set(op.key, statuses);
  }

  private url(op: Operation, opts: CallOptions): string {
    const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) => {
      const value = opts.params?.[name];
      if (value === undefined) throw new Error(`${op.key}: no value for {${name}}`);
      return encodeURIComponent(value);
    });
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries(opts.query ?? {})) for (const v of [value].flat()) search.append(name, String(v));
    const query = search.toString();
    return query ? `${path}?${query}` : path;
  }

  private headers(op: Operation, opts: CallOptions): Record<string, string> {
    const headers: Record<string, string> = { ...opts.headers };
    const token = opts.token === undefined ? (op.credential === 'public' ? undefined : this.tokens[op.credential]) : opts.token;
    if (token) headers.authorization = `Bearer ${token}`;
    if (opts.body !== undefined) headers['content-type'] = 'application/json';
    return headers;
  }
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
