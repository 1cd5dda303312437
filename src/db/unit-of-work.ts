import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { AuditAction } from '../audit/audit-actions';
import { eventId, journalKey, uuidv7 } from '../common/ids';
import type { EventInput, SvcEvent } from '../events/event';
import { EventBus, type NotifiedPlayer } from '../events/event-bus';
import { EVENTS_CHANNEL } from '../events/event-notification';
import type { Settings } from '../config/settings';
import { SETTINGS } from '../config/settings.module';
import { MetricsRegistry } from '../observability/metrics/metrics-registry';
import type { Tracing } from '../observability/tracing/tracing';
import { TRACING } from '../observability/tracing/tracing.module';
import { formatSignal, NOTIFICATIONS_CHANNEL } from '../notifications/notification-channel';
import type { NotificationKind } from '../notifications/notification-kinds';
import { DELIVERIES_CHANNEL } from '../webhooks/delivery-channel';
import { CommitAnnouncer } from './commit-announcer';
import { flushStatement } from './flush-sql';
import { storedEventBody } from './event-envelope';
import { journalNames, UNINDEXED_WORDS, type AuditPart } from './journal-names';
import { auditIds } from './journal-pairing';
import { unitOfWorkClient } from './sql';
import { transaction } from './transaction';
import { WriteQueue, type Waiting } from './write-queue';
import { EVERY_KEY, NO_STATEMENT, sharedAnswers, waves, type SharedWrite } from './shared-write';
import { registerWriteBatchMetrics } from './write-batch-metrics';

export interface AuditInput {
  gameId: string;
  groupId?: string | null;
  /** Internal user id of the actor when known. */
  actorUserId?: string | null;
  action: AuditAction;
  targetId?: string | null;
  payload?: Record<string, unknown>;
}

/**
 * A player's notification (EXTENSIONS X9), staged like an event. The recipient is named by internal
 * id, or by external id when the write knows only that (a targeted invitation): that one is looked
 * up by the flush, and a user the game has never seen gets none (nothing would list it). None is
 * written when the actor is the recipient.
 */
export type NotificationInput = {
  gameId: string;
  kind: NotificationKind;
  groupId?: string | null;
  /** Internal id of who made the change, when the call names them. */
  actorUserId?: string | null;
  data: Record<string, unknown>;
} & ({ svcUserId: string } | { externalUserId: string });

/** A staged notification with its id: uuidv7, made when staged, as an event's is. */
export type StagedNotification = NotificationInput & { id: string };

/**
 * What a mutation sees inside its transaction: the entity manager to query with, and the means
 * to stage its audit entries, events, cross-instance notifications and after-commit work.
 */
export class Tx {
  readonly auditEntries: AuditInput[] = [];
  readonly events: SvcEvent[] = [];
  readonly notifications: { channel: string; payload: string }[] = [];
  readonly announcements: { channel: string; payload: string }[] = [];
  readonly playerNotifications: StagedNotification[] = [];
  readonly afterCommitHooks: (() => void)[] = [];

  constructor(readonly manager: EntityManager) {}

  audit(entry: AuditInput): void {
    this.auditEntries.push(entry);
  }

  /** Stages an event; it reaches subscribers only after commit. Returns the body as published. */
  emit(input: EventInput): SvcEvent {
    // One instant for both: the event's instant is then its id's millisecond (see eventBodySql).
    const now = Date.now();
    const event: SvcEvent = {
      id: eventId(now),
      type: input.type,
      gameId: input.gameId,
      ...(input.groupId ? { groupId: input.groupId } : {}),
      occurredAt: new Date(now).toISOString(),
      ...input.data,
    };
    this.events.push(event);
    return event;
  }

  /**
   * Stages a notification for a player (EXTENSIONS X9): written by the flush, in the transaction;
   * the player's streams on every instance are woken once it has committed (NOTIFICATIONS_CHANNEL).
   */
  notifyPlayer(input: NotificationInput): void {
    this.playerNotifications.push({ ...input, id: uuidv7() });
  }

  /** A Postgres NOTIFY sent with the commit, heard by every instance (this one included). */
  notify(channel: string, payload: string): void {
    this.notifications.push({ channel, payload });
  }

