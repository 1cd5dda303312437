import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { ADMIN_TOKEN, startTestApp, type TestApp } from '../../test/helpers/test-app';
import { launch, recordedPage, signIn } from './browser';

/** The service listening, a browser, and one operator of each role a spec signs in as. */
export interface ConsoleRig<R extends string> {
  t: TestApp;
  base: string;
  tokens: Record<R, string>;
  ids: Record<R, string>;
  /** An admin route called with the root token; anything but 2xx throws. */
  rootCall<T>(method: string, path: string, body?: unknown): Promise<T>;
  /** A page of the browser, signed in with `token`, whose requests are recorded. */
  signedIn(token: string): Promise<Page>;
  /** No request of the pages since the last call left the service's origin, and no token travelled in a URL. */
  checkRequests(): void;
  stop(): Promise<void>;
}

/** Starts the service and the browser and makes an operator of each of `roles`, named `<role> of <label>`. */
export async function startRig<R extends string>(roles: readonly R[], label: string): Promise<ConsoleRig<R>> {
  const t = await startTestApp();
  let browser: Browser | undefined;
  try {
    await t.app.listen(0, '127.0.0.1');
    browser = await launch();
    return await rigOn(t, browser, roles, label);
  } catch (err) {
    // No rig comes back to be stopped: what was started is stopped here, or the app's connections
    // would outlive the suite and the run's teardown would crash on them, leaving the embedded
    // cluster's folder behind.
    await browser?.close();
    await t.close();
    throw err;
  }
}

async function rigOn<R extends string>(t: TestApp, browser: Browser, roles: readonly R[], label: string): Promise<ConsoleRig<R>> {
  const base = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
  const pages: Array<{ page: Page; requested: string[] }> = [];
  const rootCall = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  };
  const tokens = {} as Record<R, string>;
  const ids = {} as Record<R, string>;
  for (const role of roles) {
    const created = await rootCall<{ id: string; token: string }>('POST', '/v1/admin/operators', { name: `${role} of ${label}`, role });
    tokens[role] = created.token;
    ids[role] = created.id;
  }
  return {
    t,
    base,
    tokens,
    ids,
    rootCall,
    async signedIn(token) {
      const recorded = await recordedPage(browser);
      pages.push(recorded);
      await signIn(recorded.page, base, token);
      return recorded.page;
    },
    checkRequests() {
      for (const { requested } of pages.splice(0)) {
        expect(requested.filter((url) => !url.startsWith(`${base}/`) && !url.startsWith('data:'))).toEqual([]);
        for (const token of [ADMIN_TOKEN, ...Object.values<string>(tokens)]) expect(requested.filter((url) => url.includes(token))).toEqual([]);
      }
    },
    async stop() {
      await browser.close();
      await t.close();
    },
  };
}
