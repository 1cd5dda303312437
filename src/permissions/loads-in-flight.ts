/**
 * Loads in flight, by key: a key asked again while its load runs joins that load instead of
 * starting another. The permission cache's profiles end together (60 s after a burst loaded them),
 * and without this every request in flight at that instant loads the same profiles again.
 */
export class LoadsInFlight<V> {
  private readonly pending = new Map<string, Promise<V>>();

  /**
   * The values of `keys`, in order: those in flight from their loads, the others from one call of
   * `load` with their indexes (its answers in that order). A failed load fails every request that
   * joined it; a key is free to load again once its load has settled.
   */
  get(keys: readonly string[], load: (indexes: number[]) => Promise<V[]>): Promise<V[]> {
    const values: Promise<V>[] = new Array(keys.length);
    const own: number[] = [];
    keys.forEach((key, i) => {
      const pending = this.pending.get(key);
      if (pending) values[i] = pending;
      else own.push(i);
    });
    if (own.length) {
      const loaded = load(own);
      own.forEach((i, j) => {
        const key = keys[i];
        const value = loaded.then((answers) => answers[j]);
        values[i] = value;
        this.pending.set(key, value);
      });
      const settle = () => own.forEach((i) => this.pending.get(keys[i]) === values[i] && this.pending.delete(keys[i]));
      loaded.then(settle, settle);
    }
    return Promise.all(values);
  }

  /** How many keys have a load in flight. */
  get size(): number {
    return this.pending.size;
  }
}
