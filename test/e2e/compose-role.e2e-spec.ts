import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { MIGRATIONS } from '../../migrations';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../src/db/embedded-postgres';
import { databaseUrl } from '../helpers/test-db';
import { freePort, http, killAll, lines, MAIN_JS, requireBuild, ROOT, serverEnv, spawnNode, startServerProcess, TEST_ADMIN_TOKEN, waitForHealthy } from '../helpers/process';

/**
 * docker/initdb/10-guildhall-role.sh, the script the postgres image runs on an empty volume, run
 * here as the superuser against a real server (psql on PATH), and the BUILT service booted as the
 * role it creates, the way docker/compose.yaml connects: the role's name in DATABASE_URL, its
 * password in PGPASSWORD alone.
 */
const SCRIPT = join(ROOT, 'docker/initdb/10-guildhall-role.sh');
const EXTENSIONS = ['btree_gin', 'pg_trgm', 'unaccent'];

jest.setTimeout(90_000);

interface Names {
  role: string;
  db: string;
  password: string;
}

/** Unique names; the database carries the run's pid so the global teardown drops it if this file cannot. */
function uniqueNames(): Names {
  const runPid = (process.env.GH_TEST_TEMPLATE ?? '').split('_')[2] ?? String(process.pid);
  const id = randomBytes(4).toString('hex');
  return { role: `gh_compose_${id}`, db: `gh_t_${runPid}_compose_${id}`, password: `pw-${randomBytes(12).toString('hex')}` };
}

/** Runs the init script as the superuser of `serverUrl`, with the variables the postgres container has. */
function runInitScript(serverUrl: string, vars: Record<string, string | undefined>): Promise<{ code: number; stderr: string }> {
  const u = new URL(serverUrl);
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    PGHOST: u.hostname,
    PGPORT: u.port || '5432',
    POSTGRES_USER: decodeURIComponent(u.username) || 'postgres',
    ...(u.password ? { PGPASSWORD: decodeURIComponent(u.password) } : {}),
  };
  for (const [k, v] of Object.entries(vars)) if (v !== undefined) env[k] = v;
  return new Promise((res) => {
    execFile('sh', [SCRIPT], { env, timeout: 30_000 }, (err, _stdout, stderr) => {
      res({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stderr });
    });
  });
}

const initVars = (n: Names) => ({ GUILDHALL_DB_USER: n.role, GUILDHALL_DB_NAME: n.db, GUILDHALL_DB_PASSWORD: n.password });

/** The service's URL: the role's name, no password (compose.yaml's shape). */
function roleUrl(serverUrl: string, n: Names): string {
  const u = new URL(databaseUrl(serverUrl, n.db));
  u.username = n.role;
  u.password = '';
  return u.toString();
}

