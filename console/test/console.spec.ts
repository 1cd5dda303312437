import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { ADMIN_TOKEN, asAdmin, newGame, startTestApp, type TestApp } from '../../test/helpers/test-app';
import { launch, recordedPage, signIn } from './browser';
import { gameApi, inBatches } from './seed';

/** The operator console in a real browser, against the real service and database. */
describe('operator console', () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let page: Page;
  let requested: string[];

  beforeAll(async () => {
    t = await startTestApp();
    await t.app.listen(0, '127.0.0.1');
    base = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
    browser = await launch();
    ({ page, requested } = await recordedPage(browser));
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });
  afterEach(() => {
    // No request leaves the service's origin, and the token never travels in a URL.
    expect(requested.filter((url) => !url.startsWith(`${base}/`) && !url.startsWith('data:'))).toEqual([]);
    expect(requested.filter((url) => url.includes(ADMIN_TOKEN) || url.includes(encodeURIComponent(ADMIN_TOKEN)))).toEqual([]);
  });

  it('is served with a strict Content-Security-Policy, nosniff and cache headers', async () => {
    const index = await fetch(`${base}/console/`);
    expect(index.status).toBe(200);
    expect(index.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(index.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(index.headers.get('content-security-policy')).toContain("connect-src 'self'");
    expect(index.headers.get('x-content-type-options')).toBe('nosniff');
    expect(index.headers.get('cache-control')).toBe('no-cache');
    const script = /src="(assets\/main-[^"]+\.js)"/.exec(await index.text())?.[1];
    const asset = await fetch(`${base}/console/${script}`);
    expect(asset.headers.get('cache-control')).toContain('immutable');
    expect(asset.headers.get('content-security-policy')).toContain("default-src 'none'");
    const bare = await fetch(`${base}/console`, { redirect: 'manual' });
    expect([301, 302]).toContain(bare.status);
  });

  it('refuses a wrong token with the envelope, then signs in with the right one', async () => {
    await page.goto(`${base}/console/`);
    await page.getByLabel('Admin token').fill('jadm_not_the_right_token_000');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toContain('401 invalid_admin_token');
    await signIn(page, base, ADMIN_TOKEN);
    expect(await page.evaluate(() => Object.values(sessionStorage))).toEqual([ADMIN_TOKEN]);
  });

  it('creates a game, mints a key shown once, and revokes it', async () => {
    await page.getByLabel('New game name').fill('Starfall Online');
    await page.getByRole('button', { name: 'Create game' }).click();
    await page.getByRole('heading', { name: 'Starfall Online', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Mint a key' }).click();
    const key = await page.getByTestId('minted-key').textContent();
    expect(key).toMatch(/^jk_[0-9a-f]{16}\./);
    // The key works against the game API.
    expect((await fetch(`${base}/v1/whoami`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);
    await page.getByRole('button', { name: 'Copy key' }).waitFor();
    await page.reload();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    await page.getByRole('table', { name: 'API keys' }).waitFor();
    expect(await page.getByTestId('minted-key').count()).toBe(0);
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: /^Revoke key jk_/ }).click();
    await page.getByText(/^revoked /).waitFor();
    expect((await fetch(`${base}/v1/whoami`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(401);
  });

  it('mints a read-only key that expires, and lists each key with its scopes and expiry', async () => {
    // Still on the game of the test above, whose first key (both scopes, no expiry) is revoked.
    await page.getByLabel('Access').selectOption({ label: 'Read only (GET)' });
    await page.getByLabel('Expiry').selectOption({ label: 'Expires in 30 days' });
    const mintedAt = Date.now();
    await page.getByRole('button', { name: 'Mint a key' }).click();
    const key = (await page.getByTestId('minted-key').textContent())!;
    const auth = { authorization: `Bearer ${key}` };
    const me = await (await fetch(`${base}/v1/whoami`, { headers: auth })).json();
    expect(me.scopes).toEqual(['read']);
    expect(Math.abs(Date.parse(me.expiresAt) - (mintedAt + 30 * 86_400_000))).toBeLessThan(60_000);
    const write = await fetch(`${base}/v1/groups`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: '{"kind":"guild","name":"x"}' });
    expect(write.status).toBe(403);

    const rows = page.getByRole('table', { name: 'API keys' }).getByRole('row');
    const readRow = rows.filter({ hasText: key.split('.')[0] });
    await readRow.getByText('read only').waitFor();
    expect(await readRow.textContent()).not.toContain('never');
    await readRow.getByText('active').waitFor();
    const fullRow = rows.filter({ hasText: 'revoked' });
    await fullRow.getByText('read, write').waitFor();
    await fullRow.getByText('never').waitFor();
    // The default choices mint a key as before: both scopes, no expiry.
    await page.getByLabel('Access').selectOption({ label: 'Read and write' });
    await page.getByLabel('Expiry').selectOption({ label: 'Never expires' });
    await page.getByRole('button', { name: 'Mint a key' }).click();
    await page.getByTestId('minted-key').filter({ hasNotText: key }).waitFor();
    const full = (await page.getByTestId('minted-key').textContent())!;
    const fullMe = await (await fetch(`${base}/v1/whoami`, { headers: { authorization: `Bearer ${full}` } })).json();
    expect(fullMe).toMatchObject({ scopes: ['read', 'write'], expiresAt: null });
  });

  it("pages through a group's members", async () => {
    const { gameId, key } = await newGame(t, 'Paging');
    const game = gameApi(base, key);
    const group = await game.group('Knights of Dawn');
    await inBatches(Array.from({ length: 59 }, (_, i) => `player-${String(i).padStart(2, '0')}`), 20, (u) => game.join(group.id, u));
    await page.goto(`${base}/console/#/games/${gameId}/groups`);
    await page.getByRole('link', { name: 'Knights of Dawn' }).click();
    const members = page.getByRole('table', { name: 'Members' });
    await members.waitFor();
    await expect(page.locator('.page-status').textContent()).resolves.toBe('1–25 of 60');
    expect(await members.locator('tbody tr').count()).toBe(25);
    await page.getByRole('link', { name: 'Next →' }).click();
    await page.getByText('26–50 of 60').waitFor();
    await page.getByRole('link', { name: 'Next →' }).click();
    await page.getByText('51–60 of 60').waitFor();
    expect(await page.getByRole('table', { name: 'Members' }).locator('tbody tr').count()).toBe(10);
    await page.getByRole('link', { name: '← Previous' }).click();
    await page.getByText('26–50 of 60').waitFor();
  });

  it("shows a group's owner, member cap and tags", async () => {
    const { gameId, key } = await newGame(t, 'Settings');
    const game = gameApi(base, key);
    const full = await game.call<{ id: string }>('POST', '/v1/groups', { kind: 'clan', name: 'Full house', creatorUserId: 'boss', maxMembers: 2, tags: ['lang:en', 'casual'] });
    await game.call('POST', `/v1/groups/${full.id}/invitations`, { targetUserId: 'second' }).then((inv) => game.call('POST', `/v1/invitations/${(inv as { code: string }).code}/accept`, { userId: 'second' }));
    await page.goto(`${base}/console/#/games/${gameId}/groups/${full.id}`);
    const settings = page.locator('dl.group-settings');
    await settings.waitFor();
    expect((await settings.locator('dd').allTextContents()).map((t) => t.replace(/\s+/g, ' ').trim())).toEqual(['boss', '2 of 2 (full)', 'lang:encasual']);
    const open = await game.call<{ id: string }>('POST', '/v1/groups', { kind: 'guild', name: 'Open hall' });
    await page.goto(`${base}/console/#/games/${gameId}/groups/${open.id}`);
    await page.locator('dl.group-settings').waitFor();
    expect(await page.locator('dl.group-settings dd').allTextContents()).toEqual(['none', 'no cap', 'none']);
  });

  it('finds groups as players do: a typo in a word, tags and open; secret groups only under All groups', async () => {
    const { gameId, key } = await newGame(t, 'Search');
    const game = gameApi(base, key);
    const create = (name: string, extra: Record<string, unknown>) => game.call('POST', '/v1/groups', { kind: 'guild', name, visibility: 'public', ...extra });
    await create('Knights of Dawn', { tags: ['lang:en'] });
    await create('Ritter der Dämmerung', { tags: ['lang:de'], maxMembers: 10 });
    await create('Volle Burg', { tags: ['lang:de'], maxMembers: 1, creatorUserId: 'founder' });
    await create('Geheimbund', { tags: ['lang:de'], visibility: 'secret' });
    await page.goto(`${base}/console/#/games/${gameId}/groups`);
    const rows = page.getByRole('table', { name: 'Groups' }).locator('tbody tr');
    await page.getByRole('table', { name: 'Groups' }).waitFor();
    expect(await rows.count()).toBe(3);

    await page.getByLabel('Search names').fill('KNIGTHS');
    await page.getByRole('button', { name: 'Search' }).click();
    // Knights of Dawn is already on the unfiltered page: the answer has come once the others are gone.
    await page.getByRole('link', { name: 'Ritter der Dämmerung' }).waitFor({ state: 'detached' });
    await page.getByRole('link', { name: 'Knights of Dawn' }).waitFor();
    await expect(rows.count()).resolves.toBe(1);

    // open reads a member count up to a few seconds old: wait until the full group's is counted.
    for (let tries = 0; tries < 50; tries++) {
      const found = await game.call<{ items: unknown[] }>('GET', '/v1/groups/search?tags=lang:de&open=true');
      if (found.items.length === 1) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await page.getByLabel('Search names').fill('');
    await page.getByLabel('Tags').fill('lang:de');
    await page.getByLabel('Open to join').check();
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForFunction(() => location.hash.includes('open=true'));
    await page.getByRole('link', { name: 'Ritter der Dämmerung' }).waitFor();
    await expect(rows.count()).resolves.toBe(1);

    await page.getByRole('link', { name: 'All groups, secret ones included' }).click();
    await page.getByRole('link', { name: 'Geheimbund' }).waitFor();
  });

  it('shows a live event within 2 s of the call that caused it; pause holds events back', async () => {
    const { gameId, key } = await newGame(t, 'Live');
    const game = gameApi(base, key);
    const group = await game.group('Night Watch');
    await page.goto(`${base}/console/#/games/${gameId}/live`);
    await page.locator('.live-state').getByText('live').waitFor();
    const started = Date.now();
    await game.join(group.id, 'bob');
    await page.locator('ol.live li[data-type="member.joined"]').filter({ hasText: 'user bob' }).waitFor({ timeout: 2_000 });
    expect(Date.now() - started).toBeLessThan(2_000);

    await page.getByRole('button', { name: 'Pause' }).click();
    await game.join(group.id, 'carol');
    await page.getByText('1 new held').waitFor();
    expect(await page.locator('ol.live li').filter({ hasText: 'user carol' }).count()).toBe(0);
    await page.getByRole('button', { name: 'Resume' }).click();
    await page.locator('ol.live li').filter({ hasText: 'user carol' }).waitFor();

    await page.getByLabel('Filter').fill('carol');
    expect(await page.locator('ol.live li:visible').count()).toBe(1);
  });

  it('draws the five analytics charts with data', async () => {
    const { gameId, key } = await newGame(t, 'Analytics');
    const game = gameApi(base, key);
    const group = await game.group('Iron Legion');
    const users = Array.from({ length: 12 }, (_, i) => `fighter-${i}`);
    await inBatches(users, 12, (u) => game.join(group.id, u));
    const officer = await game.role(group.id, 'Officer', 10);
    await game.grant(officer.id, 'guild.invite');
    await game.grant(officer.id, 'chat.mute');
    await inBatches(users.slice(0, 4), 4, (u) => game.assign(group.id, u, officer.id));
    await game.call('POST', `/v1/groups/${group.id}/leave`, { userId: users[11] });

    await page.goto(`${base}/console/#/games/${gameId}`);
    for (const chart of ['churn', 'growth', 'activity', 'roles', 'permissions']) {
      const figure = page.locator(`#chart-${chart}`);
      await figure.locator('canvas').first().waitFor();
      // The numbers drawn: the chart's data table holds a non-zero value.
      const values = await figure.locator('details td.num').allTextContents();
      expect(values.map(Number).some((v) => v > 0)).toBe(true);
      const drawn = await figure.locator('canvas').first().evaluate((c: HTMLCanvasElement) => c.width > 0 && c.height > 0);
      expect(drawn).toBe(true);
    }
  });

  it('lists webhook endpoints with their health, and the game audit log with its diffs', async () => {
    const { gameId, key } = await newGame(t, 'Hooks');
    const game = gameApi(base, key);
    const group = await game.group('Old name');
    await game.call('PATCH', `/v1/groups/${group.id}`, { name: 'New name' });
    await t.http.post('/v1/webhooks').set('authorization', `Bearer ${key}`).send({ url: 'https://hooks.example.com/guildhall' });

    await page.goto(`${base}/console/#/games/${gameId}/webhooks`);
    await page.getByRole('link', { name: 'https://hooks.example.com/guildhall' }).click();
    await page.getByRole('heading', { name: 'Delivery log' }).waitFor();

    await page.goto(`${base}/console/#/games/${gameId}/audit`);
    const update = page.locator('ol.audit li').filter({ hasText: 'group.updated' });
    await update.locator('table.diff').waitFor();
    await expect(update.locator('del').allTextContents()).resolves.toContain('Old name');
    await expect(update.locator('ins').allTextContents()).resolves.toContain('New name');
    await page.getByLabel('Actions').selectOption('group.created');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForFunction(() => location.hash.includes('actions=group.created'));
    await page.locator('ol.audit li').first().waitFor();
    expect(await page.locator('ol.audit li').filter({ hasText: 'group.updated' }).count()).toBe(0);
  });

  it('shows an error answer with its envelope', async () => {
    await page.goto(`${base}/console/#/games/0190a5c8-0000-7000-8000-000000000000`);
    const alert = page.getByRole('alert').first();
    await expect(alert.textContent()).resolves.toContain('404 not_found');
    expect((await t.http.get('/v1/admin/stats').set(asAdmin)).status).toBe(200);
  });

  it('works from the keyboard: skip link, then the navigation', async () => {
    // A fresh load (going from another route of the page would only change the fragment).
    await page.goto('about:blank');
    await page.goto(`${base}/console/#/games`);
    await page.getByRole('heading', { name: 'Games', level: 1 }).waitFor();
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');
    await page.keyboard.press('Enter');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('main');
  });
});

describe('operator console without an admin token', () => {
  it('is not served: /console answers 404', async () => {
    const t = await startTestApp({ SVC_ADMIN_TOKEN: '' });
    try {
      expect((await t.http.get('/console/')).status).toBe(404);
      expect((await t.http.get('/console')).status).toBe(404);
    } finally {
      await t.close();
    }
  });
});
