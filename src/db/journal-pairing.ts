import { journalKey, uuidv7 } from '../common/ids';

interface StagedAudit {
  gameId: string;
  groupId?: string | null;
  action: string;
}

interface StagedEvent {
  id: string;
  gameId: string;
  groupId?: string | null;
  type: string;
}

/**
 * The ids of a transaction's audit entries (docs/design/write-path.md, the journal's pairing). An
 * audit entry takes the journal key of an event staged in the same transaction for the same game
 * and group that no other entry took: the two are one change, and share one journal row and one
 * key. An event of the entry's own name is taken first, then the first one left, in staging order;
 * an entry with none gets an id of its own. Every change of a transaction has the same time
 * (`created_at` is the transaction's), so which event an entry shares a row with changes nothing
 * any route answers; taking the same name first keeps a row readable as one fact.
 */
export function auditIds(audit: readonly StagedAudit[], events: readonly StagedEvent[]): string[] {
  const taken = new Set<number>();
  const scoped = (a: StagedAudit, e: StagedEvent, n: number) => !taken.has(n) && e.gameId === a.gameId && (e.groupId ?? null) === (a.groupId ?? null);
  const take = (i: number) => {
    if (i < 0) return undefined;
    taken.add(i);
    return journalKey(events[i].id);
  };
  const named = audit.map((a) => take(events.findIndex((e, n) => scoped(a, e, n) && e.type === a.action)));
  return audit.map((a, i) => named[i] ?? take(events.findIndex((e, n) => scoped(a, e, n))) ?? uuidv7());
}
