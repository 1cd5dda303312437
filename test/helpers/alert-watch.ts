/**
 * Watches a Prometheus's alerts (GET /api/v1/alerts, every 200 ms) and keeps each one's episodes:
 * when it was first seen pending, first seen firing, and when it left the list (resolved). The same
 * alert (name and labels) may come back later: that is a new episode.
 */
import { sleep } from './process';
import type { RunningPrometheus } from './prometheus';

export interface Episode {
  name: string;
  labels: Record<string, string>;
  pending?: number;
  firing?: number;
  gone?: number;
}

interface ActiveAlert {
  labels: Record<string, string>;
  state: 'pending' | 'firing';
}

const POLL_MS = 200;

const keyOf = (labels: Record<string, string>) => JSON.stringify(Object.entries(labels).sort(([a], [b]) => a.localeCompare(b)));

export class AlertWatch {
  readonly episodes: Episode[] = [];
  private readonly open = new Map<string, Episode>();
  private running = true;
  private failure: Error | null = null;
  private readonly loop: Promise<void>;

  constructor(private readonly prometheus: RunningPrometheus) {
    this.loop = this.poll();
  }

  /** The alerts active now, as `name{labels} state`. */
  active(): string[] {
    return [...this.open.values()].map((e) => `${alertTitle(e)} ${e.firing ? 'firing' : 'pending'}`);
  }

  /**
   * The first episode of `name` (with at least `labels`) that began at or after `since`, once it has
   * reached `stage`; rejects after `timeoutMs`, naming what is active.
   */
  async reach(name: string, labels: Record<string, string>, since: number, stage: 'firing' | 'gone', timeoutMs: number): Promise<Episode> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (this.failure) throw this.failure;
      const episode = this.episodes.find((e) => e.name === name && (e.pending ?? e.firing)! >= since && Object.entries(labels).every(([k, v]) => e.labels[k] === v));
      if (episode?.[stage] !== undefined) return episode;
      if (Date.now() > deadline) {
        throw new Error(`${name}${JSON.stringify(labels)} did not reach ${stage} within ${timeoutMs} ms (${episode ? JSON.stringify(episode) : 'never active'}); active: ${this.active().join(', ') || 'none'}`);
      }
      await sleep(POLL_MS);
    }
  }

  /** Waits until `episode` is gone; rejects after `timeoutMs`. */
  async ended(episode: Episode, timeoutMs: number): Promise<void> {
    for (const deadline = Date.now() + timeoutMs; episode.gone === undefined; await sleep(POLL_MS)) {
      if (this.failure) throw this.failure;
      if (Date.now() > deadline) throw new Error(`${alertTitle(episode)} still active after ${timeoutMs} ms`);
    }
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }

  private async poll(): Promise<void> {
    while (this.running) {
      try {
        const { alerts } = await this.prometheus.api<{ alerts: ActiveAlert[] }>('alerts');
        const now = Date.now();
        const seen = new Set<string>();
        for (const a of alerts) {
          const { alertname, ...labels } = a.labels;
          const key = keyOf(a.labels);
          seen.add(key);
          let episode = this.open.get(key);
          if (!episode) {
            episode = { name: alertname, labels };
            this.episodes.push(episode);
            this.open.set(key, episode);
          }
          if (a.state === 'pending') episode.pending ??= now;
          if (a.state === 'firing') episode.firing ??= now;
        }
        for (const [key, episode] of this.open) {
          if (seen.has(key)) continue;
          episode.gone = now;
          this.open.delete(key);
        }
      } catch (err) {
        this.failure = err as Error;
        return;
      }
      await sleep(POLL_MS);
    }
  }
}

/** An alert by its name and the labels that tell its episodes apart (severity and job left out). */
export const alertTitle = (e: Pick<Episode, 'name' | 'labels'>): string => {
  const labels = Object.entries(e.labels)
    .filter(([k]) => k !== 'severity' && k !== 'job')
    .map(([k, v]) => `${k}="${v}"`)
    .join(',');
  return labels ? `${e.name}{${labels}}` : e.name;
};
