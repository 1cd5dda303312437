import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createTestDatabase, type TestDatabase } from '../../helpers/test-db';
import { cleanEnv, freePort, http, requireBuild, spawnNode, startServerProcess, TEST_ADMIN_TOKEN, type Proc } from '../../helpers/process';
import { operationsOf, type ApiDocument } from './api-document';
import { ContractClient, type Ledger } from './contract-client';

export interface Rig {
  /** The built service, reached directly (for live streams only). */
  serviceUrl: string;
  /** Prism, validating every request and answer against the service's own /openapi.json. */
  proxyUrl: string;
  doc: ApiDocument;
  ledger: Ledger;
  /** A client of the admin surface; `withKey` gives one of a game. */
  admin: ContractClient;
  stop(): Promise<void>;
}

const PRISM_CLI = join(dirname(require.resolve('@stoplight/prism-cli/package.json')), 'dist', 'index.js');

/** The built service on a fresh database, with `prism proxy --errors` in front of it. */
export async function startRig(): Promise<Rig> {
  requireBuild();
  const db: TestDatabase = await createTestDatabase();
  // Webhook urls on this machine are what the run can point a webhook at.
  const service = await startServerProcess(db.url, { WEBHOOK_ALLOW_PRIVATE_HOSTS: 'true' }, 30_000);
  const dir = mkdtempSync(join(tmpdir(), 'guildhall-contract-'));
  const doc = (await http(`${service.url}/openapi.json`)).body as ApiDocument;
  writeFileSync(join(dir, 'openapi.json'), JSON.stringify(doc));

  const port = await freePort();
  const prism: Proc = spawnNode(PRISM_CLI, ['proxy', join(dir, 'openapi.json'), service.url, '--errors', '--host', '127.0.0.1', '--port', String(port), '--verboseLevel', 'warn'], cleanEnv());
  const stop = async () => {
    await prism.kill();
    service.proc.child.kill('SIGTERM');
    await service.proc.waitForExit(35_000).catch(() => service.proc.kill());
    await db.drop();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitForPrism(`http://127.0.0.1:${port}`, prism);
  } catch (e) {
    await stop();
    throw e;
  }
  const ledger: Ledger = { ops: new Map(operationsOf(doc).map((op) => [op.key, op])), seen: new Map(), violations: [] };
  const proxyUrl = `http://127.0.0.1:${port}`;
  return {
    serviceUrl: service.url,
    proxyUrl,
    doc,
    ledger,
    admin: new ContractClient(proxyUrl, ledger, { adminToken: TEST_ADMIN_TOKEN }),
    stop,
  };
}

/** Prism reads and resolves the document before it listens: poll until it relays GET /. */
async function waitForPrism(url: string, prism: Proc): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (prism.exit()) throw new Error(`prism exited: ${prism.describe()}`);
    const ok = await fetch(`${url}/`, { signal: AbortSignal.timeout(1_000) }).then((r) => r.status === 200, () => false);
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`prism did not answer within 60 s: ${prism.describe()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
