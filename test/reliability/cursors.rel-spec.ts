import fc from 'fast-check';
import { http, TEST_ADMIN_TOKEN } from '../helpers/process';
import { arrangeGame, type Arranged } from './helpers/arrange';
import { arrangeSecondRows } from './helpers/arrange-pages';
import { forgedFrom, type Forged } from './helpers/forged-cursors';
import { pool, send } from './helpers/fuzz-client';
import { operationsOf, poolNameOf, type Operation } from './helpers/openapi-fuzz';
import { caseContext, startInstance, type Instance } from './helpers/service';

/* eslint-disable @typescript-eslint/no-explicit-any -- the API document and the answers are untyped JSON */
/** Forged cursors per paged operation. */
const CASES = Number(process.env.CURSOR_FUZZ_CASES ?? 300);
// Fixed by default so that CI runs the same cases; CURSOR_FUZZ_SEED=random explores (the seed is printed).
const SEED = process.env.CURSOR_FUZZ_SEED === 'random' ? Date.now() % 2 ** 31 : Number(process.env.CURSOR_FUZZ_SEED ?? 20_261_128);
/** Path parameter combinations tried per page before an operation counts as unarranged. */
const MAX_COMBINATIONS = 60;

/** A real page of a paged operation: its url (limit=1, no cursor), credentials, and its nextCursor. */
interface Seed {
  op: Operation;
  url: string;
  authorization: string;
  cursor: string;
}

/** The nextCursor of a page: the answer's own, or that of the page it holds (a user's memberships). */
const nextCursorOf = (body: any): string | undefined =>
  [body, ...Object.values(body ?? {})].map((v: any) => (v && typeof v === 'object' ? v.nextCursor : undefined)).find((c): c is string => typeof c === 'string');
const isPage = (body: any): boolean => [body, ...Object.values(body ?? {})].some((v: any) => v && typeof v === 'object' && Array.isArray(v.items));

describe('forged cursors: every paged operation of the API document (DECISIONS 32)', () => {
  let ctx: Awaited<ReturnType<typeof caseContext>>;
  let svc: Instance;
  let doc: any;
  let world: Arranged;

  beforeAll(async () => {
    ctx = await caseContext();
    svc = await startInstance(ctx.db);
    world = await arrangeGame(svc.base, ctx.secrets);
    await arrangeSecondRows(svc.base, world);
    doc = (await http(`${svc.base}/openapi.json`)).body;
  }, 120_000);

  afterAll(async () => {
    await svc?.stop();
    await ctx?.done();
  }, 60_000);

  /** Each enum value of a query parameter pages the list another way (a search's sorts): one page per value, and the plain one. */
  function variantsOf(op: Operation): string[] {
    // A list that cannot page without a query parameter (a player's groups allowing a key) takes the pool's first value.
    const required = op.parameters
      .filter((p) => p.in === 'query' && p.required && !Array.isArray(p.schema.enum) && world.pools[p.name]?.length)
      .map((p) => `&${encodeURIComponent(p.name)}=${encodeURIComponent(world.pools[p.name][0])}`)
      .join('');
    const variants = [required];
    for (const p of op.parameters) {
      if (p.in === 'query' && Array.isArray(p.schema.enum)) variants.push(...p.schema.enum.map((v: unknown) => `${required}&${encodeURIComponent(p.name)}=${encodeURIComponent(String(v))}`));
    }
    return variants;
  }

  /** The operation's paths with their parameters filled from the arranged pools, every combination up to a bound. */
  function pathsOf(op: Operation): string[] {
    let paths = [op.path];
    for (const p of op.parameters.filter((x) => x.in === 'path')) {
      const values = world.pools[poolNameOf(op, p)] ?? [];
      paths = paths.flatMap((path) => values.map((v) => path.replace(`{${p.name}}`, encodeURIComponent(v)))).slice(0, MAX_COMBINATIONS);
    }
    return paths;
  }

  /** A real page with a next one, per way the operation pages (none when no arranged owner has two rows). */
  async function seedsOf(op: Operation): Promise<Seed[]> {
    const authorization = `Bearer ${op.auth === 'adminToken' ? TEST_ADMIN_TOKEN : world.gameA.key}`;
    const seeds: Seed[] = [];
    for (const variant of variantsOf(op)) {
      for (const path of pathsOf(op)) {
        const url = `${path}?limit=1${variant}`;
        const r = await http(`${svc.base}${url}`, { headers: { authorization } });
        const cursor = r.status === 200 ? nextCursorOf(r.body) : undefined;
        if (cursor) {
          seeds.push({ op, url, authorization, cursor });
          break;
        }
      }
    }
    return seeds;
  }

  it(`answers ${CASES} forged cursors per paged operation: never 5xx, 400 naming cursor for a value the list refuses, a page for one it takes`, async () => {
    const ops = operationsOf(doc).filter((op) => op.method === 'GET' && op.parameters.some((p) => p.in === 'query' && p.name === 'cursor'));
    expect(ops.length).toBeGreaterThanOrEqual(21);
    const cases: { seed: Seed; forged: Forged }[] = [];
    const unarranged: string[] = [];
    for (const op of ops) {
      const seeds = await seedsOf(op);
      if (!seeds.length) unarranged.push(`${op.method} ${op.path}`);
      for (const seed of seeds) {
        for (const forged of fc.sample(forgedFrom(seed.cursor), { numRuns: Math.ceil(CASES / seeds.length), seed: SEED })) cases.push({ seed, forged });
      }
    }
    // A paged operation with no second page cannot be forged from: arrange two rows for it (helpers/arrange-pages.ts).
    expect(unarranged).toEqual([]);

    const failures: string[] = [];
    const tally = new Map<string, number>();
    await pool(cases, 8, async ({ seed, forged }) => {
      const url = `${seed.url}&cursor=${encodeURIComponent(forged.cursor)}`;
      let answer;
      try {
        answer = await send(svc.base, { method: 'GET', url, auth: 'right' }, seed.authorization);
      } catch (err) {
        failures.push(`no answer (${(err as Error).message}): ${seed.op.path} ${forged.json.slice(0, 200)}`);
        return;
      }
      const e = answer.json as any;
      const namesCursor = answer.status === 400 && e?.code === 'bad_request' && e?.status === 400 && /\bcursor\b/.test(String(e?.message));
      const paged = answer.status === 200 && isPage(e);
      const ok = forged.verdict === 'valid' ? paged : forged.verdict === 'invalid' ? namesCursor : paged || namesCursor;
      const key = `${forged.verdict}→${answer.status}`;
      tally.set(key, (tally.get(key) ?? 0) + 1);
      if (!ok && failures.length < 40) failures.push(`${forged.verdict} cursor answered ${answer.status}: GET ${seed.url} with ${forged.json.slice(0, 200)} → ${answer.text.slice(0, 200)}`);
      else if (!ok) failures.push(`${forged.verdict} → ${answer.status}`);
    });
    const summary = [...tally.entries()].sort().map(([k, n]) => `${k}×${n}`).join(' ');
    process.stdout.write(`cursors: ${cases.length} forged cursors over ${ops.length} paged operations (seed ${SEED}): ${summary}\n`);
    expect(failures).toEqual([]);
    // Each verdict was put to the test, not only refusals.
    for (const verdict of ['valid', 'invalid']) expect([...tally.keys()].some((k) => k.startsWith(verdict))).toBe(true);
    expect(svc.proc.exit()).toBeNull();
  }, 600_000);
});
