import { whenUnauthorised } from './api';
import { fill, h } from './dom';
import { auditPage } from './pages/audit';
import { bansPage } from './pages/bans';
import { gamePage } from './pages/game';
import { gamesPage } from './pages/games';
import { groupPage } from './pages/group';
import { groupsPage } from './pages/groups';
import { livePage } from './pages/live';
import { signInPage } from './pages/sign-in';
import { userPage } from './pages/user';
import { webhooksPage } from './pages/webhooks';
import { currentRoute, go, href, type Route } from './router';
import { session } from './session';
import type { PageContext } from './page';

type Page = (ctx: PageContext) => void | Promise<void>;

/** The pages of one game, in the order of its navigation. */
const GAME_PAGES: Array<[segment: string, label: string, page: Page]> = [
  ['', 'Overview', gamePage],
  ['groups', 'Groups', groupsPage],
  ['live', 'Live', livePage],
  ['webhooks', 'Webhooks', webhooksPage],
  ['audit', 'Audit', auditPage],
  ['bans', 'Bans', bansPage],
];

const main = document.getElementById('main') as HTMLElement;
const topNav = document.getElementById('top-nav') as HTMLElement;
const gameNav = document.getElementById('game-nav') as HTMLElement;
let leaving = new AbortController();
let firstRender = true;

function pageFor(route: Route): { page: Page; params: Record<string, string>; section?: string } | null {
  const [root, gameId, segment = '', id] = route.path;
  if (root !== 'games') return null;
  if (!gameId) return { page: gamesPage, params: {} };
  if (segment === 'groups' && id) return { page: groupPage, params: { gameId, groupId: id }, section: 'groups' };
  // A user's page (not in the navigation): reached from members, bans, audit entries and Find a user.
  if (segment === 'users') return { page: userPage, params: { gameId, ...(id ? { userId: id } : {}) }, section: 'users' };
  const found = GAME_PAGES.find(([s]) => s === segment);
  return found ? { page: found[2], params: { gameId, ...(id ? { id } : {}) }, section: segment } : null;
}

function renderNav(gameId: string | undefined, section: string | undefined): void {
  fill(
    topNav,
    h('a', { href: '#/games', 'aria-current': gameId ? undefined : 'page' }, 'Games'),
    h('button', { type: 'button', class: 'link', onclick: signOut }, 'Sign out'),
  );
  if (!gameId) return fill(gameNav);
  fill(
    gameNav,
    h(
      'ul',
      {},
      GAME_PAGES.map(([segment, label]) =>
        h('li', {}, h('a', { href: href(['games', gameId, ...(segment ? [segment] : [])]), 'aria-current': section === segment ? 'page' : undefined }, label)),
      ),
    ),
  );
}

async function render(): Promise<void> {
  leaving.abort();
  leaving = new AbortController();
  const route = currentRoute();
  if (!session.token()) {
    fill(topNav);
    fill(gameNav);
    return signInPage({ main, route, params: {}, signal: leaving.signal, rerender: render });
  }
  const found = pageFor(route);
  if (!found) return go('#/games');
  renderNav(found.params.gameId, found.section);
  fill(main);
  await found.page({ main, route, params: found.params, signal: leaving.signal, rerender: render });
  // After navigating, keyboard and screen-reader users land on the new page's heading; on the first
  // load focus stays at the top, where the skip link is.
  if (!firstRender && !main.contains(document.activeElement)) main.querySelector<HTMLElement>('h1')?.focus({ preventScroll: true });
  firstRender = false;
}

function signOut(): void {
  session.signOut();
  location.hash = '#/games';
  void render();
}

whenUnauthorised(() => {
  session.signOut();
  void render();
});
window.addEventListener('hashchange', () => void render());
// The skip link targets an element, not a route: move focus without touching the fragment.
document.querySelector('a.skip')?.addEventListener('click', (event) => {
  event.preventDefault();
  main.focus();
});
void render();
