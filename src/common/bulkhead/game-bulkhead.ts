import { ApiError } from '../errors/api-error';

/** Gives the slot back; a second call does nothing. */
export type Release = () => void;

interface Waiter {
  grant: (release: Release) => void;
  refuse: (err: ApiError) => void;
  timer: NodeJS.Timeout;
}

interface Lane {
  running: number;
  waiting: Waiter[];
}

export interface BulkheadOptions {
  /** What the 429 names ("exports", "searches"). */
  what: string;
  /** Runs at once per game. */
  limit: number;
  /** Waits in line per game beyond `limit`; past it the answer is 429 at once. */
  queue: number;
  /** The longest a request waits in line before its 429. */
  maxWaitMs: number;
}

/** Per game, what this instance's bulkheads hold: for the metrics and /healthz. */
export interface BulkheadLoad {
  running: number;
  waiting: number;
  refused: number;
}

/**
 * Per-game concurrency of one kind of expensive work on this instance: at most `limit` of a game's
 * run at once, up to `queue` more wait in line (first come, first served), and the rest are refused
 * with 429 and Retry-After. One game's burst then costs that game, not the connections and the
 * time of every other game on the instance. Per instance, like the pool it protects: N instances
 * give a game N times the limit, each against its own pool.
 */
export class GameBulkhead {
  private readonly lanes = new Map<string, Lane>();
  private refusedTotal = 0;

  constructor(private readonly options: BulkheadOptions) {}

  /** A slot of the game's, at once or after waiting in line; rejects with 429 when the line is full or the wait too long. */
  enter(gameId: string): Promise<Release> {
    const lane = this.lanes.get(gameId) ?? { running: 0, waiting: [] };
    this.lanes.set(gameId, lane);
    if (lane.running < this.options.limit) {
      lane.running++;
      return Promise.resolve(this.releaser(gameId, lane));
    }
    if (lane.waiting.length >= this.options.queue) return Promise.reject(this.refusal('busy'));
    return new Promise<Release>((grant, refuse) => {
      const waiter: Waiter = {
        grant,
        refuse,
        timer: setTimeout(() => {
          const at = lane.waiting.indexOf(waiter);
          if (at >= 0) lane.waiting.splice(at, 1);
          this.forget(gameId, lane);
          refuse(this.refusal('slow'));
        }, this.options.maxWaitMs),
      };
      lane.waiting.push(waiter);
    });
  }

  /** Runs `work` in a slot of the game's (see {@link enter}). */
  async run<T>(gameId: string, work: () => Promise<T>): Promise<T> {
    const release = await this.enter(gameId);
    try {
      return await work();
    } finally {
      release();
    }
  }

  /** What runs and waits now, over all games, and how many were refused since start. */
  load(): BulkheadLoad {
    let running = 0;
    let waiting = 0;
    for (const lane of this.lanes.values()) {
      running += lane.running;
      waiting += lane.waiting.length;
    }
    return { running, waiting, refused: this.refusedTotal };
  }

  private releaser(gameId: string, lane: Lane): Release {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = lane.waiting.shift();
      if (next) {
        // The slot passes straight to the first in line: running stays as it is.
        clearTimeout(next.timer);
        next.grant(this.releaser(gameId, lane));
        return;
      }
      lane.running--;
      this.forget(gameId, lane);
    };
  }

  private forget(gameId: string, lane: Lane): void {
    if (lane.running === 0 && lane.waiting.length === 0 && this.lanes.get(gameId) === lane) this.lanes.delete(gameId);
  }

  private refusal(why: 'busy' | 'slow'): ApiError {
    this.refusedTotal++;
    const { what, limit, queue } = this.options;
    const reason = why === 'busy' ? `${limit} of this game's ${what} are running and ${queue} more are waiting` : `this game's ${what} waited too long for one of its ${limit} slots`;
    return new ApiError('rate_limit_exceeded', `too many ${what} at once: ${reason}; retry in 1 s`, { 'retry-after': '1' });
  }
}