async function asSuperuser<T>(url: string, fn: (c: Client) => Promise<T>): Promise<T> {
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

async function dropAll(serverUrl: string, n: Names): Promise<void> {
  await asSuperuser(serverUrl, async (c) => {
    await c.query(`DROP DATABASE IF EXISTS "${n.db}" WITH (FORCE)`);
    await c.query(`DROP ROLE IF EXISTS "${n.role}"`);
  });
}

/**
 * What the event feed's horizon reads (src/events/feed.repository.ts): the database and transaction
 * id of a superuser's open transaction in another database, both shown to every role by pg_stat_activity.
 */
async function expectSeesOtherTransactions(serverUrl: string, n: Names): Promise<void> {
  const other = new Client({ connectionString: serverUrl });
  await other.connect();
  try {
    await other.query('BEGIN');
    const [{ xid }] = (await other.query('SELECT pg_current_xact_id()::text AS xid')).rows;
    const url = new URL(roleUrl(serverUrl, n));
    url.password = n.password;
    const asRole = new Client({ connectionString: url.toString() });
    await asRole.connect();
    try {
      const seen = (await asRole.query('SELECT datname FROM pg_stat_activity WHERE backend_xid::text = $1', [xid])).rows;
      expect(seen).toEqual([{ datname: new URL(serverUrl).pathname.slice(1) || 'postgres' }]);
    } finally {
      await asRole.end();
    }
  } finally {
    await other.query('ROLLBACK').catch(() => undefined);
    await other.end();
  }
}

describe('the compose database role (docker/initdb)', () => {
  const serverUrl = () => {
    const url = process.env.GH_TEST_SERVER_URL;
    if (!url) throw new Error('the test global setup did not run');
    return url;
  };
  const names = uniqueNames();

  beforeAll(async () => {
    requireBuild();
    const init = await runInitScript(serverUrl(), initVars(names));
    if (init.code !== 0) throw new Error(`the init script failed (${init.code}): ${init.stderr}`);
  });

  afterAll(async () => {
    await killAll();
    await dropAll(serverUrl(), names);
  });

  it('creates a login role that is not superuser and may create no roles or databases', async () => {
    const [role] = await asSuperuser(serverUrl(), async (c) =>
      (await c.query(`SELECT rolcanlogin, rolsuper, rolcreaterole, rolcreatedb, rolreplication, rolbypassrls, rolpassword IS NOT NULL AS has_password
                      FROM pg_authid WHERE rolname = $1`, [names.role])).rows,
    );
    expect(role).toEqual({
      rolcanlogin: true,
      rolsuper: false,
      rolcreaterole: false,
      rolcreatedb: false,
      rolreplication: false,
      rolbypassrls: false,
      has_password: true,
    });
  });

  it('creates the database owned by the role, which no one else may connect to', async () => {
    const [db] = await asSuperuser(serverUrl(), async (c) =>
      (await c.query(
        `SELECT pg_get_userbyid(datdba) AS owner,
                EXISTS (SELECT 1 FROM aclexplode(datacl) a WHERE a.grantee = 0) AS public_granted
         FROM pg_database WHERE datname = $1`,
        [names.db],
      )).rows,
    );
    expect(db).toEqual({ owner: names.role, public_granted: false });
  });

  it('boots the built service as the role: migrations applied, extensions created, healthy, writes succeed', async () => {
    const url = roleUrl(serverUrl(), names);
    const server = await startServerProcess(url, { PGPASSWORD: names.password });
    const health = await waitForHealthy(server.url);
    expect(health.body).toMatchObject({ status: 'ok', db: { ok: true } });
    const game = await http(`${server.url}/v1/admin/games`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
      body: { name: 'Compose role' },
    });
    expect(game.status).toBe(201);

    const dbUrl = databaseUrl(serverUrl(), names.db);
    const facts = await asSuperuser(dbUrl, async (c) => ({
      migrations: Number((await c.query('SELECT count(*) AS n FROM schema_migrations')).rows[0].n),
      tableOwners: (await c.query(`SELECT DISTINCT tableowner FROM pg_tables WHERE schemaname = 'public'`)).rows.map((r) => r.tableowner),
      extensions: (await c.query(`SELECT extname, pg_get_userbyid(extowner) AS owner FROM pg_extension WHERE extname = ANY($1) ORDER BY extname`, [EXTENSIONS])).rows,
      // The service's own connections: every one is the role's, none superuser.
      sessions: (await c.query(
        `SELECT DISTINCT a.usename, r.rolsuper FROM pg_stat_activity a JOIN pg_roles r ON r.oid = a.usesysid
         WHERE a.datname = current_database() AND a.pid <> pg_backend_pid()`,
      )).rows,
    }));
    expect(facts.migrations).toBe(MIGRATIONS.length);
    expect(facts.tableOwners).toEqual([names.role]);
    // Trusted extensions, created by the migrations as the database's owner: no superuser step.
    expect(facts.extensions).toEqual(EXTENSIONS.map((extname) => ({ extname, owner: names.role })));
    expect(facts.sessions).toEqual([{ usename: names.role, rolsuper: false }]);
  });

  it("sees other roles' transactions in other databases, which the event feed's horizon leaves out", async () => {
    await expectSeesOtherTransactions(serverUrl(), names);
  });

  it('refuses to run without GUILDHALL_DB_PASSWORD, and creates nothing', async () => {
    const other = uniqueNames();
    try {
      const init = await runInitScript(serverUrl(), { ...initVars(other), GUILDHALL_DB_PASSWORD: undefined });
      expect(init.code).not.toBe(0);
      expect(init.stderr).toMatch(/GUILDHALL_DB_PASSWORD/);
      const [left] = await asSuperuser(serverUrl(), async (c) =>
        (await c.query(
          `SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $1) AS role, EXISTS (SELECT 1 FROM pg_database WHERE datname = $2) AS db`,
          [other.role, other.db],
        )).rows,
      );
      expect(left).toEqual({ role: false, db: false });
    } finally {
      await dropAll(serverUrl(), other);
    }
  });
});

/**
 * The test server may trust every connection; this one checks passwords (SCRAM, as the postgres
 * image does for connections from other containers), so the password can only be PGPASSWORD.
 */
describe('the compose database role on a server that checks passwords', () => {
  let dir: string;
  let pg: EmbeddedPostgres;
  const names = uniqueNames();

  beforeAll(async () => {
    requireBuild();
    dir = mkdtempSync(join(tmpdir(), 'guildhall-compose-'));
    chmodSync(dir, 0o755);
    pg = await startEmbeddedPostgres({ dataDir: dir, ephemeral: true });
    const init = await runInitScript(pg.url, initVars(names));
    if (init.code !== 0) throw new Error(`the init script failed (${init.code}): ${init.stderr}`);
  });

  afterAll(async () => {
    await killAll();
    await pg?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('connects with the password from PGPASSWORD, DATABASE_URL carrying none', async () => {
    const server = await startServerProcess(roleUrl(pg.url, names), { PGPASSWORD: names.password });
    await waitForHealthy(server.url);
  });

  it("sees other roles' transactions in other databases here too", async () => {
    await expectSeesOtherTransactions(pg.url, names);
  });

  it('a wrong PGPASSWORD stops start-up with one line, the password never echoed', async () => {
    const port = await freePort();
    const proc = spawnNode(MAIN_JS, [], serverEnv(roleUrl(pg.url, names), port, { PGPASSWORD: 'not-the-password' }));
    const exit = await proc.waitForExit(20_000);
    expect(exit.code).toBe(1);
    const errLines = lines(proc.stderr());
    expect(errLines).toHaveLength(1);
    expect(errLines[0]).toMatch(/password authentication failed for user "gh_compose_/);
    expect(proc.stderr()).not.toContain('not-the-password');
  });
});
