/** A write waiting for a connection, with the means to answer its caller. */
export interface Waiting<T = unknown> {
  readonly work: T;
  resolve(value: unknown): void;
  reject(err: unknown): void;
}

/**
 * The writes that may share a transaction (UnitOfWork.runShared), served on at most `lanes`
 * transactions at once. A lane coming free takes every write waiting, up to `max`, in the order
 * they came: batches form only while writes wait anyway, so a quiet service serves each alone at
 * once, and a busy one serves as many per transaction as have queued behind the lanes. `serve`
 * settles each write of its batch and never rejects.
 */
export class WriteQueue<T> {
  private readonly waiting: Waiting<T>[] = [];
  private running = 0;
  /** Transactions served, and the writes they carried (their ratio is the mean batch). */
  readonly served = { batches: 0, writes: 0 };

  constructor(
    private readonly lanes: number,
    private readonly max: number,
    private readonly serve: (batch: Waiting<T>[]) => Promise<void>,
  ) {}

  submit(work: T): Promise<unknown> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ work, resolve, reject });
      this.start();
    });
  }

  /** Writes waiting for a lane now. */
  get queued(): number {
    return this.waiting.length;
  }

  private start(): void {
    while (this.running < this.lanes && this.waiting.length) {
      const batch = this.waiting.splice(0, this.max);
      this.running++;
      this.served.batches++;
      this.served.writes += batch.length;
      void this.serve(batch)
        .catch((err: unknown) => {
          for (const w of batch) w.reject(err);
        })
        .finally(() => {
          this.running--;
          this.start();
        });
    }
  }
}
