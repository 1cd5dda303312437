import { chromium, type Browser, type Page } from 'playwright-core';

/** Debian's Chromium (CI installs it with apt-get); Playwright downloads no browser. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export function launch(): Promise<Browser> {
  // --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start.
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
}

/** A page that records every URL it requests, to check none leaves the origin or carries the token. */
export async function recordedPage(browser: Browser): Promise<{ page: Page; requested: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const requested: string[] = [];
  page.on('request', (r) => requested.push(r.url()));
  return { page, requested };
}

/** Signs in on the console's form, as an operator does. */
export async function signIn(page: Page, base: string, token: string): Promise<void> {
  await page.goto(`${base}/console/`);
  await page.getByLabel('Admin token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Games', level: 1 }).waitFor();
}
