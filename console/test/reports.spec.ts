import type { Page } from 'playwright-core';
import { newGame } from '../../test/helpers/test-app';
import { startRig, type ConsoleRig } from './rig';
import { gameApi, inBatches } from './seed';

/**
 * The Reports page (EXTENSIONS X10), one role at a time in a real browser against the real
 * service: hidden below moderator, the queue ranked by distinct reporters and paged, a subject's
 * open reports resolved through the confirmation (a report closed meanwhile shows its 409), the
 * queue following, and the jump to where the subject is moderated.
 */
let rig: ConsoleRig<'viewer' | 'moderator'>;
let base: string;
let tokens: ConsoleRig<'viewer' | 'moderator'>['tokens'];
let moderatorId: string;
let gameId: string;
let game: ReturnType<typeof gameApi>;
let owls: string;

const rootCall = <T>(method: string, path: string, body?: unknown): Promise<T> => rig.rootCall<T>(method, path, body);
const signedIn = (token: string): Promise<Page> => rig.signedIn(token);

beforeAll(async () => {
  rig = await startRig(['viewer', 'moderator'], 'reports');
  ({ base, tokens } = rig);
  moderatorId = rig.ids.moderator;
  const g = await newGame(rig.t, 'Ember Reach');
  gameId = g.gameId;
  game = gameApi(base, g.key);
  owls = (await game.group('Night Owls')).id;
  // Night Owls: three reporters; griefer: two; the group leads the queue until its reports are closed.
  await game.report('ann', { type: 'group', id: owls }, 'offensive_name', 'the name is a slur');
  await game.report('bob', { type: 'group', id: owls }, 'spam');
  await game.report('cat', { type: 'group', id: owls }, 'offensive_name');
  await game.report('ann', { type: 'user', id: 'griefer' }, 'cheating', 'flies through walls');
  await game.report('dan', { type: 'user', id: 'griefer' }, 'harassment');
});
afterAll(() => rig?.stop());
// No request leaves the service's origin, and no token travels in a URL.
afterEach(() => rig.checkRequests());

const open = async (page: Page, route: string, heading: string): Promise<void> => {
  await page.goto(`${base}/console/#${route}`);
  await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
  await settled(page);
};
const settled = (page: Page) => page.waitForFunction(() => !document.querySelector('[aria-busy]'));

/** The rows of a table, each as its cells' text. */
const rowsOf = (p: Page, name: string): Promise<string[][]> =>
  p.getByRole('table', { name, exact: true }).locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td, th')].map((c) => (c.textContent ?? '').replace(/\s+/g, ' ').trim())));
/** The queue as subject, reporters and open reports. */
const queue = async (p: Page) => (await rowsOf(p, 'Reported subjects')).map(([subject, reporters, open]) => [subject, reporters, open]);
const gameNav = (p: Page) => p.getByRole('navigation', { name: 'Game' });

