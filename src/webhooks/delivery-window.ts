/** SPEC §1.7: attempts are claimed in batches of 50; the window one worker keeps in flight. */
export const WORKER_BATCH = 50;
/** One endpoint's share of the window, so a slow receiver never holds up the others. */
export const PER_ENDPOINT_IN_FLIGHT = 10;

/** What a claim may take, given what this worker already has in flight. */
export interface ClaimRoom {
  /** Endpoints with attempts in flight, and how many each (same order). */
  endpointIds: string[];
  inFlight: number[];
  share: number;
  /** Slots for endpoints below their share: the window less the shares already taken. */
  fairFree: number;
  /** Slots the only endpoint with due work may borrow beyond its share: the window's free slots. */
  borrowFree: number;
}

/**
 * The attempts one worker has in flight, per endpoint. Each endpoint is entitled to its share of
 * the window; when a single endpoint has due work it may also borrow the window's free slots. A
 * borrowed slot never stands in the way of another endpoint's share (the shares are counted
 * apart), so a slow receiver holding its borrowed slots delays no one: at worst the window runs
 * over by what was borrowed.
 */
export class DeliveryWindow {
  private readonly perEndpoint = new Map<string, number>();
  private total = 0;

  constructor(
    readonly size = WORKER_BATCH,
    readonly share = PER_ENDPOINT_IN_FLIGHT,
  ) {}

  get inFlight(): number {
    return this.total;
  }

  add(endpointId: string): void {
    this.perEndpoint.set(endpointId, (this.perEndpoint.get(endpointId) ?? 0) + 1);
    this.total++;
  }

  /** True when the endpoint just fell below its share: a claim may find its work again. */
  remove(endpointId: string): boolean {
    const n = this.perEndpoint.get(endpointId) ?? 0;
    if (n <= 1) this.perEndpoint.delete(endpointId);
    else this.perEndpoint.set(endpointId, n - 1);
    if (n > 0) this.total--;
    return n === this.share;
  }

  /** Free slots of the window itself (what a lone endpoint may fill). */
  get free(): number {
    return Math.max(this.size - this.total, 0);
  }

  /** Whether a claim could take anything (the shares' room always covers the free slots). */
  get hasRoom(): boolean {
    return this.room().fairFree > 0;
  }

  room(): ClaimRoom {
    let shares = 0;
    for (const n of this.perEndpoint.values()) shares += Math.min(n, this.share);
    return {
      endpointIds: [...this.perEndpoint.keys()],
      inFlight: [...this.perEndpoint.values()],
      share: this.share,
      fairFree: Math.max(this.size - shares, 0),
      borrowFree: this.free,
    };
  }
}
