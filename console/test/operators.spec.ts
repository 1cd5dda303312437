import type { AddressInfo } from 'node:net';
import type { Browser, Locator, Page } from 'playwright-core';
import { ACTIONS } from '../src/access';
import { ADMIN_TOKEN, newGame, startTestApp, type TestApp } from '../../test/helpers/test-app';
import { launch, recordedPage, signIn } from './browser';
import { gameApi } from './seed';

/**
 * The console signed in with operator tokens, one role at a time, in a real browser against the
 * real service: what each role is shown and not shown, a change each role may make (through its
 * confirmation), the Operators page, and the operator audit naming who did what.
 */
let t: TestApp;
let base: string;
let browser: Browser;
const pages: Array<{ page: Page; requested: string[] }> = [];
const tokens: Record<'viewer' | 'moderator' | 'admin' | 'owner', string> = { viewer: '', moderator: '', admin: '', owner: '' };
const names = { viewer: 'Vera (support)', moderator: 'Milo (community)', admin: 'Ada (live ops)', owner: 'Olga (lead)' };
const ids: Record<string, string> = {};
let gameId: string;
let game: ReturnType<typeof gameApi>;
let guild: string;
let club: string;

const rootCall = async <T>(method: string, path: string, body?: unknown, token = ADMIN_TOKEN): Promise<T> => {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return (res.status === 204 ? undefined : await res.json()) as T;
};

beforeAll(async () => {
  t = await startTestApp();
  await t.app.listen(0, '127.0.0.1');
  base = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
  browser = await launch();
  for (const role of Object.keys(tokens) as Array<keyof typeof tokens>) {
    const created = await rootCall<{ id: string; token: string }>('POST', '/v1/admin/operators', { name: names[role], role });
    tokens[role] = created.token;
    ids[role] = created.id;
  }
  const g = await newGame(t, 'Starfall Online');
  gameId = g.gameId;
  game = gameApi(base, g.key);
  guild = (await game.group('Knights of Dawn')).id;
  for (const userId of ['ann', 'bob', 'cat']) await game.join(guild, userId);
  club = (await game.call<{ id: string }>('POST', '/v1/groups', { kind: 'guild', name: 'Quiet Club', visibility: 'invite-only', creatorUserId: 'host' })).id;
  await game.call('POST', `/v1/groups/${club}/join-requests`, { userId: 'dan', message: 'let me in' });
  await game.call('POST', `/v1/groups/${club}/join-requests`, { userId: 'eve' });
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});
afterEach(() => {
  // No request leaves the service's origin, and no token travels in a URL.
  for (const { requested } of pages.splice(0)) {
    expect(requested.filter((url) => !url.startsWith(`${base}/`) && !url.startsWith('data:'))).toEqual([]);
    for (const token of [ADMIN_TOKEN, ...Object.values(tokens)]) expect(requested.filter((url) => url.includes(token) || url.includes(encodeURIComponent(token)))).toEqual([]);
  }
});

/** A fresh tab (its own sessionStorage) signed in with `token`. */
async function signedIn(token: string): Promise<Page> {
  const recorded = await recordedPage(browser);
  pages.push(recorded);
  await signIn(recorded.page, base, token);
  return recorded.page;
}

const open = async (page: Page, route: string, heading: string | RegExp): Promise<void> => {
  await page.goto(`${base}/console/#${route}`);
  await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
  await page.waitForFunction(() => !document.querySelector('[aria-busy]'));
};

const count = (l: Locator) => l.count();
const dialog = (page: Page, name: string) => page.getByRole('dialog', { name });
const memberRow = (page: Page, user: string) => page.getByRole('table', { name: 'Members' }).getByRole('row').filter({ has: page.getByRole('link', { name: user, exact: true }) });

/** Waits until the operator audit shows `n` rows (a filter's answer replaces the previous one's). */
const rowsAre = (page: Page, n: number) =>
  page.waitForFunction((want) => !document.querySelector('[aria-busy]') && document.querySelectorAll('section[aria-label="Operator audit entries"] tbody tr').length === want, n);

/** What the header says of who is signed in. */
const header = async (page: Page) => (await page.getByTestId('operator').textContent())?.replace(/\s+/g, ' ').trim();

