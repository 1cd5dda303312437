import { createTestDatabase, type TestDatabase } from '../../helpers/test-db';
import { freePort, http, MAIN_JS, requireBuild, serverEnv, spawnNode, TEST_ADMIN_TOKEN, waitForHttp, type HttpResult, type Proc } from '../../helpers/process';

/**
 * Every secret a reliability case hands the service or gets from it: API keys, the admin token,
 * webhook secrets, passcodes. At the end of the case none of them may appear in the service's log
 * output (it runs at LOG_LEVEL=debug, the most it ever says).
 */
export class SecretLedger {
  private readonly values = new Set<string>([TEST_ADMIN_TOKEN]);

  add(...values: (string | undefined | null)[]): void {
    for (const v of values) if (v && v.length >= 4) this.values.add(v);
  }

  /** The secrets found in `text`, each with a little context. */
  leaks(text: string): string[] {
    const found: string[] = [];
    for (const v of this.values) {
      const at = text.indexOf(v);
      if (at >= 0) found.push(`${v.slice(0, 6)}… at: ${text.slice(Math.max(0, at - 120), at + v.length + 40)}`);
    }
    return found;
  }

  get size(): number {
    return this.values.size;
  }
}

export interface Instance {
  base: string;
  port: number;
  proc: Proc;
  /** The whole log output so far (stdout and stderr). */
  logs(): string;
  /**
   * Waits until the log holds `text`. A line written just before an answer may reach this process
   * after the answer does: the log is a pipe, the answer a socket, and either may be read first.
   */
  logged(text: string, ms?: number): Promise<void>;
  stop(): Promise<void>;
}

/** Starts the built service (a real process) on `db` at LOG_LEVEL=debug. */
export async function startInstance(db: TestDatabase, extra: Record<string, string> = {}): Promise<Instance> {
  requireBuild();
  const port = await freePort();
  const proc = spawnNode(MAIN_JS, [], serverEnv(db.url, port, { LOG_LEVEL: 'debug', WEBHOOK_ALLOW_PRIVATE_HOSTS: 'true', ...extra }));
  const base = `http://127.0.0.1:${port}`;
  await waitForHttp(base, 30_000, proc);
  const logs = () => proc.stdout() + proc.stderr();
  return {
    base,
    port,
    proc,
    logs,
    logged: async (text, ms = 5_000) => {
      for (const until = Date.now() + ms; !logs().includes(text); ) {
        if (Date.now() > until) throw new Error(`the log never held ${JSON.stringify(text)}; it ends with:\n${logs().slice(-2_000)}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    stop: async () => {
      if (proc.exit()) return;
      proc.child.kill('SIGTERM');
      await proc.waitForExit(35_000).catch(() => proc.kill());
    },
  };
}

export interface Game {
  id: string;
  key: string;
  keyId: string;
}

/** A game with one API key, made through the admin API. */
export async function createGame(base: string, name: string, secrets: SecretLedger): Promise<Game> {
  const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
  const game = await expectStatus(http(`${base}/v1/admin/games`, { method: 'POST', headers: admin, body: { name } }), 201);
  const minted = await expectStatus(http(`${base}/v1/admin/games/${game.body.id}/api-keys`, { method: 'POST', headers: admin }), 201);
  secrets.add(minted.body.key);
  return { id: game.body.id, key: minted.body.key, keyId: minted.body.id };
}

export async function expectStatus(call: Promise<HttpResult>, status: number): Promise<HttpResult> {
  const r = await call;
  if (r.status !== status) throw new Error(`expected ${status}, got ${r.status}: ${r.text.slice(0, 500)}`);
  return r;
}

/** A fresh database and a secret ledger for one case; `done()` drops the database. */
export async function caseContext(): Promise<{ db: TestDatabase; secrets: SecretLedger; done(): Promise<void> }> {
  const db = await createTestDatabase();
  return { db, secrets: new SecretLedger(), done: () => db.drop() };
}
