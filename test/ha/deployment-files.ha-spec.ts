import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { ROOT } from '../helpers/process';
import { promtool } from '../helpers/prometheus';

/**
 * The deployment's files as an operator gets them, without running anything: deploy/ha names no
 * host of its own, `render` from the example cluster file keeps every secret in files of mode 0600,
 * `info` says where the secrets are and prints none, and the HA alert rules and the rendered scrape
 * configuration pass promtool (the rules' unit tests too).
 */
const HA = join(ROOT, 'deploy/ha');
const PROMETHEUS_DIR = join(ROOT, 'deploy/prometheus');

const files = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)]));

const haSh = (args: string[]) =>
  new Promise<string>((resolve, reject) =>
    execFile(join(HA, 'ha.sh'), args, (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout))),
  );

describe('the HA deployment files', () => {
  let out: string;
  beforeAll(async () => {
    out = join(mkdtempSync(join(tmpdir(), 'guildhall-ha-render-')), 'conf');
    await haSh(['render', '--cluster', join(HA, 'cluster.example.env'), '--out', out]);
  });
  afterAll(() => rmSync(join(out, '..'), { recursive: true, force: true }));

  it('name no loopback address: every host is a variable of the cluster file', () => {
    expect(files(HA).filter((f) => readFileSync(f, 'utf8').includes('127.0.0.1')).map((f) => relative(ROOT, f))).toEqual([]);
  });

  it('keep every secret in files of mode 0600, and info prints where they are, not what they are', async () => {
    const secrets = readFileSync(join(out, 'secrets.env'), 'utf8')
      .split('\n')
      .filter((l) => l.includes('='))
      .map((l) => l.slice(l.indexOf('=') + 1));
    expect(secrets).toHaveLength(5);
    const holding = files(out).filter((f) => secrets.some((s) => readFileSync(f, 'utf8').includes(s)));
    expect(holding.map((f) => relative(out, f)).sort()).toEqual(
      ['guildhall1/guildhall.env', 'guildhall2/guildhall.env', 'node1/patroni.yml', 'node2/patroni.yml', 'node3/patroni.yml', 'patronictl.yml', 'secrets.env'].sort(),
    );
    expect(holding.filter((f) => (statSync(f).mode & 0o777) !== 0o600)).toEqual([]);
    const info = await haSh(['info', '--dir', out]);
    expect(secrets.filter((s) => info.includes(s))).toEqual([]);
    expect(info).toContain(`SECRETS_FILE=${join(out, 'secrets.env')}`);
  });

  it('pass promtool: the HA alert rules, their unit tests, and the rendered scrape configuration', async () => {
    for (const [args, cwd] of [
      [['check', 'rules', 'ha-alerts.yml'], PROMETHEUS_DIR],
      [['test', 'rules', 'ha-alerts.test.yml'], PROMETHEUS_DIR],
      [['check', 'config', 'prometheus-ha.yml'], out],
    ] as const) {
      const r = await promtool([...args], cwd);
      expect({ args, code: r.code, output: r.code ? r.output : '' }).toEqual({ args, code: 0, output: '' });
    }
  });
});
