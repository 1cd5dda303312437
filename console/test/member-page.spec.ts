import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { ADMIN_TOKEN, newGame, startTestApp, type TestApp } from '../../test/helpers/test-app';
import { launch, recordedPage, signIn } from './browser';
import { gameApi } from './seed';

/**
 * A member's page (#/games/:gameId/groups/:groupId/members/:userId), in a real browser against the
 * real service: the roles with their expiry, the effective permissions with where each comes from
 * and until when, and the form that gives a role for a time (EXTENSIONS X8).
 */
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
  await signIn(page, base, ADMIN_TOKEN);
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});
afterEach(() => {
  expect(requested.filter((url) => !url.startsWith(`${base}/`) && !url.startsWith('data:'))).toEqual([]);
  expect(requested.filter((url) => url.includes(ADMIN_TOKEN))).toEqual([]);
});

/** The rows of a table, each as its cells' text. */
const rowsOf = (p: Page, name: string): Promise<string[][]> =>
  p.getByRole('table', { name }).locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td, th')].map((c) => (c.textContent ?? '').replace(/\s+/g, ' ').trim())));
const DATE = expect.stringMatching(/\d{4}, \d{1,2}:\d{2}/);

describe('member page', () => {
  it('shows where each permission comes from and its expiry, and gives a role for a time', async () => {
    const { gameId, key } = await newGame(t, 'Member page');
    const game = gameApi(base, key);
    const guild = await game.group('Knights of Dawn');
    await game.join(guild.id, 'ann');
    const officer = await game.role(guild.id, 'Officer', 10);
    const scout = await game.role(guild.id, 'Scout', 1);
    await game.grant(officer.id, 'guild.kick');
    await game.grant(scout.id, 'guild.invite');
    await game.grant(scout.id, 'raid.lead');
    await game.assign(guild.id, 'ann', officer.id);
    await game.call('POST', `/v1/groups/${guild.id}/members/ann/permissions/guild.bank`, { allowed: true, expiresIn: '2h' });
    await game.call('POST', `/v1/groups/${guild.id}/members/ann/permissions/raid.lead`, { allowed: false });

    // Reached from the group's members.
    await page.goto(`${base}/console/#/games/${gameId}/groups/${guild.id}`);
    await page.getByRole('table', { name: 'Members' }).getByRole('link', { name: 'Permissions of ann' }).click();
    await page.getByRole('heading', { name: 'ann in Knights of Dawn', level: 1 }).waitFor();
    expect(await rowsOf(page, 'Roles')).toEqual([['Officer', 'never']]);
    expect(await rowsOf(page, 'Effective permissions')).toEqual([
      ['guild.bank', 'override', DATE],
      ['guild.kick', 'role Officer', 'never'],
    ]);

    // Scout for a week: its keys join the list with the assignment's expiry; the denied key stays out.
    await page.getByRole('form', { name: 'Give a role' }).getByLabel('Role').selectOption({ label: 'Scout' });
    await page.getByLabel('Expires in').fill('7d');
    await page.getByRole('button', { name: 'Give the role' }).click();
    await page.getByRole('status').filter({ hasText: 'Gave Scout for 7d.' }).waitFor();
    await page.getByRole('table', { name: 'Roles' }).getByText('Scout').waitFor();
    expect(await rowsOf(page, 'Roles')).toEqual([
      ['Officer', 'never'],
      ['Scout', DATE],
    ]);
    expect(await rowsOf(page, 'Effective permissions')).toEqual([
      ['guild.bank', 'override', DATE],
      ['guild.invite', 'role Scout', DATE],
      ['guild.kick', 'role Officer', 'never'],
    ]);

    // What the service now holds: the assignment with its expiry, and the operator audit's entry.
    const member = await game.call<{ roleGrants: { roleId: string; expiresAt: string | null }[] }>('GET', `/v1/groups/${guild.id}/members/ann`);
    const week = Date.parse(member.roleGrants[1].expiresAt!) - Date.now();
    expect(member.roleGrants[1].roleId).toBe(scout.id);
    expect(week > 6 * 86_400_000 && week <= 7 * 86_400_000).toBe(true);

    // A bad expiry shows the error envelope's code, and gives nothing.
    await page.getByLabel('Expires in').fill('400d');
    await page.getByRole('button', { name: 'Give the role' }).click();
    await page.getByText('bad_request').first().waitFor();
  });
});
