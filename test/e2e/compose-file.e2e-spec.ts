import { execFileSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { ROOT } from '../helpers/process';

/**
 * docker/compose.yaml as a security review reads it: nothing published beyond the host's loopback
 * unless asked for, secrets only in git-ignored env files, each container given only its own, and
 * the service connecting as its own role, never the superuser. No Docker needed: the file is parsed
 * and its `${VAR:-default}` interpolation applied as compose does.
 */
const DOCKER = join(ROOT, 'docker');
const read = (name: string) => readFileSync(join(DOCKER, name), 'utf8');

interface Service {
  image?: string;
  env_file?: string | (string | { path: string })[];
  environment?: Record<string, string | number> | string[];
  ports?: (string | number | { host_ip?: string; published?: string | number; target: number })[];
  volumes?: string[];
  healthcheck?: { test: string | string[] };
}

/** compose's interpolation of `${VAR}`, `${VAR:-default}` and `${VAR-default}` ( `${VAR:?message}` fails when unset). */
function interpolate(text: string, env: Record<string, string>): string {
  return text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?)([-?])([^}]*))?\}/g, (_, name: string, colon: string, op: string, arg: string) => {
    const value = env[name];
    const missing = value === undefined || (colon === ':' && value === '');
    if (op === '?' && missing) throw new Error(`${name}: ${arg}`);
    if (op === '-' && missing) return arg;
    return value ?? '';
  });
}

const composeWith = (env: Record<string, string> = {}) =>
  (load(interpolate(read('compose.yaml'), env)) as { services: Record<string, Service> }).services;

const envFiles = (s: Service): string[] =>
  s.env_file === undefined ? [] : (Array.isArray(s.env_file) ? s.env_file : [s.env_file]).map((f) => (typeof f === 'string' ? f : f.path));

const environment = (s: Service): Record<string, string> =>
  Array.isArray(s.environment)
    ? Object.fromEntries(s.environment.map((e) => [e.split('=')[0], e.split('=').slice(1).join('=')]))
    : Object.fromEntries(Object.entries(s.environment ?? {}).map(([k, v]) => [k, String(v)]));

/** The host address each published port binds; compose's short syntax without one binds every address. */
function bindings(s: Service): { hostIp: string; target: number }[] {
  return (s.ports ?? []).map((p) => {
    if (typeof p === 'object') return { hostIp: p.host_ip ?? '0.0.0.0', target: p.target };
    const parts = String(p).split('/')[0].split(':');
    const target = Number(parts[parts.length - 1]);
    return { hostIp: parts.length === 3 ? parts[0] : '0.0.0.0', target };
  });
}

/** KEY=value lines of an env file. */
const envFileKeys = (text: string): Record<string, string> =>
  Object.fromEntries(
    text
      .split('\n')
      .filter((l) => /^[A-Z_][A-Z0-9_]*=/.test(l))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );

const SECRETS = ['POSTGRES_PASSWORD', 'GUILDHALL_DB_PASSWORD', 'PGPASSWORD', 'SVC_ADMIN_TOKEN'];

describe('docker/compose.yaml', () => {
  const services = composeWith();

  it('runs postgres and guildhall', () => {
    expect(Object.keys(services).sort()).toEqual(['guildhall', 'postgres']);
  });

  it('publishes every port on the host loopback only, by default', () => {
    const all = Object.values(services).flatMap(bindings);
    expect(all.map((b) => b.target).sort()).toEqual([8787, 9464]);
    for (const b of all) expect(b).toEqual({ hostIp: '127.0.0.1', target: b.target });
    expect(bindings(services.postgres)).toEqual([]);
  });

  it('publishes the API on another address only when GUILDHALL_BIND asks, metrics staying on loopback', () => {
    // An address of the host's LAN, say: the API there, and there only.
    const open = bindings(composeWith({ GUILDHALL_BIND: '192.0.2.10' }).guildhall);
    expect(open).toEqual([
      { hostIp: '192.0.2.10', target: 8787 },
      { hostIp: '127.0.0.1', target: 9464 },
    ]);
  });

  it('connects the service as its own role, never the superuser, with no password in the file', () => {
    const url = new URL(environment(services.guildhall).DATABASE_URL);
    expect(url.username).toBe('guildhall');
    expect(url.password).toBe('');
    expect(url.pathname).toBe('/guildhall');
    // The health check waits for that role's database, which the init script creates.
    expect(JSON.stringify(services.postgres.healthcheck?.test)).toMatch(/-h 127\.0\.0\.1 -U guildhall -d guildhall/);
  });

  it('gives each container its own env file, and sets no secret in the file itself', () => {
    expect(envFiles(services.postgres)).toEqual(['postgres.env']);
    expect(envFiles(services.guildhall)).toEqual(['guildhall.env']);
    for (const s of Object.values(services)) {
      for (const name of SECRETS) expect(Object.keys(environment(s))).not.toContain(name);
    }
    expect(read('compose.yaml')).not.toMatch(/postgres:\/\/postgres|PASSWORD:|jadm_[A-Za-z0-9]/);
  });

  it('mounts the init script that creates the role, executable', () => {
    expect(services.postgres.volumes).toContain('./initdb:/docker-entrypoint-initdb.d:ro');
    // Not executable, the image would source it into its own shell instead of running it.
    expect(statSync(join(DOCKER, 'initdb/10-guildhall-role.sh')).mode & 0o111).toBe(0o111);
  });
});

describe('the env files of docker/compose.yaml', () => {
  it('have examples listing the secrets each container needs, all empty, the superuser password only for postgres', () => {
    const postgres = envFileKeys(read('postgres.env.example'));
    const guildhall = envFileKeys(read('guildhall.env.example'));
    expect(postgres).toEqual({ POSTGRES_PASSWORD: '', GUILDHALL_DB_PASSWORD: '' });
    expect(guildhall).toMatchObject({ SVC_ADMIN_TOKEN: '', PGPASSWORD: '' });
    expect(Object.keys(guildhall)).not.toContain('POSTGRES_PASSWORD');
    expect(Object.keys(guildhall)).not.toContain('DATABASE_URL');
  });

  it('are kept out of git and out of the image build context', () => {
    for (const name of ['postgres.env', 'guildhall.env']) {
      // check-ignore exits 0 for an ignored path, and fails (throws) otherwise.
      expect(() => execFileSync('git', ['check-ignore', '-q', '--no-index', `docker/${name}`], { cwd: ROOT })).not.toThrow();
    }
    const tracked = execFileSync('git', ['ls-files', 'docker'], { cwd: ROOT, encoding: 'utf8' }).split('\n');
    expect(tracked.filter((f) => f.endsWith('.env'))).toEqual([]);
    expect(readFileSync(join(ROOT, '.dockerignore'), 'utf8').split('\n')).toContain('docker/*.env');
  });
});
