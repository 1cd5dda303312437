/** Reading the service's Prometheus exposition in tests, and which TCP ports a process listens on. */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Exposition {
  /** Family name -> its TYPE. */
  types: Map<string, string>;
  /** Family name -> its HELP text. */
  help: Map<string, string>;
  samples: Sample[];
}

/** The families the service exposes besides prom-client's default process metrics (all svc_ too). */
export const SERVICE_FAMILIES: Record<string, 'counter' | 'gauge' | 'histogram'> = {
  svc_http_requests_total: 'counter',
  svc_http_request_duration_seconds: 'histogram',
  svc_db_pool_max: 'gauge',
  svc_db_pool_connections: 'gauge',
  svc_db_pool_connections_in_use: 'gauge',
  svc_db_pool_waiting: 'gauge',
  svc_write_batches_total: 'counter',
  svc_write_batched_writes_total: 'counter',
  svc_write_batch_waiting: 'gauge',
  svc_write_batch_reruns_total: 'counter',
  svc_write_shared_statements_total: 'counter',
  svc_write_shared_statement_writes_total: 'counter',
  svc_db_pool_wait_seconds: 'histogram',
  svc_db_statement_errors_total: 'counter',
  svc_db_replica_reads_total: 'counter',
  svc_db_replica_token_wait_seconds_total: 'counter',
  svc_db_unavailable: 'gauge',
  svc_db_unavailable_periods_total: 'counter',
  svc_db_unavailable_seconds_total: 'counter',
  svc_feed_horizon_lag_seconds: 'gauge',
  svc_stream_subscribers: 'gauge',
  svc_stream_frames_sent_total: 'counter',
  svc_stream_subscribers_cut_off_total: 'counter',
  svc_webhook_deliveries_pending: 'gauge',
  svc_webhook_oldest_pending_age_seconds: 'gauge',
  svc_webhook_endpoints_disabled: 'gauge',
  svc_webhook_attempts_total: 'counter',
  svc_permission_cache_lookups_total: 'counter',
  svc_api_key_cache_lookups_total: 'counter',
  svc_rate_limit_refusals_total: 'counter',
  svc_nodejs_eventloop_utilization_ratio: 'gauge',
  // prom-client's defaults the docs and the dashboard rely on
  svc_nodejs_eventloop_lag_p99_seconds: 'gauge',
  svc_process_resident_memory_bytes: 'gauge',
  svc_nodejs_heap_size_used_bytes: 'gauge',
  svc_process_cpu_seconds_total: 'counter',
};

/** Parses the text format (version 0.0.4) as prom-client writes it. */
export function parseExposition(text: string): Exposition {
  const types = new Map<string, string>();
  const help = new Map<string, string>();
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    const meta = /^# (HELP|TYPE) (\S+) (.*)$/.exec(line);
    if (meta) {
      (meta[1] === 'HELP' ? help : types).set(meta[2], meta[3]);
      continue;
    }
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`unreadable exposition line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]] = l[2];
    samples.push({ name: m[1], labels, value: Number(m[3]) });
  }
  return { types, help, samples };
}

/** The samples of one family (a histogram's _bucket, _sum and _count included). */
export function samplesOf(e: Exposition, family: string): Sample[] {
  return e.samples.filter((s) => s.name === family || (e.types.get(family) === 'histogram' && [`${family}_bucket`, `${family}_sum`, `${family}_count`].includes(s.name)));
}

/** The TCP ports `pid` listens on (Linux: its socket inodes in /proc/<pid>/fd, matched in /proc/net/tcp*). */
export function listeningPorts(pid: number): number[] {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) inodes.add(m[1]);
    } catch {
      // closed meanwhile
    }
  }
  const ports = new Set<number>();
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      // st 0A is LISTEN
      if (f.length >= 10 && f[3] === '0A' && inodes.has(f[9])) ports.add(parseInt(f[1].split(':').pop()!, 16));
    }
  }
  return [...ports].sort((a, b) => a - b);
}
