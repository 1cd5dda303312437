import type { AttemptRecord } from './webhook-rows';

/** Errors a rerun of the same statement can get past (deadlock with another worker's batch). */
const RETRYABLE = new Set(['40P01', '40001']);
const WRITE_TRIES = 3;

/**
 * Records finished attempts in batches: the results that come in while one batch is being written
 * make up the next, so under load one statement records many attempts and when idle an attempt
 * waits for no timer. `record` resolves once its batch is written (or given up on and reported):
 * a result not written is never taken for written — its row keeps the claim's lease, and when
 * that runs out the attempt is made again (at-least-once).
 */
export class ResultRecorder {
  private queue: { result: AttemptRecord; done: () => void }[] = [];
  private writing = false;

  constructor(
    private readonly write: (results: AttemptRecord[]) => Promise<void>,
    private readonly onLost: (err: unknown, results: AttemptRecord[]) => void,
    private readonly maxBatch = 200,
  ) {}

  record(result: AttemptRecord): Promise<void> {
    return new Promise((done) => {
      this.queue.push({ result, done });
      if (this.writing) return;
      this.writing = true;
      // After the current I/O phase: the responses read in it are recorded together.
      setImmediate(() => void this.drain());
    });
  }

  private async drain(): Promise<void> {
    while (this.queue.length) {
      const batch = this.queue.splice(0, this.maxBatch);
      const results = batch.map((b) => b.result);
      try {
        await this.writeWithRetries(results);
      } catch (err) {
        this.onLost(err, results);
      }
      for (const b of batch) b.done();
    }
    this.writing = false;
  }

  private async writeWithRetries(results: AttemptRecord[]): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.write(results);
      } catch (err) {
        if (attempt >= WRITE_TRIES || !RETRYABLE.has((err as { code?: string }).code ?? '')) throw err;
      }
    }
  }
}
