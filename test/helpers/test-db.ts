import { randomBytes } from 'node:crypto';
import { Client } from 'pg';

/** The URL of another database on the same server. */
export function databaseUrl(serverUrl: string, database: string): string {
  const u = new URL(serverUrl);
  u.pathname = `/${database}`;
  return u.toString();
}

export interface TestDatabase {
  url: string;
  name: string;
  /** A plain client on this database, for arranging and inspecting rows. */
  query<R = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<R[]>;
  /**
   * A new database holding what this one holds now, as a backup taken now would restore it. Close
   * every app on this one first: a copy needs no one else connected.
   */
  copy(): Promise<TestDatabase>;
  drop(): Promise<void>;
}

/** A fresh, migrated database cloned from the run's template. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const serverUrl = process.env.GH_TEST_SERVER_URL;
  const template = process.env.GH_TEST_TEMPLATE;
  if (!serverUrl || !template) throw new Error('the test global setup did not run');
  // The run's pid is in the template name; clones carry it too, so teardown finds them.
  const runPid = template.split('_')[2];
  return cloneDatabase(serverUrl, template, runPid);
}

async function cloneDatabase(serverUrl: string, template: string, runPid: string): Promise<TestDatabase> {
  const name = `gh_t_${runPid}_${randomBytes(5).toString('hex')}`;
  await createDatabase(serverUrl, `${name} TEMPLATE ${template}`);
  return openDatabase(serverUrl, name, runPid);
}

/** A brand-new EMPTY database on the test server (named so the global teardown finds it too). */
export async function createEmptyDatabase(): Promise<TestDatabase> {
  const serverUrl = process.env.GH_TEST_SERVER_URL;
  const template = process.env.GH_TEST_TEMPLATE;
  if (!serverUrl || !template) throw new Error('the test global setup did not run');
  const runPid = template.split('_')[2];
  const name = `gh_t_${runPid}_empty_${randomBytes(4).toString('hex')}`;
  await createDatabase(serverUrl, name);
  return openDatabase(serverUrl, name, runPid);
}

async function createDatabase(serverUrl: string, definition: string): Promise<void> {
  const admin = new Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${definition}`);
  } finally {
    await admin.end();
  }
}

async function openDatabase(serverUrl: string, name: string, runPid: string): Promise<TestDatabase> {
  const url = databaseUrl(serverUrl, name);
  let client = new Client({ connectionString: url });
  await client.connect();
  // Tests call query side by side (Promise.all): each waits for the one before, as pg's own queue
  // did, which pg deprecates and drops in its next major version.
  let last: Promise<unknown> = Promise.resolve();
  return {
    url,
    name,
    query: <R>(sql: string, params: unknown[] = []) => {
      const result = last.then(() => client.query(sql, params));
      last = result.catch(() => undefined);
      return result.then((r) => r.rows as R[]);
    },
    copy: async () => {
      await client.end();
      try {
        return await cloneDatabase(serverUrl, name, runPid);
      } finally {
        client = new Client({ connectionString: url });
        await client.connect();
      }
    },
    drop: async () => {
      await client.end().catch(() => undefined);
      const c = new Client({ connectionString: serverUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}
