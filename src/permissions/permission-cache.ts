import { Injectable, type OnModuleInit } from '@nestjs/common';
import { PgListener } from '../db/pg-listener';
import type { Tx } from '../db/unit-of-work';
import { EventBus } from '../events/event-bus';
import type { GrantProfile } from './grant-profile';

/** Every instance drops a group's cached answers when a change to that group commits. */
export const PERMISSIONS_CHANNEL = 'svc_permissions';
/** SPEC §8: answers live 60 s at most, and so do the profiles they are computed from. */
export const PERMISSION_TTL_MS = 60_000;
/**
 * A memory bound, in weight (an entry's weight is what it holds: a profile's is about a hundredth of
 * its bytes, see profileWeight), so about 100 MB of profiles: past it the oldest groups' entries are
 * dropped first.
 */
const MAX_WEIGHT = 1_000_000;
/** How many groups' invalidations are remembered before starting over (a new epoch). */
const MAX_GENERATIONS = 200_000;

interface Entry<V> {
  value: V;
  expires: number;
  weight: number;
}

const weightOf = (entries: Map<string, Entry<unknown>>): number => {
  let w = 0;
  for (const e of entries.values()) w += e.weight;
  return w;
};

/**
 * The 60-second in-memory cache of grant profiles per (game, group, user): every change that can
 * alter a member's grants invalidates the member's group. Invalidation is per group, on commit:
 * locally at once (so the very next check on this instance is fresh) and on every other instance
 * through a NOTIFY sent just after the commit (Tx.announce: in the transaction it would serialise
 * every join's and leave's commit). Should this process die between its commit and that send, the
 * other instances' entries of the group still end within the 60 s every entry lives. Generic in what it holds only so that its own tests need no profiles.
 */
@Injectable()
export class PermissionCache<V = GrantProfile> implements OnModuleInit {
  private readonly groups = new Map<string, Map<string, Entry<V>>>();
  private readonly generations = new Map<string, number>();
  private size = 0;
  private epoch = 0;
  /** Lookups answered from the cache or not (for the metrics): one per check, batch item or effective set. */
  readonly lookups = { hit: 0, miss: 0 };

  constructor(
    private readonly listener: PgListener,
    private readonly bus: EventBus,
  ) {}

  onModuleInit(): void {
    this.listener.subscribe(
      PERMISSIONS_CHANNEL,
      (payload) => {
        // `<origin> <groupId>`: the instance that committed has already invalidated.
        const [origin, groupId] = payload.split(' ');
        if (origin !== this.bus.instanceId && groupId) this.invalidate(groupId);
      },
      () => this.clear(),
    );
  }

  /** `asked`: how many questions this lookup answers (a batch asks once per member for all its checks of them), counted as hits or misses. */
  get(groupId: string, key: string, now = Date.now(), asked = 1): V | undefined {
    const entry = this.groups.get(groupId)?.get(key);
    if (entry && entry.expires > now) {
      this.lookups.hit += asked;
      return entry.value;
    }
    this.lookups.miss += asked;
    if (!entry) return undefined;
    this.groups.get(groupId)!.delete(key);
    this.size -= entry.weight;
    return undefined;
  }

  /** A token to pass to {@link set}: an answer computed across an invalidation is not stored. */
  generation(groupId: string): string {
    return `${this.epoch}:${this.generations.get(groupId) ?? 0}`;
  }

  /** `until`: when the first grant the entry holds expires (EXTENSIONS X8), from which it is not served. */
  set(groupId: string, key: string, value: V, generation: string, now = Date.now(), until: number | null = null, weight = 1): void {
    if (generation !== this.generation(groupId)) return;
    if (this.size >= MAX_WEIGHT) this.evictOldest();
    let entries = this.groups.get(groupId);
    if (!entries) this.groups.set(groupId, (entries = new Map()));
    this.size += weight - (entries.get(key)?.weight ?? 0);
    entries.set(key, { value, weight, expires: until === null ? now + PERMISSION_TTL_MS : Math.min(now + PERMISSION_TTL_MS, until) });
  }

  invalidate(groupId: string): void {
    if (this.generations.size > MAX_GENERATIONS) this.clear();
    this.generations.set(groupId, (this.generations.get(groupId) ?? 0) + 1);
    const entries = this.groups.get(groupId);
    if (entries) {
      this.size -= weightOf(entries);
      this.groups.delete(groupId);
    }
  }

  clear(): void {
    this.epoch++;
    this.generations.clear();
    this.groups.clear();
    this.size = 0;
  }

  /** Stages the invalidation of a group's entries with the commit of `tx`, here and elsewhere. */
  invalidateOnCommit(tx: Tx, groupId: string): void {
    tx.afterCommit(() => this.invalidate(groupId));
    tx.announce(PERMISSIONS_CHANNEL, `${this.bus.instanceId} ${groupId}`);
  }

  private evictOldest(): void {
    for (const [groupId, entries] of this.groups) {
      this.groups.delete(groupId);
      this.size -= weightOf(entries);
      if (this.size < MAX_WEIGHT * 0.9) return;
    }
  }
}