  /**
   * The same, sent once the transaction has committed, gathered with other commits' (CommitAnnouncer):
   * for a signal whose loss, if this process dies before it is sent, costs only latency or a cache
   * entry's remaining life, never a wrong answer past it.
   */
  announce(channel: string, payload: string): void {
    this.announcements.push({ channel, payload });
  }

  /** Work for this process once the transaction has committed (local cache invalidation...). */
  afterCommit(hook: () => void): void {
    this.afterCommitHooks.push(hook);
  }
}

const SERIALIZATION_FAILURE = '40001';
const DEADLOCK_DETECTED = '40P01';
const UNIQUE_VIOLATION = '23505';
const MAX_ATTEMPTS = 4;

/**
 * Whether running the whole change again can get past `err`: a serialization failure, a deadlock,
 * or a member row another transaction inserted after this one's snapshot (an activation inserts
 * plainly when its snapshot holds no row: members.repository.ts, activation), which the next run
 * finds and answers from.
 */
export function isRetryableConflict(err: unknown): boolean {
  const { code, constraint } = err as { code?: unknown; constraint?: unknown };
  return code === SERIALIZATION_FAILURE || code === DEADLOCK_DETECTED || (code === UNIQUE_VIOLATION && constraint === 'members_group_id_user_id_key');
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A change run alone: its shared statement's `one`, then its rest. */
const aloneWork =
  <T>(write: SharedWrite<unknown, unknown, T, Tx>) =>
  async (tx: Tx): Promise<T> =>
    write.then(tx, await write.statement.one(tx.manager, write.request));

/**
 * Whether a batch's transaction, failed with `err` once its COMMIT may have gone, is known not to
 * have committed: PostgreSQL answered an error, so the COMMIT riding behind the failed statement was
 * skipped or itself refused. A connection lost (no SQLSTATE, or class 08) or a session ended by the
 * server (57P01...) leaves the outcome unknown.
 */
export function rolledBack(err: unknown): boolean {
  const { code } = err as { code?: unknown };
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && !/^(08|57P)/.test(code);
}

/**
 * Runs every mutation: one transaction that makes the change, writes its audit entries and stages
 * its events in the outbox (SPEC §1.6). Serialization failures, deadlocks and a member row inserted
 * meanwhile (isRetryableConflict) are retried, so the work function must keep its effects inside
 * the transaction.
 *
 * With WRITE_BATCH_MAX above 1 (and traces off), the changes run through runShared share
 * transactions while they wait (WriteQueue, on WRITE_BATCH_LANES transactions at once), and their
 * first statements: the batch is cut into runs of writes that name no group or player in common
 * (but member writes of one group, which name it shared: see memberWriteLookups)
 * (waves), each run's statements go as one statement of each kind, and each write's rest follows,
 * in order, in the one transaction, with one flush and one COMMIT for all. That is the batch's
 * writes run one after another. Any error before the COMMIT runs each again alone, so each caller
 * gets the answer it would have got alone; a COMMIT whose outcome is unknown answers each with its
 * error, as one change's does.
 */
@Injectable()
export class UnitOfWork {
  private readonly logger = new Logger(UnitOfWork.name);
  private readonly queue: WriteQueue<SharedWrite<unknown, unknown, unknown, Tx>> | null;
  /** Batches of more than one change run again one by one after an error, and the shared statements sent. */
  private readonly batches = { reruns: 0, shared: { statements: 0, writes: 0 } };

  constructor(
    private readonly dataSource: DataSource,
    private readonly bus: EventBus,
    private readonly announcer: CommitAnnouncer,
    @Inject(UNINDEXED_WORDS) private readonly unindexed: ReadonlySet<number>,
    @Inject(SETTINGS) settings: Settings,
    @Optional() @Inject(MetricsRegistry) metrics: MetricsRegistry | null = null,
    @Optional() @Inject(TRACING) private readonly tracing: Tracing | null = null,
  ) {
    // A batch's changes would share one request's trace context: with traces on, each runs alone.
    this.queue = settings.writeBatchMax > 1 && !tracing ? new WriteQueue(settings.writeBatchLanes, settings.writeBatchMax, (b) => this.serve(b)) : null;
    if (metrics) registerWriteBatchMetrics(metrics, this.queue, this.batches);
  }

  async run<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    return this.alone(work);
  }

  /** A change that starts with a statement the changes waiting with it may share (see above). */
  async runShared<Req, Res, T>(write: SharedWrite<Req, Res, T, Tx>): Promise<T> {
    if (this.queue) return (await this.queue.submit(write as SharedWrite<unknown, unknown, unknown, Tx>)) as T;
    return this.alone(aloneWork(write));
  }

  /**
   * A change with no statement to share that may share a batch's transaction, in its place among
   * the batch's writes (a run of its own: see waves), as joins and leaves do. For a change whose
   * work reads and writes through `tx` alone (a second connection would not see the batch's writes
   * before it, and could wait on its locks) and sets nothing that outlives it in the transaction. A
   * refusal or an error rolls the batch back and runs each of its writes again alone, as for joins.
   */
  async runBatched<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    return this.runShared<undefined, undefined, T>({ statement: NO_STATEMENT, request: undefined, keys: EVERY_KEY, then: (tx) => work(tx) });
  }

  private async alone<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      let tx: Tx | undefined;
      try {
        const result = await transaction(this.dataSource, async (manager) => {
          tx = new Tx(manager);
          const value = await work(tx);
          const flushed = await flush([tx], this.tracing, this.unindexed);
          return { value, flushed };
        }, { unitOfWork: true });
        this.committed([tx!], result.flushed);
        return result.value;
      } catch (err) {
        if (!isRetryableConflict(err) || attempt >= MAX_ATTEMPTS) throw err;
        await sleep(5 * 2 ** attempt + Math.random() * 10);
      }
    }
  }

  private async serve(batch: Waiting<SharedWrite<unknown, unknown, unknown, Tx>>[]): Promise<void> {
    const each = () => Promise.all(batch.map((w) => this.alone(aloneWork(w.work)).then(w.resolve, w.reject)));
    if (batch.length === 1) return void (await each());
    const txs: Tx[] = [];
    const values: unknown[] = [];
    let committing = false;
    let flushed: Flushed;
    try {
      flushed = await transaction(this.dataSource, async (manager) => {
        for (const wave of waves(batch.map((w) => w.work))) {
          const answers = await sharedAnswers(manager, wave, this.batches.shared);
          for (const write of wave) {
            const tx = new Tx(manager);
            values.push(await write.then(tx, answers.get(write)));
            txs.push(tx);
          }
        }
        committing = true;
        return flush(txs, this.tracing, this.unindexed);
      }, { unitOfWork: true });
    } catch (err) {
      if (committing && !rolledBack(err)) {
        for (const w of batch) w.reject(err);
        return;
      }
      this.batches.reruns++;
      return void (await each());
    }
    this.committed(txs, flushed);
    batch.forEach((w, i) => w.resolve(values[i]));
  }

  private committed(txs: Tx[], flushed: Flushed): void {
    for (const hook of txs.flatMap((tx) => tx.afterCommitHooks)) {
      try {
        hook();
      } catch (err) {
        this.logger.error({ err }, 'after-commit hook failed');
      }
    }
    const { notifiedPlayers, deliveriesQueued } = flushed;
    if (notifiedPlayers.length) {
      this.bus.publishNotified(notifiedPlayers);
      this.announcer.announce(NOTIFICATIONS_CHANNEL, notifiedPlayers.map((p) => formatSignal({ t: 'new', g: p.gameId, u: p.svcUserId })));
    }
    if (deliveriesQueued) this.announcer.announce(DELIVERIES_CHANNEL, ['']);
    for (const a of txs.flatMap((tx) => tx.announcements)) this.announcer.announce(a.channel, [a.payload]);
    const events = txs.flatMap((tx) => tx.events);
    if (!events.length) return;
    this.announcer.announce(EVENTS_CHANNEL, new Set(events.map((e) => e.gameId)));
    // The streams' reads of the feed that this wakes belong to no request's trace.
    if (this.tracing) this.tracing.detached(() => this.bus.publish(events));
    else this.bus.publish(events);
  }
}

