import type { Route } from './router';

/** What a page is given: where to render, its route and parameters, and when it is left. */
export interface PageContext {
  main: HTMLElement;
  route: Route;
  params: Record<string, string>;
  /** Aborted when the user navigates away: pending loads and live streams stop. */
  signal: AbortSignal;
  rerender: () => Promise<void>;
}
