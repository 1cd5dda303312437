// `npm run docs:console`: screenshots of every console page, written to docs/console/*.png for
// docs/console.md. Starts the built service on a scratch database (DATABASE_URL's server, or an
// embedded PostgreSQL), arranges a small game through the API as a game backend would, and drives
// Debian's Chromium (CHROMIUM_PATH) through playwright-core.
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { migrate, openDatabase } from '../bench/lib/postgres.mjs';
import { freePort, sleep, startNode, stopNode, waitHttp } from '../bench/lib/processes.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(ROOT, 'docs', 'console');
const TOKEN = `jadm_${randomBytes(18).toString('base64url')}`;

/** A webhook receiver that accepts every other delivery, so the log shows retries and successes. */
function receiver() {
  let n = 0;
  const server = createServer((req, res) => {
    req.resume();
    res.statusCode = n++ % 2 === 0 ? 200 : 503;
    res.end();
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

async function main() {
  mkdirSync(OUT, { recursive: true });
  const db = await openDatabase(ROOT);
  const hooks = await receiver();
  let server;
  let browser;
  try {
    await migrate(ROOT, db.url);
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    server = startNode('server', ['dist/src/main.js'], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: db.url, SVC_ADMIN_TOKEN: TOKEN, PORT: String(port), HOST: '127.0.0.1', NODE_ENV: 'production', LOG_LEVEL: 'error', RATE_LIMIT_PER_MINUTE: '0', WEBHOOK_ALLOW_PRIVATE_HOSTS: 'true' },
    });
    await waitHttp(server, `${base}/healthz`);
    const call = async (method, path, body, token) => {
      const res = await fetch(`${base}${path}`, { method, headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
      if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
      return res.status === 204 ? undefined : res.json();
    };
    const game = await call('POST', '/v1/admin/games', { name: 'Starfall Online' }, TOKEN);
    await call('POST', '/v1/admin/games', { name: 'Moonrise Tactics' }, TOKEN);
    const { key } = await call('POST', `/v1/admin/games/${game.id}/api-keys`, undefined, TOKEN);
    // A read-only key for a dashboard, for 90 days: the keys list shows both kinds.
    await call('POST', `/v1/admin/games/${game.id}/api-keys`, { scopes: ['read'], expiresIn: 90 * 86_400 }, TOKEN);
    const api = (method, path, body) => call(method, path, body, key);
    await api('POST', '/v1/webhooks', { url: `http://127.0.0.1:${hooks.address().port}/hook`, events: ['member.joined', 'member.left'] });

    const names = ['Knights of Dawn', 'Night Watch', 'Iron Legion', 'Silver Hand', 'Crimson Tide', 'Emerald Circle', 'Storm Riders', 'Ashen Vow'];
    const groups = [];
    for (const [i, name] of names.entries()) {
      const tags = [`lang:${['en', 'de', 'fr'][i % 3]}`, `region:${['eu', 'na'][i % 2]}`, ...(i % 4 === 1 ? ['casual'] : [])];
      const g = await api('POST', '/v1/groups', { kind: i % 3 === 2 ? 'party' : 'guild', name, visibility: 'public', creatorUserId: `leader-${i}`, tags, maxMembers: i % 3 === 0 ? 100 : null });
      groups.push(g);
      const members = Array.from({ length: 60 - i * 6 }, (_, n) => `player-${i}-${String(n).padStart(2, '0')}`);
      for (let n = 0; n < members.length; n += 20) await Promise.all(members.slice(n, n + 20).map((userId) => api('POST', `/v1/groups/${g.id}/join`, { userId })));
      const officer = await api('POST', `/v1/groups/${g.id}/roles`, { name: 'Officer', priority: 10, color: '#1f5fbf' });
      const recruit = await api('POST', `/v1/groups/${g.id}/roles`, { name: i % 2 ? 'Recruit' : 'Veteran', priority: 1 });
      for (const p of ['guild.invite', 'chat.mute', 'bank.withdraw'].slice(0, 1 + (i % 3))) await api('POST', `/v1/roles/${officer.id}/permissions`, { permission: p });
      await api('POST', `/v1/roles/${recruit.id}/permissions`, { permission: 'chat.post' });
      for (const userId of members.slice(0, 5)) await api('POST', `/v1/groups/${g.id}/members/${userId}/roles/${officer.id}`);
      for (const userId of members.slice(5, 15)) await api('POST', `/v1/groups/${g.id}/members/${userId}/roles/${recruit.id}`);
      for (const userId of members.slice(-3)) await api('POST', `/v1/groups/${g.id}/leave`, { userId });
      await api('POST', `/v1/groups/${g.id}/members/${members[members.length - 5]}/kick`, {});
    }
    const [first] = groups;
    await api('PATCH', `/v1/groups/${first.id}`, { name: 'Knights of the Dawn', visibility: 'invite-only' });
    await api('POST', '/v1/bans', { userId: 'griefer-42', reason: 'chat spam' });
    await api('POST', '/v1/bans', { userId: 'cheater-7', reason: 'speed hack', expiresAt: new Date(Date.now() + 7 * 86_400_000).toISOString() });
    // The webhook worker sends every few seconds: let it make some attempts.
    await sleep(7_000);

    browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--no-sandbox'] });
    const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    const settle = () => page.waitForFunction(() => !document.querySelector('[aria-busy], .loading'));
    const shot = async (name, fullPage = false) => {
      await settle();
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r(undefined))));
      await page.screenshot({ path: join(OUT, `${name}.png`), fullPage });
      console.log(`docs/console/${name}.png`);
    };
    const open = async (route) => {
      await page.goto(`${base}/console/${route}`);
      await settle();
    };

    await page.goto(`${base}/console/`);
    await page.getByLabel('Admin token').waitFor();
    await shot('sign-in');
    await page.getByLabel('Admin token').fill(TOKEN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Games', level: 1 }).waitFor();
    await shot('games');

    await open(`#/games/${game.id}`);
    await page.getByRole('button', { name: 'Mint a key' }).click();
    await page.getByTestId('minted-key').waitFor();
    await shot('game', true);

    await open(`#/games/${game.id}/groups?sort=members`);
    await shot('groups');
    await open(`#/games/${game.id}/groups/${first.id}`);
    await shot('group-members');
    await open(`#/games/${game.id}/groups/${first.id}?tab=roles`);
    await shot('group-roles');
    await open(`#/games/${game.id}/groups/${first.id}?tab=audit`);
    await shot('group-audit');

    await open(`#/games/${game.id}/live`);
    await page.locator('.live-state').getByText('live').waitFor();
    for (const userId of ['ava', 'noah', 'mia']) await api('POST', `/v1/groups/${groups[1].id}/join`, { userId });
    await api('POST', `/v1/groups/${groups[1].id}/leave`, { userId: 'noah' });
    await page.locator('ol.live li').nth(3).waitFor();
    await shot('live');

    await open(`#/games/${game.id}/webhooks`);
    await page.getByText(/of the last/).waitFor();
    await shot('webhooks');
    await page.locator('table a').first().click();
    await settle();
    await page.locator('ol.deliveries summary').first().click();
    await page.locator('ol.deliveries table').first().waitFor();
    await shot('webhook-deliveries');

    await open(`#/games/${game.id}/audit?actions=group.updated&actions=member.kicked`);
    await shot('audit');
    await open(`#/games/${game.id}/bans`);
    await shot('bans');

    // A player's page, arranged last so the pages above look as they did: one of the first group's
    // officers, given more groups (one left), friends and a pending request.
    const player = 'player-0-03';
    for (const g of [groups[2], groups[4]]) await api('POST', `/v1/groups/${g.id}/join`, { userId: player });
    await api('POST', `/v1/groups/${groups[4].id}/leave`, { userId: player });
    for (const friend of ['player-1-00', 'player-2-00', 'player-3-00']) {
      const sent = await api('POST', `/v1/users/${friend}/friend-requests`, { targetSvcUserId: player });
      await api('POST', `/v1/friend-requests/${sent.request.id}/accept`);
    }
    await api('POST', `/v1/users/${player}/friend-requests`, { targetSvcUserId: 'player-4-00' });
    await open(`#/games/${game.id}/users/${player}`);
    await shot('user', true);

    // A member timed out (EXTENSIONS X10), and players' reports waiting for a moderator.
    await api('POST', `/v1/groups/${first.id}/members/${player}/timeout`, { duration: '2h', reason: 'flooding the raid chat' });
    await open(`#/games/${game.id}/groups/${first.id}/members/${player}`);
    await shot('member');
    const reports = [
      ['player-1-03', { type: 'user', id: 'griefer-42' }, 'harassment', 'kept following me around the capital and spamming whispers'],
      ['player-2-05', { type: 'user', id: 'griefer-42' }, 'harassment', null],
      ['player-3-01', { type: 'user', id: 'griefer-42' }, 'spam', 'gold seller links in trade chat'],
      ['player-4-02', { type: 'group', id: groups[6].id }, 'offensive_name', 'the old name of this guild was a slur'],
      ['player-5-04', { type: 'user', id: 'cheater-7' }, 'cheating', 'teleporting between nodes'],
    ];
    for (const [reporterUserId, subject, category, message] of reports) await api('POST', '/v1/reports', { reporterUserId, subject, category, message });
    await open(`#/games/${game.id}/reports`);
    await shot('reports');

    // Operators, each acting within their role: what the Operators page and the operator audit show.
    const operators = {};
    for (const [name, role] of [['Ana (support)', 'viewer'], ['Milo (community)', 'moderator'], ['Ada (live ops)', 'admin']]) {
      operators[role] = await call('POST', '/v1/admin/operators', { name, role }, TOKEN);
    }
    const as = (role, method, path, body) => call(method, path, body, operators[role].token);
    const gameAdmin = `/v1/admin/games/${game.id}`;
    await as('admin', 'POST', `${gameAdmin}/api-keys`);
    await as('moderator', 'POST', `${gameAdmin}/groups/${groups[1].id}/members/player-1-02/kick`, { reason: 'spamming the guild chat' });
    await as('moderator', 'POST', `${gameAdmin}/bans`, { userId: 'player-3-07', reason: 'speed hack', expiresAt: new Date(Date.now() + 3 * 86_400_000).toISOString() });
    await as('moderator', 'POST', `${gameAdmin}/groups/${groups[2].id}/bans`, { userId: 'player-2-04', reason: 'griefing' });
    await open(`#/games/${game.id}/groups/${groups[1].id}`);
    await page.getByRole('button', { name: 'Kick ava' }).click();
    await page.getByRole('dialog').getByLabel('Reason').fill('impersonating a moderator');
    await shot('group-kick');
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
    await open('#/operators');
    await page.getByRole('button', { name: 'Add an operator' }).click();
    await page.getByRole('dialog').getByLabel('Name').fill('Nico (night shift)');
    await page.getByRole('dialog').getByLabel('Role').selectOption('moderator');
    await page.getByRole('dialog').getByRole('button', { name: 'Add the operator' }).click();
    await page.getByTestId('operator-token').waitFor();
    await shot('operators');
    await open('#/operator-audit');
    await shot('operator-audit');
  } finally {
    await browser?.close();
    if (server) await stopNode(server);
    hooks.close();
    await db.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