describe('the table of console actions', () => {
  it('gives each action the least role the API document states for its operation', async () => {
    const doc = (await (await fetch(`${base}/openapi.json`)).json()) as { paths: Record<string, Record<string, Record<string, unknown>>> };
    const shape = (path: string) => path.replace(/\{[^}]+\}/g, '{}');
    const byShape = new Map(Object.entries(doc.paths).map(([path, item]) => [shape(path), item]));
    for (const [name, action] of Object.entries(ACTIONS)) {
      const op = byShape.get(shape(action.path))?.[action.method.toLowerCase()];
      expect({ name, role: op?.['x-svc-operator-role'] }).toEqual({ name, role: action.role });
    }
  });
});

describe('signed in as an operator', () => {
  it('root: the header names root as owner, and every page and control is there', async () => {
    const page = await signedIn(ADMIN_TOKEN);
    await expect(header(page)).resolves.toBe('Signed in as root owner');
    await page.getByRole('link', { name: 'Operators', exact: true }).waitFor();
    await page.getByRole('button', { name: 'Create game' }).waitFor();
  });

  it('viewer: reads everything, is shown no control that changes anything, and filters the operator audit', async () => {
    const page = await signedIn(tokens.viewer);
    await expect(header(page)).resolves.toBe(`Signed in as ${names.viewer} viewer`);
    expect(await count(page.getByRole('button', { name: 'Create game' }))).toBe(0);
    expect(await count(page.getByRole('link', { name: 'Operators', exact: true }))).toBe(0);

    await open(page, `/games/${gameId}`, 'Starfall Online');
    await page.getByRole('table', { name: 'API keys' }).waitFor();
    expect(await count(page.getByRole('button', { name: 'Mint a key' }))).toBe(0);
    expect(await count(page.getByRole('button', { name: /^Revoke/ }))).toBe(0);

    await open(page, `/games/${gameId}/groups/${guild}`, 'Knights of Dawn');
    await memberRow(page, 'ann').waitFor();
    expect(await count(page.getByRole('columnheader', { name: 'Actions' }))).toBe(0);
    expect(await page.locator('main').getByRole('button').allTextContents()).toEqual(['Filter']);
    await open(page, `/games/${gameId}/groups/${club}?tab=requests`, 'Quiet Club');
    await page.getByRole('table', { name: 'Join requests' }).getByText('let me in').waitFor();
    expect(await count(page.getByRole('button', { name: /^(Approve|Decline)/ }))).toBe(0);

    await open(page, `/games/${gameId}/users/ann`, 'ann');
    await page.getByRole('button', { name: 'Export', exact: true }).waitFor();
    expect(await count(page.getByRole('button', { name: 'Erase' }))).toBe(0);
    expect(await count(page.getByRole('button', { name: 'Ban from this game' }))).toBe(0);

    // A page above the role is not reachable by its address either.
    await page.goto(`${base}/console/#/operators`);
    await page.getByRole('heading', { name: 'Games', level: 1 }).waitFor();

    // Allowed: reading the operator audit, narrowed to one action.
    await rootCall('POST', `/v1/admin/games/${gameId}/api-keys`, undefined, tokens.admin);
    await page.getByRole('link', { name: 'Operator audit' }).click();
    await page.getByRole('heading', { name: 'Operator audit', level: 1 }).waitFor();
    await page.getByLabel('Action', { exact: true }).selectOption('api_key.minted');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForFunction(() => location.hash.includes('action=api_key.minted'));
    await page.waitForFunction(() => {
      const rows = [...document.querySelectorAll('section[aria-label="Operator audit entries"] tbody tr')];
      return rows.length > 0 && rows.every((r) => r.textContent?.includes('api_key.minted'));
    });
    const rows = page.getByRole('table', { name: 'Operator audit' }).locator('tbody tr');
    await rows.filter({ hasText: names.admin }).first().waitFor();
  });

  it('moderator: kicks and bans with their confirmations, decides a join request, deletes and restores a group; no game, key or operator management', async () => {
    const page = await signedIn(tokens.moderator);
    await expect(header(page)).resolves.toBe(`Signed in as ${names.moderator} moderator`);
    expect(await count(page.getByRole('button', { name: 'Create game' }))).toBe(0);
    expect(await count(page.getByRole('link', { name: 'Operators', exact: true }))).toBe(0);
    await open(page, `/games/${gameId}`, 'Starfall Online');
    await page.getByRole('table', { name: 'API keys' }).waitFor();
    expect(await count(page.getByRole('button', { name: 'Mint a key' }))).toBe(0);
    expect(await count(page.getByRole('button', { name: /^Revoke/ }))).toBe(0);

    // Kick: the dialog says who; Cancel changes nothing; confirming kicks.
    await open(page, `/games/${gameId}/groups/${guild}`, 'Knights of Dawn');
    await memberRow(page, 'bob').getByRole('button', { name: 'Kick bob' }).click();
    await dialog(page, 'Kick this member?').getByRole('button', { name: 'Cancel' }).click();
    await dialog(page, 'Kick this member?').waitFor({ state: 'detached' });
    const bob = await rootCall<{ items: Array<{ status: string }> }>('GET', `/v1/admin/games/${gameId}/groups/${guild}/members?q=bob`);
    expect(bob.items.map((m) => m.status)).toEqual(['active']);
    await memberRow(page, 'bob').getByRole('button', { name: 'Kick bob' }).click();
    const kick = dialog(page, 'Kick this member?');
    await kick.getByLabel('Reason').fill('spamming the guild chat');
    await kick.getByRole('button', { name: 'Kick bob' }).click();
    await page.getByRole('status').filter({ hasText: 'Kicked bob.' }).waitFor();
    await memberRow(page, 'ann').waitFor();
    expect(await count(memberRow(page, 'bob'))).toBe(0);
    const members = await rootCall<{ items: Array<{ externalUserId: string; status: string }> }>('GET', `/v1/admin/games/${gameId}/groups/${guild}/members?status=kicked`);
    expect(members.items.map((m) => m.externalUserId)).toEqual(['bob']);

    // A group ban, then lifted from the banned members.
    await memberRow(page, 'cat').getByRole('button', { name: 'Ban cat from the group' }).click();
    await dialog(page, 'Ban from this group?').getByRole('button', { name: 'Ban cat' }).click();
    await page.getByRole('status').filter({ hasText: 'Banned cat from the group.' }).waitFor();
    await page.getByRole('link', { name: 'Banned members' }).click();
    await page.getByRole('button', { name: 'Lift the ban of cat' }).click();
    await dialog(page, 'Lift this group ban?').getByRole('button', { name: 'Unban cat' }).click();
    await page.getByRole('status').filter({ hasText: 'Lifted the group ban of cat.' }).waitFor();
    await page.getByText('Nobody is banned from this group.').waitFor();

    // A game-wide ban from the user's page, with its reason and end.
    await open(page, `/games/${gameId}/users/ann`, 'ann');
    await page.getByRole('button', { name: 'Erase' }).waitFor();
    await page.getByRole('button', { name: 'Ban from this game' }).click();
    const ban = dialog(page, 'Ban from this game?');
    await ban.getByLabel('Reason').fill('cheating');
    await ban.getByLabel('Ends').fill('2099-01-01T12:00');
    await ban.getByRole('button', { name: 'Ban ann from the game' }).click();
    await page.getByRole('status').filter({ hasText: 'Banned ann from the game.' }).waitFor();
    const banned = page.locator('dl[aria-label="Game-wide ban"]');
    await banned.getByText('cheating').waitFor();
    const gameBan = await rootCall<{ reason: string; expiresAt: string }>('GET', `/v1/bans/ann`, undefined, (await newKey()));
    expect(gameBan.reason).toBe('cheating');
    expect(new Date(gameBan.expiresAt).getUTCFullYear()).toBe(2099);
    await page.getByRole('button', { name: 'Lift the ban' }).click();
    await dialog(page, 'Lift the game-wide ban?').getByRole('button', { name: 'Lift the ban of ann' }).click();
    await page.getByText('Not banned from this game.').waitFor();

    // Join requests: approve one, decline the other with a reason.
    await open(page, `/games/${gameId}/groups/${club}?tab=requests`, 'Quiet Club');
    await page.getByRole('button', { name: 'Approve dan' }).click();
    await dialog(page, 'Approve this join request?').getByRole('button', { name: 'Approve dan' }).click();
    await page.getByRole('status').filter({ hasText: 'Approved dan: now a member.' }).waitFor();
    await page.getByRole('button', { name: 'Decline eve' }).click();
    await dialog(page, 'Decline this join request?').getByLabel('Reason').fill('full for now');
    await dialog(page, 'Decline this join request?').getByRole('button', { name: 'Decline eve' }).click();
    await page.getByText('No pending join requests.').waitFor();

    // Delete the group, then restore it from its page.
    await page.getByRole('button', { name: 'Delete group' }).click();
    await dialog(page, 'Delete this group?').getByRole('button', { name: 'Delete the group' }).click();
    await page.getByRole('heading', { name: 'Group not found', level: 1 }).waitFor();
    await page.getByRole('status').filter({ hasText: 'Deleted Quiet Club.' }).waitFor();
    await page.getByRole('button', { name: 'Restore group' }).click();
    await dialog(page, 'Restore this group?').getByRole('button', { name: 'Restore the group' }).click();
    await page.getByRole('heading', { name: 'Quiet Club', level: 1 }).waitFor();
    await page.getByRole('status').filter({ hasText: 'Restored Quiet Club.' }).waitFor();

    // The operator audit names the moderator on each change.
    const audit = await rootCall<{ items: Array<{ action: string; operatorName: string; targetId: string }> }>('GET', `/v1/admin/operator-audit?operatorId=${ids.moderator}`);
    expect(audit.items.map((e) => e.action)).toEqual([
      'group.restored', 'group.deleted', 'join_request.declined', 'join_request.approved', 'game.ban_removed', 'game.ban_added', 'group.ban_removed', 'group.ban_added', 'member.kicked',
    ]);
    expect(new Set(audit.items.map((e) => e.operatorName))).toEqual(new Set([names.moderator]));
  });

  it('admin: creates a game and mints a key; moderation is there, operators are not', async () => {
    const page = await signedIn(tokens.admin);
    await expect(header(page)).resolves.toBe(`Signed in as ${names.admin} admin`);
    expect(await count(page.getByRole('link', { name: 'Operators', exact: true }))).toBe(0);
    await page.getByLabel('New game name').fill('Moonrise Tactics');
    await page.getByRole('button', { name: 'Create game' }).click();
    await page.getByRole('heading', { name: 'Moonrise Tactics', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Mint a key' }).click();
    expect(await page.getByTestId('minted-key').textContent()).toMatch(/^jk_/);
    await page.getByRole('button', { name: /^Revoke key jk_/ }).waitFor();

    await open(page, `/games/${gameId}/groups/${guild}`, 'Knights of Dawn');
    await memberRow(page, 'ann').getByRole('button', { name: 'Kick ann' }).waitFor();
    await page.getByRole('button', { name: 'Delete group' }).waitFor();
    await page.goto(`${base}/console/#/operators`);
    await page.getByRole('heading', { name: 'Games', level: 1 }).waitFor();
  });

  it('owner: adds an operator whose token is shown once, changes its role and deletes it, each confirmed', async () => {
    const page = await signedIn(tokens.owner);
    await expect(header(page)).resolves.toBe(`Signed in as ${names.owner} owner`);
    await page.getByRole('link', { name: 'Operators', exact: true }).click();
    await page.getByRole('heading', { name: 'Operators', level: 1 }).waitFor();
    const list = page.getByRole('table', { name: 'Operators' });
    await list.getByRole('row').filter({ hasText: names.owner }).getByText('you', { exact: true }).waitFor();

    await page.getByRole('button', { name: 'Add an operator' }).click();
    const add = dialog(page, 'Add an operator');
    await add.getByLabel('Name').fill('Nico (night shift)');
    await add.getByLabel('Role').selectOption('moderator');
    await add.getByRole('button', { name: 'Add the operator' }).click();
    const token = await page.getByTestId('operator-token').textContent();
    expect(token).toMatch(/^jop_/);
    const row = list.getByRole('row').filter({ hasText: 'Nico (night shift)' });
    await row.getByText('moderator', { exact: true }).waitFor();
    // The token works, as that operator; the list never shows it, and it is gone once the page is left.
    await expect(rootCall('GET', '/v1/admin/whoami', undefined, token!)).resolves.toMatchObject({ name: 'Nico (night shift)', role: 'moderator' });
    expect(await list.textContent()).not.toContain(token);
    await page.getByRole('link', { name: 'Games', exact: true }).click();
    await page.getByRole('link', { name: 'Operators', exact: true }).click();
    await row.waitFor();
    expect(await count(page.getByTestId('operator-token'))).toBe(0);

    await row.getByRole('button', { name: 'Change the role of Nico (night shift)' }).click();
    const change = dialog(page, 'Change the role of Nico (night shift)?');
    await change.getByLabel('New role').selectOption('viewer');
    await change.getByRole('button', { name: 'Change the role' }).click();
    await page.getByText('Nico (night shift) is now viewer.').waitFor();
    await expect(rootCall('GET', '/v1/admin/whoami', undefined, token!)).resolves.toMatchObject({ role: 'viewer' });

    await row.getByRole('button', { name: 'Delete Nico (night shift)' }).click();
    await dialog(page, 'Delete Nico (night shift)?').getByRole('button', { name: 'Delete Nico (night shift)' }).click();
    await page.getByText('Deleted Nico (night shift).').waitFor();
    expect(await count(row)).toBe(0);
    expect((await fetch(`${base}/v1/admin/whoami`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(401);
  });

  it("the operator audit lists changes newest first with the operator's name, by operator and action, 50 a page", async () => {
    for (let i = 0; i < 52; i++) await rootCall('POST', `/v1/admin/games/${gameId}/api-keys`, undefined, tokens.admin);
    const page = await signedIn(tokens.owner);
    await page.getByRole('link', { name: 'Operator audit' }).click();
    const rows = page.getByRole('table', { name: 'Operator audit' }).locator('tbody tr');
    await rows.first().waitFor();
    expect(await rows.count()).toBe(50);
    // Newest first: the 52 keys just minted.
    for (const text of (await rows.allTextContents()).slice(0, 50)) expect(text).toContain(names.admin);

    // By operator, picked by name: the owner's own changes (the operator added, changed, deleted).
    await page.getByLabel('Operator', { exact: true }).selectOption({ label: names.owner });
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForFunction((id) => location.hash.includes(`operatorId=${id}`), ids.owner);
    await rowsAre(page, 3);
    const own = (await rows.allTextContents()).map((r) => r.replace(/\s+/g, ' '));
    expect(own.map((r) => /operator\.\w+/.exec(r)?.[0])).toEqual(['operator.deleted', 'operator.role_changed', 'operator.created']);
    for (const r of own) expect(r).toContain(names.owner);

    // An operator's name filters by them; then by action, and on to the older page.
    await page.getByRole('link', { name: 'Clear' }).click();
    await rows.first().waitFor();
    await rows.first().getByRole('link', { name: names.admin }).click();
    await page.waitForFunction((id) => location.hash.includes(`operatorId=${id}`), ids.admin);
    await page.getByLabel('Action', { exact: true }).selectOption('api_key.minted');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForFunction(() => document.querySelector('a[rel=next]')?.getAttribute('href')?.includes('action=api_key.minted'));
    await rowsAre(page, 50);
    await page.getByRole('link', { name: 'Older →' }).click();
    await page.waitForFunction(() => location.hash.includes('before='));
    // 52 here, one by the viewer's test and one by the admin's page: 54 mints by the admin.
    await rowsAre(page, 4);
    for (const text of await rows.allTextContents()) expect(text).toContain(`api_key.minted`);
    await page.getByRole('link', { name: '⇤ Newest' }).click();
    await page.waitForFunction(() => !location.hash.includes('before='));
  });
});

/** A key of the test game, to read it through the game API as its backend would. */
async function newKey(): Promise<string> {
  return (await rootCall<{ key: string }>('POST', `/v1/admin/games/${gameId}/api-keys`)).key;
}
