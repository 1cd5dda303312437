/**
 * A real Prometheus for the operations suite: Debian's `prometheus` (scripts/prometheus-tools.sh
 * installs it), run as a child process with a configuration, a data folder and a port of its own,
 * never the system service the package may have set up. Stopped, and its folder removed, by stop().
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, sleep, withTimeout } from './process';

export interface PrometheusSample {
  metric: Record<string, string>;
  value: [number, string];
}

export interface RunningPrometheus {
  url: string;
  pid: number;
  /** An instant query through the HTTP API; rejects on an error answer. */
  query(expr: string): Promise<PrometheusSample[]>;
  /** GET /api/v1/<path> (rules, targets...), its `data`. */
  api<T>(path: string): Promise<T>;
  log(): string;
  stop(): Promise<void>;
}

/**
 * Starts Prometheus scraping `targets` (host:port) every `scrapeInterval` (each scrape given as long),
 * with `ruleFiles` loaded and evaluated every `evaluationInterval`.
 */
export function startPrometheus(targets: string[], ruleFiles: string[], scrapeInterval = '1s', evaluationInterval = scrapeInterval): Promise<RunningPrometheus> {
  return startPrometheusJobs({ guildhall: targets }, ruleFiles, scrapeInterval, evaluationInterval);
}

/** The same, with a scrape job per entry of `jobs` (job name to its host:port targets). */
export async function startPrometheusJobs(
  jobs: Record<string, string[]>,
  ruleFiles: string[],
  scrapeInterval = '1s',
  evaluationInterval = scrapeInterval,
): Promise<RunningPrometheus> {
  const dir = mkdtempSync(join(tmpdir(), 'guildhall-prometheus-'));
  const port = await freePort();
  const config = join(dir, 'prometheus.yml');
  writeFileSync(
    config,
    [
      'global:',
      `  scrape_interval: ${scrapeInterval}`,
      `  evaluation_interval: ${evaluationInterval}`,
      'rule_files:',
      ...ruleFiles.map((f) => `  - ${JSON.stringify(f)}`),
      'scrape_configs:',
      ...Object.entries(jobs).flatMap(([job, targets]) => [
        `  - job_name: ${job}`,
        '    static_configs:',
        `      - targets: [${targets.map((t) => JSON.stringify(t)).join(', ')}]`,
      ]),
      '',
    ].join('\n'),
  );
  const child: ChildProcess = spawn(
    'prometheus',
    [
      `--config.file=${config}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--storage.tsdb.retention.time=1h',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  let gone = false;
  void exited.then(() => (gone = true));
  // A test runner that dies must not leave it running.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);

  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    process.removeListener('exit', killOnExit);
    if (!gone) {
      child.kill('SIGTERM');
      await withTimeout(exited, 10_000, () => 'prometheus did not stop').catch(async () => {
        child.kill('SIGKILL');
        await exited;
      });
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const api = async <T>(path: string): Promise<T> => {
    const res = await fetch(`${url}/api/v1/${path}`, { signal: AbortSignal.timeout(10_000) });
    const body = (await res.json()) as { status: string; data: T; error?: string };
    if (body.status !== 'success') throw new Error(`prometheus ${path}: ${body.error}`);
    return body.data;
  };

  const deadline = Date.now() + 30_000;
  for (;;) {
    if (gone) {
      await stop();
      throw new Error(`prometheus exited at start:\n${output.slice(-3000)}`);
    }
    const ready = await fetch(`${url}/-/ready`, { signal: AbortSignal.timeout(1_000) }).then((r) => r.ok, () => false);
    if (ready) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`prometheus not ready within 30 s:\n${output.slice(-3000)}`);
    }
    await sleep(200);
  }
  return {
    url,
    pid: child.pid ?? -1,
    log: () => output,
    stop,
    api,
    query: async (expr) => (await api<{ result: PrometheusSample[] }>(`query?query=${encodeURIComponent(expr)}`)).result,
  };
}

/** Runs promtool with `args` in `cwd`; resolves with its exit code and output (never rejects). */
export function promtool(args: string[], cwd: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile('promtool', args, { cwd, timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, output: `${stdout}${stderr}` });
    });
  });
}