/** What the flush learnt: the players it wrote a notification for, and whether a webhook endpoint takes one of the events (the workers are woken). */
interface Flushed {
  notifiedPlayers: NotifiedPlayer[];
  deliveriesQueued: boolean;
}

/**
 * Writes, in one round trip that also commits: each change once, as a journal row that is its audit
 * entry and its event (paired by auditIds; docs/design/write-path.md), in the order staged, its
 * names without the words `unindexed` lists (journal-names.ts); the players' notifications
 * (EXTENSIONS X9), each recipient named by external id looked up here; and the NOTIFYs staged with
 * tx.notify, which Postgres sends only on commit. It writes no webhook delivery: an event is queued
 * for each endpoint by its place after the endpoint's position (PositionsRepository), and the flush
 * only reads whether an enabled endpoint of the game takes one of its events, to wake the workers.
 * The wake-ups for the events, the deliveries and the players notified are announced once it has
 * committed (CommitAnnouncer). The journal and notification rows' feed position (era, xid, seq)
 * comes from their column defaults. With traces on, the events keep the
 * trace context of the request that wrote them, which their webhook attempts link to.
 */
async function flush(txs: readonly Tx[], tracing: Tracing | null, unindexed: ReadonlySet<number>): Promise<Flushed> {
  const part = (a: AuditInput | undefined): AuditPart | null =>
    a ? { actorUserId: a.actorUserId ?? null, targetId: a.targetId ?? null, payload: a.payload ?? {} } : null;
  const audit: Record<string, unknown>[] = [];
  const events: Record<string, unknown>[] = [];
  let auditOnly = false;
  for (const tx of txs) {
    // Each change's entries pair with its own events: a batch's changes are as many transactions' worth.
    const auditIdList = auditIds(tx.auditEntries, tx.events);
    // An entry shares its row with the event whose key it took: the row's names are both parts'.
    const paired = new Map(auditIdList.map((id, i) => [id, tx.auditEntries[i]]));
    const eventKeys = new Set(tx.events.map((e) => journalKey(e.id)));
    auditOnly ||= auditIdList.some((id) => !eventKeys.has(id));
    tx.auditEntries.forEach((a, i) =>
      audit.push({
        id: auditIdList[i],
        game_id: a.gameId,
        group_id: a.groupId ?? null,
        actor_user_id: a.actorUserId ?? null,
        action: a.action,
        target_id: a.targetId ?? null,
        payload: a.payload ?? {},
        names: eventKeys.has(auditIdList[i]) ? null : journalNames(part(a), null, unindexed),
      }),
    );
    for (const e of tx.events) {
      const body = storedEventBody(e);
      events.push({
        id: e.id,
        n: events.length,
        game_id: e.gameId,
        group_id: e.groupId ?? null,
        type: e.type,
        body,
        names: journalNames(part(paired.get(journalKey(e.id))), body, unindexed),
      });
    }
  }
  const inbox = txs.flatMap((tx) =>
    tx.playerNotifications.map((n) => ({
      id: n.id,
      game_id: n.gameId,
      user_id: 'svcUserId' in n ? n.svcUserId : null,
      external_user_id: 'externalUserId' in n ? n.externalUserId : null,
      kind: n.kind,
      group_id: n.groupId ?? null,
      actor_user_id: n.actorUserId ?? null,
      data: n.data,
    })),
  );
  const notifications = txs.flatMap((tx) => tx.notifications);
  const flushed: Flushed = { notifiedPlayers: [], deliveriesQueued: false };
  if (!audit.length && !events.length && !notifications.length && !inbox.length) return flushed;
  // Traces on, a change runs alone (UnitOfWork): its events keep its request's context.
  const trace = tracing && events.length ? tracing.carrier() : null;
  // The events go in the order staged (`n`): each row takes its seq, the feed's order within the
  // transaction, as it is inserted. The flush is the transaction's last statement: its batch carries the COMMIT.
  const { manager } = txs[0];
  unitOfWorkClient(manager)?.commitWithNext();
  const statement = flushStatement({
    audit: audit.length ? JSON.stringify(audit) : null,
    events: events.length ? JSON.stringify(events) : null,
    trace: trace && JSON.stringify(trace),
    notifies: notifications.length ? JSON.stringify(notifications) : null,
    inbox: inbox.length ? JSON.stringify(inbox) : null,
    auditOnly,
  });
  const rows: { g: string | null; u: string | null; d: boolean }[] = await manager.query(statement.text, statement.params);
  // The recipients, resolved in the statement: this instance drops what it cached of them on commit,
  // before its own announcement comes back (a player's next read here sees the new notification).
  for (const r of rows) {
    if (r.g && r.u) flushed.notifiedPlayers.push({ gameId: r.g, svcUserId: r.u });
    if (r.d) flushed.deliveriesQueued = true;
  }
  return flushed;
}
