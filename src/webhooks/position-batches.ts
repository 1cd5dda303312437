import type { AttemptRecord, PositionBatch } from './webhook-rows';

/**
 * The batches whose last result is among `results`, counted as they go to be written: a batch moves
 * its position in the statement that writes its last result, unless an earlier write lost one of
 * its results (markLost). Results are written one statement after another (ResultRecorder), so a
 * loss is known before the write that would have moved the position.
 */
export function completedBatches(results: readonly AttemptRecord[]): PositionBatch[] {
  const complete: PositionBatch[] = [];
  for (const r of results) {
    const batch = r.fresh?.batch;
    if (!batch) continue;
    batch.recorded++;
    if (movesPosition(batch)) complete.push(batch);
  }
  return complete;
}

/** Every result of the batch is written (or going to be, in this write) and none was lost: its position moves. */
export const movesPosition = (batch: PositionBatch): boolean => batch.recorded === batch.size && !batch.lost;

/** Results that could not be written: their batches' positions stay, and their leases run out. */
export function markLost(results: readonly AttemptRecord[]): void {
  for (const r of results) if (r.fresh) r.fresh.batch.lost = true;
}
