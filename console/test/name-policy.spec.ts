import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { ADMIN_TOKEN, newGame, startTestApp, type TestApp } from '../../test/helpers/test-app';
import { launch, recordedPage, signIn } from './browser';
import { gameApi } from './seed';

/**
 * The name policy (EXTENSIONS X10) in the console, one role at a time in a real browser against
 * the real service: who is shown the lists and the test box, the test box marking what it finds,
 * an admin saving the lists, and a moderator's rename meeting blocked and reserved words.
 */
let t: TestApp;
let base: string;
let browser: Browser;
const tokens: Record<'viewer' | 'moderator' | 'admin', string> = { viewer: '', moderator: '', admin: '' };
let moderatorId: string;
let gameId: string;
let guild: string;

const rootCall = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
};

beforeAll(async () => {
  t = await startTestApp();
  await t.app.listen(0, '127.0.0.1');
  base = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
  browser = await launch();
  for (const role of Object.keys(tokens) as Array<keyof typeof tokens>) {
    const created = await rootCall<{ id: string; token: string }>('POST', '/v1/admin/operators', { name: `${role} of names`, role });
    tokens[role] = created.token;
    if (role === 'moderator') moderatorId = created.id;
  }
  const g = await newGame(t, 'Ember Isles');
  gameId = g.gameId;
  guild = (await gameApi(base, g.key).group('Night Owls')).id;
  await rootCall('PATCH', `/v1/admin/games/${gameId}/config`, { config: { moderation: { names: { blocked: ['cheatz'], reserved: ['admin', 'staff'] } } } });
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

async function signedIn(token: string): Promise<Page> {
  const { page } = await recordedPage(browser);
  await signIn(page, base, token);
  return page;
}

const open = async (page: Page, route: string, heading: string): Promise<void> => {
  await page.goto(`${base}/console/#${route}`);
  await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
  await page.waitForFunction(() => !document.querySelector('[aria-busy]'));
};

/** Types a name in the test box and waits for the answer to it. */
async function tryName(page: Page, text: string): Promise<string> {
  await page.getByLabel('Try a name').fill(text);
  const result = page.getByTestId('name-test-result');
  await result.getByText(/allowed/).waitFor();
  return (await result.textContent()) ?? '';
}

const marks = (page: Page) =>
  page.getByTestId('name-test-result').locator('mark').evaluateAll((all) => all.map((m) => `${m.textContent}:${m.className}`));

describe('the name policy in the console', () => {
  it('viewer: is shown neither the name policy nor the rename', async () => {
    const page = await signedIn(tokens.viewer);
    await open(page, `/games/${gameId}`, 'Ember Isles');
    await page.getByRole('table', { name: 'API keys' }).waitFor();
    expect(await page.getByRole('heading', { name: 'Name policy' }).count()).toBe(0);
    expect(await page.getByLabel('Try a name').count()).toBe(0);
    await open(page, `/games/${gameId}/groups/${guild}`, 'Night Owls');
    expect(await page.getByRole('button', { name: 'Rename' }).count()).toBe(0);
  });

  it('moderator: reads the lists without saving, tries names as they type, and renames within the policy', async () => {
    const page = await signedIn(tokens.moderator);
    await open(page, `/games/${gameId}`, 'Ember Isles');
    await page.getByRole('heading', { name: 'Name policy' }).waitFor();
    await expect(page.getByLabel('Blocked words').inputValue()).resolves.toBe('cheatz');
    await expect(page.getByLabel('Reserved words').inputValue()).resolves.toBe('admin\nstaff');
    expect(await page.getByLabel('Blocked words').getAttribute('readonly')).toBe('');
    expect(await page.getByRole('button', { name: 'Save the name policy' }).count()).toBe(0);

    expect(await tryName(page, 'The 4dm1n cheatz club')).toContain('not allowed');
    await expect(marks(page)).resolves.toEqual(['4dm1n:reserved', 'cheatz:blocked']);
    expect(await tryName(page, 'Badminton club')).toContain('No blocked or reserved word');
    await expect(marks(page)).resolves.toEqual([]);

    // A blocked word: the dialog shows the refusal and stays open; a reserved word: renamed.
    await open(page, `/games/${gameId}/groups/${guild}`, 'Night Owls');
    await page.getByRole('button', { name: 'Rename' }).click();
    const rename = page.getByRole('dialog', { name: 'Rename this group?' });
    await rename.getByLabel('New name').fill('Ch3atz Owls');
    await rename.getByRole('button', { name: 'Rename the group' }).click();
    await rename.getByRole('alert').getByText('400 name_not_allowed').waitFor();
    await rename.getByLabel('New name').fill('Staff Owls');
    await rename.getByRole('button', { name: 'Rename the group' }).click();
    await page.getByRole('heading', { name: 'Staff Owls', level: 1 }).waitFor();
    await page.getByRole('status').filter({ hasText: 'Renamed Night Owls to Staff Owls.' }).waitFor();
    await expect(rootCall<{ name: string }>('GET', `/v1/admin/games/${gameId}/groups/${guild}`)).resolves.toMatchObject({ name: 'Staff Owls' });
    const audit = await rootCall<{ items: Array<{ action: string }> }>('GET', `/v1/admin/operator-audit?operatorId=${moderatorId}`);
    expect(audit.items.map((e) => e.action)).toEqual(['group.updated']);
  });

  it('admin: saves the lists behind a confirmation, and the test box meets the saved lists', async () => {
    const page = await signedIn(tokens.admin);
    await open(page, `/games/${gameId}`, 'Ember Isles');
    await page.getByLabel('Blocked words').fill('cheatz\n  griefer \n\ncheatz');
    await page.getByLabel('Reserved words').fill('admin\nstaff\nofficial');
    await page.getByRole('button', { name: 'Save the name policy' }).click();
    const save = page.getByRole('dialog', { name: 'Save the name policy?' });
    await save.getByText('2 blocked and 3 reserved words').waitFor();
    await save.getByRole('button', { name: 'Save the name policy' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved the name policy.' }).waitFor();
    const { config } = await rootCall<{ config: { moderation: { names: unknown } } }>('GET', `/v1/admin/games/${gameId}/config`);
    expect(config.moderation.names).toEqual({ blocked: ['cheatz', 'griefer'], reserved: ['admin', 'staff', 'official'] });

    await page.getByRole('heading', { name: 'Name policy' }).waitFor();
    expect(await tryName(page, 'Gr1efer Official')).toContain('not allowed');
    await expect(marks(page)).resolves.toEqual(['Gr1efer:blocked', 'Official:reserved']);
  });
});
