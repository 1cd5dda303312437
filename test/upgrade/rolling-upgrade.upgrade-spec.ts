import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { journalEvents } from '../helpers/journal';
import { databaseUrl } from '../helpers/test-db';
import { cleanEnv, http, killAll, lines, sleep, spawnNode, TEST_ADMIN_TOKEN, serverEnv, freePort } from '../helpers/process';
import { recordingReceiver, type RecordingReceiver } from '../helpers/webhook-receiver';
import { commitBuild, workingTreeBuild, type Build } from './helpers/release-build';
import { Balancer, logLineOf, loggedMessages, loggedSqlStates, scrapeStatementErrors, startInstance, stopInstance, type Instance, type Outcome } from './helpers/fleet';
import { eventKey, followFeed, followStream, writeLoad, type Promised } from './helpers/load';

/**
 * A rolling upgrade under load, and its rollback (docs/upgrades.md): two instances of the previous
 * release on one database behind the test's balancer; `migrate up` by the new build while they
 * serve; each replaced by the new build in turn (drained, SIGTERM, started with MIGRATE_ON_BOOT=false,
 * put back once /healthz is 200); then rolled back the same way, as an expand-only release allows.
 * Throughout, players join and leave, invitations are sent and accepted, friend requests sent and
 * accepted, a feed consumer and a stream subscriber follow the events and a receiver takes the
 * webhooks. Nothing acknowledged may be lost, every answer is 2xx or 503 with Retry-After, every
 * event of an acknowledged write reaches each consumer, and no statement breaks an integrity
 * constraint (SQLSTATE class 23) on any instance.
 *
 * UPGRADE_FROM=<commit> and UPGRADE_TO=<commit> roll between two other builds (UPGRADE_TO defaults
 * to the working tree's dist/). A target build before the `migrate` command migrates when its first
 * instance boots.
 */

/**
 * The release before this build's: release 1.12.0, the commit that cut it. At each release it moves
 * to the commit that cut the one before (1.11.0 was f025817, 1.10.0 59870aa, 1.9.0 ad494df, 1.8.0 020d006, 1.7.0 32fd4ed, 1.6.0 f9bfcec, 1.5.0 9611d25, 1.4.0 79853b7, 1.3.0
 * 2c64226, 1.2.0 0b11651, 1.1.0 a03c712, 1.0.0 119ca50, 0.0.0 65e135e).
 */
const PREVIOUS_RELEASE = '0d6c7bb';
const FROM_REF = process.env.UPGRADE_FROM || PREVIOUS_RELEASE;
const TO_REF = process.env.UPGRADE_TO || null;

/** How long the load runs at each stage of the roll. */
const STAGE_MS = { previousPair: 6_000, afterMigrate: 4_000, mixed: 5_000, newPair: 10_000, rolledBackMixed: 5_000, rolledBack: 8_000 };
/** Loops of each kind (join/leave, invitation, friend request) and the pause between their requests. */
const CLIENTS = 2;
const PAUSE_MS = 40;

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const is2xx = (o: Outcome) => o.status >= 200 && o.status < 300;
/** What a client may see during a roll: 2xx, or 503 with a Retry-After it can wait for. */
const acceptable = (o: Outcome) => is2xx(o) || (o.status === 503 && !!o.retryAfter && Number(o.retryAfter) >= 1);
const counts = (xs: readonly string[]) => xs.reduce((m, x) => m.set(x, (m.get(x) ?? 0) + 1), new Map<string, number>());

/** The longest stretch from a 503 to the next 2xx write (an open one runs to the last answer). */
function longest503Window(outcomes: readonly Outcome[]): { ms: number; from: number | null; count: number } {
  const sorted = [...outcomes].filter((o) => o.status !== 0).sort((a, b) => a.end - b.end);
  let open: number | null = null;
  let best = { ms: 0, from: null as number | null, count: 0 };
  for (const o of sorted) {
    if (o.status === 503) {
      best.count++;
      open ??= o.start;
    } else if (is2xx(o) && open !== null) {
      if (o.end - open > best.ms) best = { ...best, ms: o.end - open, from: open };
      open = null;
    }
  }
  const last = sorted.at(-1);
  if (open !== null && last && last.end - open > best.ms) best = { ...best, ms: last.end - open, from: open };
  return best;
}

