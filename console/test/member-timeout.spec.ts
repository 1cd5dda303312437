import type { Page } from 'playwright-core';
import { newGame } from '../../test/helpers/test-app';
import { startRig, type ConsoleRig } from './rig';
import { gameApi } from './seed';

/**
 * A member's timeout (EXTENSIONS X10) on their page, one role at a time in a real browser against
 * the real service: everyone sees when the one in force ends; a moderator times out for a duration
 * and lifts, each through its confirmation, and a refusal (400, 409) shows its envelope.
 */
let rig: ConsoleRig<'viewer' | 'moderator'>;
let base: string;
let tokens: ConsoleRig<'viewer' | 'moderator'>['tokens'];
let moderatorId: string;
let gameId: string;
let game: ReturnType<typeof gameApi>;
let guild: string;

const rootCall = <T>(method: string, path: string, body?: unknown): Promise<T> => rig.rootCall<T>(method, path, body);
const signedIn = (token: string): Promise<Page> => rig.signedIn(token);

beforeAll(async () => {
  rig = await startRig(['viewer', 'moderator'], 'timeouts');
  ({ base, tokens } = rig);
  moderatorId = rig.ids.moderator;
  const g = await newGame(rig.t, 'Timeout Isles');
  gameId = g.gameId;
  game = gameApi(base, g.key);
  guild = (await game.group('Knights of Dawn')).id;
  for (const userId of ['ann', 'bob', 'cat']) await game.join(guild, userId);
});
afterAll(() => rig?.stop());
// No request leaves the service's origin, and no token travels in a URL.
afterEach(() => rig.checkRequests());

const openMember = async (page: Page, userId: string): Promise<void> => {
  await page.goto(`${base}/console/#/games/${gameId}/groups/${guild}/members/${userId}`);
  await page.getByRole('heading', { name: `${userId} in Knights of Dawn`, level: 1 }).waitFor();
  await page.waitForFunction(() => !document.querySelector('[aria-busy]'));
};

const timedOutUntil = async (userId: string) =>
  (await game.call<{ timedOutUntil: string | null }>('GET', `/v1/groups/${guild}/members/${userId}`)).timedOutUntil;
const UNTIL = /^timed out until .*\d{4}, \d{1,2}:\d{2}/;

describe('a member’s timeout in the console', () => {
  it('viewer: sees when a timeout ends, and neither Time out nor Lift timeout', async () => {
    await game.call('POST', `/v1/groups/${guild}/members/bob/timeout`, { duration: '1h' });
    const page = await signedIn(tokens.viewer);
    await openMember(page, 'bob');
    await expect(page.getByTestId('timeout').textContent()).resolves.toMatch(UNTIL);
    await openMember(page, 'ann');
    await page.getByText('No timeout in force.').waitFor();
    expect(await page.getByRole('button', { name: /Time out|Lift timeout/ }).count()).toBe(0);
    await openMember(page, 'bob');
    expect(await page.getByRole('button', { name: /Time out|Lift timeout/ }).count()).toBe(0);
  });

  it('moderator: times out for a duration after confirming, the page shows the end, and lifts it', async () => {
    const page = await signedIn(tokens.moderator);
    await openMember(page, 'ann');
    await page.getByText('No timeout in force.').waitFor();
    expect(await page.getByRole('button', { name: 'Lift timeout' }).count()).toBe(0);

    // Cancelled: nothing is sent. Over 28 days: the 400's message, in the dialog, which stays open.
    await page.getByRole('button', { name: 'Time out', exact: true }).click();
    const timeout = page.getByRole('dialog', { name: 'Time out this member?' });
    await timeout.getByRole('button', { name: 'Cancel' }).click();
    expect(await timedOutUntil('ann')).toBeNull();
    await page.getByRole('button', { name: 'Time out', exact: true }).click();
    await timeout.getByLabel('Duration').fill('29d');
    await timeout.getByRole('button', { name: 'Time out ann' }).click();
    await timeout.getByRole('alert').getByText('400 bad_request').waitFor();
    await timeout.getByRole('alert').getByText('duration must be at most 28d').waitFor();
    await timeout.getByLabel('Duration').fill('2h');
    await timeout.getByLabel('Reason').fill('spamming the guild chat');
    await timeout.getByRole('button', { name: 'Time out ann' }).click();
    await page.getByRole('status').filter({ hasText: 'Timed out ann for 2h.' }).waitFor();
    await expect(page.getByTestId('timeout').textContent()).resolves.toMatch(UNTIL);
    const until = Date.parse((await timedOutUntil('ann'))!) - Date.now();
    expect(until > 119 * 60_000 && until <= 120 * 60_000).toBe(true);

    await page.getByRole('button', { name: 'Lift timeout' }).click();
    const lift = page.getByRole('dialog', { name: 'Lift this timeout?' });
    await lift.getByLabel('Reason').fill('apologised');
    await lift.getByRole('button', { name: 'Lift the timeout of ann' }).click();
    await page.getByRole('status').filter({ hasText: 'Lifted the timeout of ann.' }).waitFor();
    await page.getByText('No timeout in force.').waitFor();
    expect(await page.getByRole('button', { name: 'Lift timeout' }).count()).toBe(0);
    expect(await timedOutUntil('ann')).toBeNull();

    const audit = await rootCall<{ items: Array<{ action: string; details: Record<string, unknown> }> }>('GET', `/v1/admin/operator-audit?operatorId=${moderatorId}`);
    expect(audit.items.map((e) => [e.action, e.details.reason])).toEqual([
      ['member.timeout_lifted', 'apologised'],
      ['member.timed_out', 'spamming the guild chat'],
    ]);
  });

  it('moderator: a member gone meanwhile shows the 409 in the dialog', async () => {
    const page = await signedIn(tokens.moderator);
    await openMember(page, 'cat');
    await game.call('POST', `/v1/groups/${guild}/members/cat/kick`, {});
    await page.getByRole('button', { name: 'Time out', exact: true }).click();
    const timeout = page.getByRole('dialog', { name: 'Time out this member?' });
    await timeout.getByLabel('Duration').fill('10m');
    await timeout.getByRole('button', { name: 'Time out cat' }).click();
    await timeout.getByRole('alert').getByText('409 not_a_member').waitFor();
    await timeout.getByRole('alert').getByText('cat is not an active member of this group').waitFor();
  });
});
