import type { EntityManager } from 'typeorm';

/** A write's first statement, which the writes of a batch may send as one (UnitOfWork.runShared). */
export interface SharedStatement<Req, Res> {
  /** One write's statement, as it runs alone. */
  one(m: EntityManager, request: Req): Promise<Res>;
  /** Several writes' in one statement, answered in their order. No two of them name a key in common, but keys named shared. */
  many(m: EntityManager, requests: readonly Req[]): Promise<Res[]>;
}

/** The statement of a write that has none to share: it shares only the batch's transaction (UnitOfWork.runBatched). */
export const NO_STATEMENT: SharedStatement<undefined, undefined> = {
  one: () => Promise.resolve(undefined),
  many: (_m, requests) => Promise.resolve(requests.map(() => undefined)),
};

/** The key that stands for every key. */
const EVERY = '*';

/** The mark of a key named shared (sharedKey). */
const SHARED = '~';

/**
 * `key` named shared: writes that name a key only so may share a run; one naming it plainly
 * shares a run with none of them.
 */
export const sharedKey = (key: string): string => `${SHARED}${key}`;

/** The keys of a write that names every key: it runs in a run of its own, in its place. */
export const EVERY_KEY: readonly string[] = Object.freeze([EVERY]);

/**
 * A write that starts with a shared statement: `then` is the rest of it, given that statement's
 * answer, in its transaction (`Tx`: the unit of work's).
 */
export interface SharedWrite<Req = unknown, Res = unknown, T = unknown, Tx = unknown> {
  statement: SharedStatement<Req, Res>;
  request: Req;
  /**
   * What two writes of one shared statement may not both name (a group, a player): each row of it
   * is read in the statement's one snapshot, before the others' writes.
   */
  keys: readonly string[];
  /**
   * For keys named from what this process saw (a group's cap or owner), which may have changed
   * since: whether the write's answer shows them still right. When it does not, and the write
   * shared its run, the run failed (sharedAnswers) and its batch runs each write again alone.
   */
  keysHeld?(answer: Res): boolean;
  then(tx: Tx, answer: Res): Promise<T>;
}

/** A run's write whose answer showed it named its keys wrongly (SharedWrite.keysHeld). */
export class KeysNotHeld extends Error {}

/**
 * The batch cut, in order, into runs of writes that name no key in common (but keys all of them
 * name shared, sharedKey): a write naming a key that the run holds already starts the next. Each
 * run's statements go as one, then each write's rest in order; the runs one after another. Writes
 * that share no key touch nothing the others read, so that is the batch's writes run alone in its
 * order.
 */
export function waves<W extends Pick<SharedWrite, 'keys'>>(writes: readonly W[]): W[][] {
  const runs: W[][] = [];
  // Each key the run holds, and whether a write of it names it plainly.
  let held = new Map<string, boolean>();
  const named = (k: string) => (k.startsWith(SHARED) ? { key: k.slice(SHARED.length), plainly: false } : { key: k, plainly: true });
  const clashes = (k: string) => {
    const { key, plainly } = named(k);
    return held.has(key) && (plainly || held.get(key) === true);
  };
  for (const write of writes) {
    if (!runs.length || held.has(EVERY) || write.keys.includes(EVERY) || write.keys.some(clashes)) {
      runs.push([]);
      held = new Map();
    }
    runs[runs.length - 1].push(write);
    for (const k of write.keys) {
      const { key, plainly } = named(k);
      held.set(key, plainly || held.get(key) === true);
    }
  }
  return runs;
}

/** Shared statements sent, and the writes they carried. */
export interface SharedCount {
  statements: number;
  writes: number;
}

/**
 * Each write's answer of its statement: one statement a kind, `one`'s for a write alone of its kind
 * (not counted in `count`). Throws KeysNotHeld when the run has more than one write and one's
 * answer shows its keys named wrongly.
 */
export async function sharedAnswers(m: EntityManager, wave: readonly SharedWrite[], count: SharedCount): Promise<Map<SharedWrite, unknown>> {
  const kinds = new Map<SharedStatement<unknown, unknown>, SharedWrite[]>();
  for (const w of wave) kinds.set(w.statement, [...(kinds.get(w.statement) ?? []), w]);
  const answers = new Map<SharedWrite, unknown>();
  for (const [statement, writes] of kinds) {
    const got = writes.length === 1 ? [await statement.one(m, writes[0].request)] : await statement.many(m, writes.map((w) => w.request));
    writes.forEach((w, i) => answers.set(w, got[i]));
    if (writes.length > 1) {
      count.statements++;
      count.writes += writes.length;
    }
  }
  if (wave.length > 1 && wave.some((w) => w.keysHeld?.(answers.get(w)) === false)) throw new KeysNotHeld('a write of the run named its keys from what has changed since');
  return answers;
}