/** A request's route, its ids replaced by their parameter names: what offenders are grouped by. */
function routeOf(path: string): string {
  return path
    .replace(/\?.*$/, '')
    .replace(/\/users\/[^/]+/, '/users/:userId')
    .replace(/\/invitations\/[0-9a-f]{16}(?=\/|$)/, '/invitations/:code')
    .replace(/\/friend-requests\/[0-9a-f-]{36}/, '/friend-requests/:id')
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, ':id');
}

/** The next minor release after `release`: the fictitious one whose contract migration the copy gets. */
function nextRelease(release: string): string {
  const [major, minor] = release.split('.').map(Number);
  return `${major}.${minor + 1}.0`;
}

describe(`rolling upgrade ${FROM_REF} -> ${TO_REF ?? 'this build'} -> back, under load`, () => {
  let from: Build;
  let to: Build;
  let serverUrl: string;
  let dbName: string;
  let dbUrl: string;
  let receiver: RecordingReceiver;
  const balancer = new Balancer();
  /** Every instance started, in order. */
  const instances: Instance[] = [];
  let stopLoad: (() => Promise<void>) | null = null;
  let sampler: NodeJS.Timeout | undefined;

  const sql = async <R>(url: string, text: string, params: unknown[] = []): Promise<R[]> => {
    const c = new Client({ connectionString: url });
    await c.connect();
    try {
      return (await c.query(text, params)).rows as R[];
    } finally {
      await c.end();
    }
  };

  beforeAll(async () => {
    serverUrl = process.env.GH_TEST_SERVER_URL ?? '';
    const template = process.env.GH_TEST_TEMPLATE ?? '';
    if (!serverUrl || !template) throw new Error('the test global setup did not run');
    from = await commitBuild(FROM_REF, 'UPGRADE_FROM');
    to = TO_REF ? await commitBuild(TO_REF, 'UPGRADE_TO') : workingTreeBuild();
    for (const [role, b] of [['previous', from], ['target', to]] as const) {
      process.stdout.write(
        `upgrade: ${role} build ${b.label}: ` +
          (b.reused ? `reused ${b.dir}` : b.commit ? `built in ${b.dir}: ${b.steps.map((s) => `${s.step} ${seconds(s.ms)}`).join(', ')}` : `${b.dir}/dist`) +
          `; migrate command: ${b.hasMigrateCommand ? 'yes' : 'no'}, METRICS_PORT: ${b.hasMetricsPort ? 'yes' : 'no'}, schema release check: ${b.hasSchemaCheck ? 'yes' : 'no'}\n`,
      );
    }
    // An empty database, named like the suites' clones so that the global teardown drops a leftover:
    // the previous release's own migrations make its schema, as they did in production.
    dbName = `gh_t_${template.split('_')[2]}_upgrade_${randomBytes(4).toString('hex')}`;
    await sql(serverUrl, `CREATE DATABASE ${dbName}`);
    dbUrl = databaseUrl(serverUrl, dbName);
    receiver = await recordingReceiver();
  }, 1_800_000);

  afterAll(async () => {
    clearInterval(sampler);
    await stopLoad?.().catch(() => undefined);
    await killAll();
    await receiver?.close();
    if (dbName) await sql(serverUrl, `DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
  }, 120_000);

  it('loses no acknowledged write, answers only 2xx or 503 with Retry-After, and delivers every event, up and back', async () => {
    const t0 = Date.now();
    /** What the roll was doing when: an answer is placed after the last mark before it. */
    const marks: { at: number; what: string }[] = [];
    const mark = (what: string) => marks.push({ at: Date.now(), what });
    const note = (what: string) => process.stdout.write(`upgrade: ${seconds(Date.now() - t0).padStart(8)}  ${what}\n`);
    const during = (at: number) => marks.filter((m) => m.at <= at).at(-1)?.what ?? 'setup';
    const slots: Instance[] = [];
    const start = async (build: Build, name: string, extra: Record<string, string> = {}) => {
      const instance = await startInstance(build, name, dbUrl, extra);
      instances.push(instance);
      return instance;
    };

    // ---- two instances of the previous release; the first makes the schema as that release does at boot ----
    for (const slot of [0, 1]) {
      const instance = await start(from, `${slot + 1}a`);
      slots[slot] = instance;
      balancer.add(instance);
      note(`${instance.name} ${from.label}: listening after ${seconds(instance.listeningMs)}, /healthz 200 after ${seconds(instance.healthyMs)}, in rotation`);
    }

    // ---- the game: a key, a webhook for every event type, open groups and an invite-only one ----
    const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
    const created = async (op: string, path: string, headers: Record<string, string>, body?: unknown) => {
      const { outcome, res } = await balancer.request(op, 'POST', path, { headers, body });
      if (outcome.status !== 201 || !res) throw new Error(`${path}: ${outcome.status} ${outcome.body ?? outcome.error}`);
      return res.body;
    };
    const game = await created('setup', '/v1/admin/games', admin, { name: 'rolling upgrade' });
    const key = (await created('setup', `/v1/admin/games/${game.id}/api-keys`, admin)).key as string;
    const auth = { authorization: `Bearer ${key}` };
    await created('setup', '/v1/webhooks', auth, { url: receiver.url });
    const openGroups: string[] = [];
    for (let g = 0; g < 3; g++) openGroups.push((await created('setup', '/v1/groups', auth, { kind: 'party', name: `open ${g}`, visibility: 'public' })).id);
    const inviteOnlyGroup = (await created('setup', '/v1/groups', auth, { kind: 'party', name: 'invite only', visibility: 'invite-only' })).id as string;

    // ---- consumers first, then the load ----
    const feed = followFeed(balancer, key);
    const stream = await followStream(balancer, key);
    const load = writeLoad(balancer, { key, openGroups, inviteOnlyGroup, prefix: `u${randomBytes(3).toString('hex')}` }, CLIENTS, PAUSE_MS);
    stopLoad = async () => {
      await load.stop();
      await feed.stop();
      stream.stop();
    };
    sampler = setInterval(() => instances.forEach((i) => void scrapeStatementErrors(i)), 3_000);
    const stage = async (name: string, ms: number) => {
      mark(name);
      note(`${name}: load on ${balancer.live.map((i) => `${i.name} ${i.build.release}`).join(' + ')} for ${seconds(ms)}`);
      await sleep(ms);
    };

    /** Drained, stopped, replaced, put back: what a rolling deploy does to one instance. */
    const replaces: string[] = [];
    const replace = async (slot: number, build: Build, name: string) => {
      const old = slots[slot];
      const begun = Date.now();
      mark(`replacing ${old.name} by ${name} ${build.label}`);
      const left = await balancer.drain(old);
      await scrapeStatementErrors(old);
      const drained = Date.now();
      const stop = await stopInstance(old);
      // Builds since 1.0.0 take MIGRATE_ON_BOOT=false; earlier ones ignore it and migrate when they boot.
      const instance = await start(build, name, { MIGRATE_ON_BOOT: 'false' });
      slots[slot] = instance;
      balancer.add(instance);
      // A graceful stop ends as Nest's shutdown hooks do: they re-raise the signal once the app is closed.
      const summary =
        `${old.name} -> ${name} (${build.label}): drained in ${seconds(drained - begun)}${left ? ` (${left} still in flight)` : ''}, ` +
        `SIGTERM to exit ${seconds(stop.ms)} (${stop.exit.code ?? stop.exit.signal}${stop.warnings.length ? `; it logged: ${stop.warnings.join(' / ')}` : ''}), listening after ${seconds(instance.listeningMs)}, ` +
        `/healthz 200 after ${seconds(instance.healthyMs)}, out of rotation ${seconds(Date.now() - begun)}`;
      replaces.push(summary);
      note(summary);
    };

    await stage(`previous pair (${from.label})`, STAGE_MS.previousPair);

    // ---- the schema first, by the new build's command, while the previous release serves ----
    let migrateFigure: string;
    if (to.hasMigrateCommand) {
      mark('migrate up');
      const begun = Date.now();
      const proc = spawnNode(to.cli, ['migrate', 'up'], cleanEnv({ DATABASE_URL: dbUrl, SVC_DATA_DIR: '/nonexistent' }), to.dir);
      const exit = await proc.waitForExit(300_000);
      migrateFigure = `migrate up ${seconds(Date.now() - begun)} under load (exit ${exit.code}: ${proc.stdout().trim() || proc.stderr().trim()})`;
      note(migrateFigure);
      expect({ exit: exit.code, stderr: proc.stderr() }).toEqual({ exit: 0, stderr: '' });
    } else {
      migrateFigure = `${to.label} has no migrate command: its first instance applied the migrations when it booted (MIGRATE_ON_BOOT ignored)`;
      note(`${to.label} has no migrate command: its first instance will migrate when it boots`);
    }
    await stage('after the migration', STAGE_MS.afterMigrate);

    // ---- up: one instance at a time ----
    await replace(0, to, '1b');
    const probes = await crossReleaseProbes(slots[0], slots[1], key, openGroups[0]);
    note(`probes between ${slots[0].name} and ${slots[1].name} (apart from the load): ${probes}`);
    await stage('mixed', STAGE_MS.mixed);
    await replace(1, to, '2b');
    await stage(`new pair (${to.label})`, STAGE_MS.newPair);

    // ---- and back: the release is expand-only, so the previous build runs on its schema ----
    await replace(0, from, '1c');
    await stage('mixed, rolling back', STAGE_MS.rolledBackMixed);
    await replace(1, from, '2c');
    await stage(`rolled back (${from.label})`, STAGE_MS.rolledBack);

    await load.stop();
    note(`load stopped: ${load.acked.length} writes acknowledged`);

    // ---- the consumers catch up with every committed event of the game ----
    // The journal holds every committed event from 1.2.0 on, whichever release wrote it (1.4.0 writes it alone).
    const committed = await sql<{ id: string; type: string; body: Record<string, unknown> }>(dbUrl, `SELECT id, type, body FROM ${journalEvents()} WHERE game_id = $1`, [game.id]);
    const byKey = new Map<string, string[]>();
    for (const e of committed) byKey.set(eventKey(e.type, e.body), [...(byKey.get(eventKey(e.type, e.body)) ?? []), e.id]);
    const expectedIds = new Set(load.acked.flatMap((w) => byKey.get(w.eventKey) ?? []));
    const hooked = () => new Set(receiver.received.map((r) => r.body.id as string));
    const catchUpStarted = Date.now();
    for (const deadline = Date.now() + 120_000; Date.now() < deadline; await sleep(500)) {
      const feedSet = new Set(feed.ids);
      const streamSet = new Set(stream.ids);
      const hooks = hooked();
      if (committed.every((e) => feedSet.has(e.id)) && [...expectedIds].every((id) => streamSet.has(id) && hooks.has(id))) break;
    }
    const catchUpMs = Date.now() - catchUpStarted;
    await feed.stop();
    stream.stop();
    stopLoad = null;
    clearInterval(sampler);
    await Promise.all(slots.map((i) => scrapeStatementErrors(i)));
    note(`consumers caught up in ${seconds(catchUpMs)}`);

    // ---- acknowledged writes: each row in the state its acknowledged writes left ----
    const lost = await lostWrites(dbUrl, load.promised);

    // ---- answers ----
    const outcomes = balancer.outcomes;
    const offenders = outcomes.filter((o) => !acceptable(o));
    const transport = offenders.filter((o) => o.status === 0);
    const toDrained = transport.filter((o) => o.sentTo !== 'serving');
    const window = longest503Window(outcomes.filter((o) => o.op !== 'feed' && o.op !== 'stream'));
    const byName = new Map(instances.map((i) => [i.name, i]));
    const logged500 = (o: Outcome) => ((l) => (l ? ` [log: ${l}]` : ''))(logLineOf(byName.get(o.instance)!, o.requestId));
    const describeOffender = (o: Outcome) =>
      `${seconds(o.end - t0)} ${o.method} ${o.path} -> ${o.status || o.error} from ${o.instance} ${o.release}` +
      (o.status === 0 ? ` (sent while ${o.sentTo}, failed while ${o.errorWhile})` : `: ${o.body}`) +
      logged500(o);
    // The offenders grouped by route, answer, release and logged cause, with when they came.
    const kinds = new Map<string, Outcome[]>();
    for (const o of offenders) {
      const kind = `${o.method} ${routeOf(o.path)} -> ${o.status || `no answer (${o.error}, sent while ${o.sentTo})`} from ${o.release}${logged500(o)}`;
      kinds.set(kind, [...(kinds.get(kind) ?? []), o]);
    }
    const offenderKinds = [...kinds].map(
      ([kind, os]) => `${os.length} x ${kind}, from ${seconds(os[0].end - t0)} (${during(os[0].end)}) to ${seconds(os.at(-1)!.end - t0)} (${during(os.at(-1)!.end)})`,
    );

    // ---- events: each acknowledged write's event once in the feed, and in the stream and the webhooks ----
    const feedCounts = counts(feed.ids);
    const streamCounts = counts(stream.ids);
    const hookCounts = counts(receiver.received.map((r) => r.body.id as string));
    const committedIds = new Set(committed.map((e) => e.id));
    const eventProblems: string[] = [];
    for (const w of load.acked) {
      const ids = byKey.get(w.eventKey) ?? [];
      if (ids.length !== 1) eventProblems.push(`${w.op} answered by ${w.instance}: ${ids.length} events "${w.eventKey}"`);
      for (const id of ids) {
        if (feedCounts.get(id) !== 1) eventProblems.push(`${w.eventKey} (${id}): ${feedCounts.get(id) ?? 0} times in the feed`);
        if (!streamCounts.get(id)) eventProblems.push(`${w.eventKey} (${id}): never on the stream`);
        if (!hookCounts.get(id)) eventProblems.push(`${w.eventKey} (${id}): never delivered to the webhook`);
      }
    }
    const feedRepeats = feed.ids.length - feedCounts.size;
    const missingFromFeed = committed.filter((e) => !feedCounts.has(e.id)).length;
    const strangers = [...feedCounts.keys(), ...streamCounts.keys(), ...hookCounts.keys()].filter((id) => !committedIds.has(id));

    // ---- statement errors by SQLSTATE class, from each instance's METRICS_PORT, and what the logs name ----
    const statementErrors: Record<string, number> = {};
    const unscraped: string[] = [];
    const logged: Record<string, number> = {};
    const messages: Record<string, number> = {};
    for (const i of instances) {
      if (i.build.hasMetricsPort && !i.exposesStatementErrors) unscraped.push(i.name);
      for (const [cls, n] of Object.entries(i.statementErrors ?? {})) statementErrors[cls] = (statementErrors[cls] ?? 0) + n;
      for (const [code, n] of Object.entries(loggedSqlStates(i))) logged[code] = (logged[code] ?? 0) + n;
      for (const [msg, n] of Object.entries(loggedMessages(i))) messages[`${i.build.label}: ${msg.slice(0, 120)}`] = (messages[`${i.build.label}: ${msg.slice(0, 120)}`] ?? 0) + n;
    }
    const withoutMetrics = [...new Set(instances.filter((i) => !i.build.hasMetricsPort).map((i) => i.build.label))];
    const exposedBy = [...new Set(instances.filter((i) => i.exposesStatementErrors).map((i) => i.build.label))];
    const loggedIntegrity = Object.entries(logged).filter(([code]) => code.startsWith('23'));

    const byRelease = [...counts(outcomes.map((o) => o.release))].map(([r, n]) => `${n} answered by ${r}`).join(', ');
    const ops = [...counts(load.acked.map((w) => w.op))].map(([op, n]) => `${op} ${n}`).join(', ');
    process.stdout.write(
      `upgrade: ${from.label} -> ${to.label} -> ${from.label} under load in ${seconds(Date.now() - t0)}; ${migrateFigure}; ` +
        `${replaces.length} replacements (out of rotation ${replaces.map((r) => /out of rotation ([\d.]+ s)/.exec(r)?.[1]).join(', ')}); ` +
        `${outcomes.length} requests (${byRelease}); ${load.acked.length} writes acknowledged (${ops}), ${lost.length} lost; ` +
        `${offenders.length} answers other than 2xx or 503 with Retry-After (${transport.length} without an answer, ${toDrained.length} of them to a drained or stopped instance); ` +
        `503s: ${window.count}, longest window ${seconds(window.ms)}${window.from === null ? '' : ` (from ${seconds(window.from - t0)}, ${during(window.from)})`}; ` +
        `events: ${committed.length} committed, ${expectedIds.size} of acknowledged writes, feed ${feed.ids.length} in ${feed.pages} pages (${feedRepeats} repeated, ${missingFromFeed} missing), ` +
        `stream ${stream.ids.length} over ${stream.opened.length} connections (${stream.opened.length - 1} reconnects with Last-Event-ID, ${stream.ids.length - streamCounts.size} repeated), ` +
        `webhooks ${receiver.received.length} deliveries (${receiver.received.length - hookCounts.size} repeated under the same id), ${eventProblems.length} problems; ` +
        `statement errors by SQLSTATE class ${JSON.stringify(statementErrors)} (class 23: ${statementErrors['23'] ?? 0}; svc_db_statement_errors_total exposed by ${exposedBy.join(', ') || 'none'})` +
        (withoutMetrics.length ? `, not exposed by ${withoutMetrics.join(', ')}` : '') +
        `; SQLSTATEs in the logs ${JSON.stringify(logged)}; probes: ${probes}\n`,
    );
    if (Object.keys(messages).length) process.stdout.write(`upgrade: logged by the instances (LOG_LEVEL=warn):\n${Object.entries(messages).map(([m, n]) => `  ${n} x ${m}`).join('\n')}\n`);
    if (offenders.length) {
      process.stdout.write(`upgrade: offenders by kind:\n${offenderKinds.map((k) => `  ${k}`).join('\n')}\n`);
      process.stdout.write(`upgrade: first offenders:\n${offenders.slice(0, 5).map((o) => `  ${describeOffender(o)}`).join('\n')}\n`);
    }
    if (lost.length) process.stdout.write(`upgrade: first lost writes:\n${lost.slice(0, 8).map((l) => `  ${l}`).join('\n')}\n`);
    if (eventProblems.length) process.stdout.write(`upgrade: first event problems:\n${eventProblems.slice(0, 8).map((l) => `  ${l}`).join('\n')}\n`);

    expect(load.acked.length).toBeGreaterThan(100);
    // Both releases served a share of the load, and the stream followed the roll across instances.
    expect(new Set(outcomes.filter(is2xx).map((o) => o.release))).toEqual(new Set([from.label, to.label]));
    expect(stream.opened.length).toBeGreaterThanOrEqual(3);
    for (const i of instances) if (i.build.release !== '0.0.0') expect({ instance: i.name, release: i.reportedRelease }).toEqual({ instance: i.name, release: i.build.release });
    expect(lost).toEqual([]);
    expect({ offenders: offenders.length, kinds: offenderKinds, first: offenders.slice(0, 3).map(describeOffender) }).toEqual({ offenders: 0, kinds: [], first: [] });
    expect(eventProblems).toEqual([]);
    expect({ feedRepeats, missingFromFeed, strangers }).toEqual({ feedRepeats: 0, missingFromFeed: 0, strangers: [] });
    expect({ unscraped, integrityErrors: statementErrors['23'] ?? 0, loggedIntegrity }).toEqual({ unscraped: [], integrityErrors: 0, loggedIntegrity: [] });
  }, 900_000);

  /*
   * Release 0.0.0 predates the check: it has no schema_releases and would start on anything. From
   * 1.0.0 on, "the previous build" of a rolling upgrade is the one that must refuse a database its
   * successor has contracted, and this case shows the target build (1.0.0, the next upgrade's
   * previous build) refusing a contract migration of a fictitious next release.
   */
  it('on a copy of the upgraded database with a contract migration of the next release, the target build refuses to start in one line', async () => {
    expect({ rolled: instances.length > 0 }).toEqual({ rolled: true }); // the database of the roll above
    // CREATE DATABASE … TEMPLATE needs the source without connections: every instance is stopped first.
    for (const i of instances) {
      if (i.state === 'stopped') continue;
      await balancer.drain(i);
      await stopInstance(i);
    }
    expect({ target: to.label, hasSchemaCheck: to.hasSchemaCheck }).toEqual({ target: to.label, hasSchemaCheck: true });
    const copy = `${dbName}_contract`;
    await sql(serverUrl, `CREATE DATABASE ${copy} TEMPLATE ${dbName}`);
    try {
      const copyUrl = databaseUrl(serverUrl, copy);
      const next = nextRelease(to.release);
      const name = 'ContractNextRelease1799000000000';
      await sql(copyUrl, `INSERT INTO schema_migrations ("timestamp", name) VALUES (1799000000000, $1)`, [name]);
      await sql(copyUrl, `INSERT INTO schema_releases (name, release, kind, oldest_release) VALUES ($1, $2, 'contract', $2)`, [name, next]);
      const refusals: string[] = [];
      // As an operator would start it: with the default MIGRATE_ON_BOOT, and as a roll starts it.
      for (const extra of [{}, { MIGRATE_ON_BOOT: 'false' }]) {
        const proc = spawnNode(to.main, [], serverEnv(copyUrl, await freePort(), extra), to.dir);
        const exit = await proc.waitForExit(60_000);
        const stderr = lines(proc.stderr());
        refusals.push(`exit ${exit.code}, ${stderr.length} line: ${stderr.join(' | ')}`);
        expect({ code: exit.code, lines: stderr.length }).toEqual({ code: 1, lines: 1 });
        expect(stderr[0]).toContain(`${name} of release ${next} (contract)`);
        expect(stderr[0]).toContain(`this build is release ${to.release}`);
      }
      process.stdout.write(`upgrade: contract migration ${name} of release ${next} on a copy: ${to.label} refused to start: ${refusals[0]}\n`);
    } finally {
      await sql(serverUrl, `DROP DATABASE IF EXISTS ${copy} WITH (FORCE)`);
    }
  }, 180_000);
});

/** Every promised row that is missing, or in a state none of its acknowledged writes allow. */
async function lostWrites(url: string, p: Promised): Promise<string[]> {
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    const lost: string[] = [];
    const check = async <S extends string>(what: string, promised: Map<string, Set<S>>, query: string) => {
      const found = new Map((await c.query<{ id: string; state: S }>(query, [[...promised.keys()]])).rows.map((r) => [r.id, r.state]));
      for (const [id, states] of promised) {
        const state = found.get(id);
        if (state === undefined || !states.has(state)) lost.push(`${what} ${id}: ${state ?? 'missing'}, acknowledged as ${[...states].join(' or ')}`);
      }
    };
    await check('member', p.members, 'SELECT id::text, status AS state FROM members WHERE id = ANY($1::uuid[])');
    await check('invitation', p.invitations, `SELECT id::text, CASE WHEN used_at IS NULL THEN 'unused' ELSE 'used' END AS state FROM invitations WHERE id = ANY($1::uuid[])`);
    await check('friend request', p.relationships, 'SELECT id::text, type AS state FROM user_relationships WHERE id = ANY($1::uuid[])');
    return lost;
  } finally {
    await c.end();
  }
}

/**
 * What a client that does carry state across releases meets, apart from the load: a consistency
 * token of one release read by the other, and list cursors of one paged on the other (a group's
 * members, whose scope names the group; a player's friends, whose scope names the player, since
 * 1.0.0 by digest). Reported, not asserted: they are differences between releases for the
 * CHANGELOG and docs/upgrades.md, not losses.
 */
async function crossReleaseProbes(a: Instance, b: Instance, key: string, group: string): Promise<string> {
  const auth = { authorization: `Bearer ${key}` };
  const answer = (r: { status: number; body?: { code?: string } }) => `${r.status}${r.status >= 300 ? ` ${r.body?.code ?? ''}` : ''}`;
  const out: string[] = [];
  for (const [writer, reader] of [
    [a, b],
    [b, a],
  ]) {
    const tag = `probe${writer.name}${randomBytes(3).toString('hex')}`;
    const w = await http(`${writer.base}/v1/groups/${group}/join`, { method: 'POST', headers: auth, body: { userId: tag } });
    const token = w.headers.get('x-svc-consistency');
    if (!token) out.push(`${writer.build.release} issued no consistency token (write ${w.status})`);
    else out.push(`a ${writer.build.release} consistency token read by ${reader.build.release}: ${answer(await http(`${reader.base}/v1/groups/${group}`, { headers: { ...auth, 'x-svc-consistency': token } }))}`);

    for (const friend of ['x', 'y']) {
      const sent = await http(`${writer.base}/v1/users/${tag}/friend-requests`, { method: 'POST', headers: auth, body: { targetSvcUserId: `${tag}${friend}` } });
      await http(`${writer.base}/v1/friend-requests/${sent.body?.request?.id}/accept`, { method: 'POST', headers: auth });
    }
    for (const [list, path] of [
      ['members', `/v1/groups/${group}/members`],
      ['friends', `/v1/users/${tag}/friends`],
    ]) {
      const page = await http(`${writer.base}${path}?limit=1`, { headers: auth });
      const cursor = page.body?.nextCursor as string | undefined;
      if (!cursor) out.push(`${writer.build.release} gave no ${list} cursor (${page.status})`);
      else out.push(`a ${writer.build.release} ${list} cursor paged on ${reader.build.release}: ${answer(await http(`${reader.base}${path}?limit=1&cursor=${encodeURIComponent(cursor)}`, { headers: auth }))}`);
    }
  }
  return out.join('; ');
}