describe('the Reports page', () => {
  it('viewer: has no Reports in the navigation, and its address leads back to Games', async () => {
    const page = await signedIn(tokens.viewer);
    await open(page, `/games/${gameId}`, 'Ember Reach');
    await gameNav(page).getByRole('link', { name: 'Bans' }).waitFor();
    expect(await gameNav(page).getByRole('link', { name: 'Reports' }).count()).toBe(0);
    await page.goto(`${base}/console/#/games/${gameId}/reports`);
    await page.getByRole('heading', { name: 'Games', level: 1 }).waitFor();
  });

  it('moderator: ranks the queue by reporters, resolves a subject’s reports with a note, and jumps to the group', async () => {
    const page = await signedIn(tokens.moderator);
    await open(page, `/games/${gameId}`, 'Ember Reach');
    await gameNav(page).getByRole('link', { name: 'Reports' }).click();
    await page.getByRole('heading', { name: 'Reports', level: 1 }).waitFor();
    await settled(page);
    await expect(queue(page)).resolves.toEqual([
      [`group ${owls}`, '3', '3'],
      ['user griefer', '2', '2'],
    ]);
    const categories = page.getByRole('table', { name: 'Reported subjects' }).locator('tbody tr').first().locator('td').nth(3).locator('.badge');
    await expect(categories.allTextContents()).resolves.toEqual(['offensive name', 'spam']);

    // The group's three open reports, newest first.
    await page.getByRole('table', { name: 'Reported subjects' }).getByRole('link', { name: owls }).click();
    await page.getByRole('heading', { name: 'Reports on the group Night Owls' }).waitFor();
    await settled(page);
    expect((await rowsOf(page, 'Open reports')).map((r) => r.slice(0, 3))).toEqual([
      ['cat', 'offensive name', '—'],
      ['bob', 'spam', '—'],
      ['ann', 'offensive name', 'the name is a slur'],
    ]);

    // Nothing is sent before the dialog's button; then the report leaves, and the queue follows.
    await page.getByRole('button', { name: 'Resolve the report of bob' }).click();
    const resolve = page.getByRole('dialog', { name: 'Resolve this report?' });
    await resolve.getByRole('button', { name: 'Cancel' }).click();
    await expect(rootCall<{ items: unknown[] }>('GET', `/v1/admin/games/${gameId}/reports?status=resolved`)).resolves.toMatchObject({ items: [] });
    await page.getByRole('button', { name: 'Resolve the report of bob' }).click();
    await resolve.getByLabel('Note').fill('ad for a gold seller, not the group’s doing');
    await resolve.getByRole('button', { name: 'Resolve the report' }).click();
    await page.getByRole('status').filter({ hasText: 'Resolved the report of bob as dismissed.' }).waitFor();
    await settled(page);
    expect((await rowsOf(page, 'Open reports')).map((r) => r[0])).toEqual(['cat', 'ann']);
    // Two reporters each now: their order is the service's tie-break.
    expect((await queue(page)).sort()).toEqual([
      [`group ${owls}`, '2', '2'],
      ['user griefer', '2', '2'],
    ]);

    await page.getByRole('button', { name: 'Resolve the report of cat' }).click();
    await resolve.getByLabel('Resolution').selectOption('actioned');
    await resolve.getByLabel('Note').fill('renamed the group');
    await resolve.getByRole('button', { name: 'Resolve the report' }).click();
    await page.getByRole('status').filter({ hasText: 'Resolved the report of cat as actioned.' }).waitFor();
    await settled(page);
    await expect(queue(page)).resolves.toEqual([
      ['user griefer', '2', '2'],
      [`group ${owls}`, '1', '1'],
    ]);
    const resolved = await rootCall<{ items: Array<{ reporterUserId: string; resolution: string; resolutionNote: string }> }>('GET', `/v1/admin/games/${gameId}/reports?status=resolved`);
    expect(resolved.items.map((r) => [r.reporterUserId, r.resolution, r.resolutionNote])).toEqual([
      ['cat', 'actioned', 'renamed the group'],
      ['bob', 'dismissed', 'ad for a gold seller, not the group’s doing'],
    ]);

    // Closed by someone else while shown here: the dialog shows the 409 and stays open.
    const ann = await rootCall<{ items: Array<{ id: string; reporterUserId: string }> }>('GET', `/v1/admin/games/${gameId}/reports?status=open&subjectType=group`);
    await rootCall('POST', `/v1/admin/games/${gameId}/reports/${ann.items[0].id}/resolve`, { resolution: 'dismissed' });
    await page.getByRole('button', { name: 'Resolve the report of ann' }).click();
    await resolve.getByRole('button', { name: 'Resolve the report' }).click();
    await resolve.getByRole('alert').getByText('409 report_closed').waitFor();
    await resolve.getByRole('alert').getByText('this report was already resolved: dismissed').waitFor();
    await resolve.getByRole('button', { name: 'Cancel' }).click();

    // Only the moderator's two resolutions are theirs in the operator audit.
    const audit = await rootCall<{ items: Array<{ action: string }> }>('GET', `/v1/admin/operator-audit?operatorId=${moderatorId}`);
    expect(audit.items.map((e) => e.action)).toEqual(['report.resolved', 'report.resolved']);

    // From the subject to its group's page, where the kicks and bans are.
    await page.getByRole('region', { name: 'Reports on the group Night Owls' }).getByRole('link', { name: 'Open the group' }).click();
    await page.getByRole('heading', { name: 'Night Owls', level: 1 }).waitFor();
    await page.goBack();
    await page.getByRole('heading', { name: 'Reports on the group Night Owls' }).waitFor();
    await settled(page);
    await page.getByText('No open reports on this subject.').waitFor();
    await expect(queue(page)).resolves.toEqual([['user griefer', '2', '2']]);

    // And from the queue to a reported player's page.
    await page.getByRole('table', { name: 'Reported subjects' }).getByRole('link', { name: 'Open the player' }).click();
    await page.getByRole('heading', { name: 'griefer', level: 1 }).waitFor();
  });

  it('moderator: pages through a queue longer than a page', async () => {
    const g = await newGame(rig.t, 'Crowded Reach');
    const crowded = gameApi(base, g.key);
    const players = Array.from({ length: 52 }, (_, i) => `p${String(i).padStart(2, '0')}`);
    // p00 is reported by two, every other player by one: p00 leads the first page. One reporter
    // each, as a reporter may file 20 reports an hour.
    await inBatches(players, 8, (p) => crowded.report(`watcher-${p}`, { type: 'user', id: p }, 'spam'));
    await crowded.report('witness', { type: 'user', id: 'p00' }, 'cheating');
    const page = await signedIn(tokens.moderator);
    await open(page, `/games/${g.gameId}/reports`, 'Reports');
    const first = await queue(page);
    expect(first).toHaveLength(50);
    expect(first[0]).toEqual(['user p00', '2', '2']);
    const pager = page.getByRole('navigation', { name: 'Queue pages' });
    await pager.getByRole('link', { name: 'Next →' }).click();
    await page.waitForFunction(() => !document.querySelector('[aria-busy]') && document.querySelectorAll('section[aria-label="Reported subjects"] tbody tr').length === 2);
    const second = await queue(page);
    expect(new Set([...first, ...second].map((r) => r[0]))).toEqual(new Set(players.map((p) => `user ${p}`)));
    expect(await pager.getByRole('link', { name: 'Next →' }).count()).toBe(0);
    await pager.getByRole('link', { name: '⇤ Most reported' }).click();
    await page.waitForFunction(() => !document.querySelector('[aria-busy]') && document.querySelectorAll('section[aria-label="Reported subjects"] tbody tr').length === 50);
  });
});
