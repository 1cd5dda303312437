import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, sleep } from '../../helpers/process';
import { startPrometheusJobs, type PrometheusSample, type RunningPrometheus } from '../../helpers/prometheus';

export const HA_RULES = join(ROOT, 'deploy/prometheus/ha-alerts.yml');

export interface AlertWatch {
  prometheus: RunningPrometheus;
  /** Alert names that fired at any rule evaluation between `from` and `to` (ms since the epoch). */
  firedBetween(from: number, to: number): Promise<string[]>;
  /** Polls until each of `names` has fired since `from` (bounded); answers those that have not. */
  waitFor(names: string[], from: number, timeoutMs: number): Promise<string[]>;
  stop(): Promise<void>;
}

/**
 * A real Prometheus scraping the cluster four times a second, with a copy of the HA rules whose
 * `for:` are all 0s: a rule fires at the first evaluation its expression holds, so a fault of a few
 * seconds shows. The scrape is that fast because a failover after a SIGKILL leaves no primary for
 * well under a second at times (the old leader's Patroni gives up its key at its next loop, a standby
 * promotes at once): at one scrape a second one run in a few saw no window where every node's latest
 * sample said "not primary", and PatroniNoLeader never fired. The rules' expressions and thresholds are the shipped ones. What fired is read
 * back from the ALERTS series over the fault's window, so a firing shorter than a poll still counts.
 */
export async function watchAlerts(targets: Record<string, string[]>): Promise<AlertWatch> {
  const dir = mkdtempSync(join(tmpdir(), 'guildhall-ha-rules-'));
  const rules = join(dir, 'ha-alerts.yml');
  writeFileSync(rules, readFileSync(HA_RULES, 'utf8').replace(/^(\s+)for: \S+$/gm, '$1for: 0s'));
  const prometheus = await startPrometheusJobs(targets, [rules], '250ms');
  const firedBetween = async (from: number, to: number) => {
    const window = Math.max(1, Math.ceil((to - from) / 1000));
    const expr = `count_over_time(ALERTS{alertstate="firing"}[${window}s])`;
    const { result } = await prometheus.api<{ result: PrometheusSample[] }>(`query?query=${encodeURIComponent(expr)}&time=${to / 1000}`);
    return [...new Set(result.map((r) => r.metric.alertname))].sort();
  };
  return {
    prometheus,
    firedBetween,
    waitFor: async (names, from, timeoutMs) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const fired = await firedBetween(from, Date.now()).catch(() => [] as string[]);
        const missing = names.filter((n) => !fired.includes(n));
        if (!missing.length || Date.now() > deadline) return missing;
        await sleep(1_000);
      }
    },
    stop: async () => {
      await prometheus.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
