import { can, operator, setOperator } from './access';
import { api, whenUnauthorised } from './api';
import { fill, h } from './dom';
import { auditPage } from './pages/audit';
import { bansPage } from './pages/bans';
import { gamePage } from './pages/game';
import { gamesPage } from './pages/games';
import { groupPage } from './pages/group';
import { groupsPage } from './pages/groups';
import { livePage } from './pages/live';
import { memberPage } from './pages/member';
import { operatorAuditPage } from './pages/operator-audit';
import { operatorsPage } from './pages/operators';
import { reportsPage } from './pages/reports';
import { signInPage } from './pages/sign-in';
import { userPage } from './pages/user';
import { webhooksPage } from './pages/webhooks';
import { currentRoute, go, href, type Route } from './router';
import { session } from './session';
import type { PageContext } from './page';
import type { Whoami } from './types';
import { badge, errorBox, takeFlash } from './ui';

type Page = (ctx: PageContext) => void | Promise<void>;

/** The pages of one game, in the order of its navigation, each shown only to who may read it. */
const GAME_PAGES: Array<[segment: string, label: string, page: Page, shown: () => boolean]> = [
  ['', 'Overview', gamePage, () => true],
  ['groups', 'Groups', groupsPage, () => true],
  ['live', 'Live', livePage, () => true],
  ['webhooks', 'Webhooks', webhooksPage, () => true],
  ['audit', 'Audit', auditPage, () => true],
  ['bans', 'Bans', bansPage, () => true],
  ['reports', 'Reports', reportsPage, () => can('listReports')],
];

const main = document.getElementById('main') as HTMLElement;
const topNav = document.getElementById('top-nav') as HTMLElement;
const gameNav = document.getElementById('game-nav') as HTMLElement;
let leaving = new AbortController();
let firstRender = true;

/** The console's own pages, beside the games: in the top navigation, each shown only to who may read it. */
const TOP_PAGES: Array<[root: string, label: string, page: Page, shown: () => boolean]> = [
  ['operator-audit', 'Operator audit', operatorAuditPage, () => true],
  ['operators', 'Operators', operatorsPage, () => can('listOperators')],
];

function pageFor(route: Route): { page: Page; params: Record<string, string>; section?: string; top?: string } | null {
  const [root, gameId, segment = '', id] = route.path;
  const top = TOP_PAGES.find(([r, , , shown]) => r === root && shown());
  if (top) return { page: top[2], params: {}, top: root };
  if (root !== 'games') return null;
  if (!gameId) return { page: gamesPage, params: {} };
  const [, , , , sub, memberId] = route.path;
  if (segment === 'groups' && id && sub === 'members' && memberId) return { page: memberPage, params: { gameId, groupId: id, userId: memberId }, section: 'groups' };
  if (segment === 'groups' && id) return { page: groupPage, params: { gameId, groupId: id }, section: 'groups' };
  // A user's page (not in the navigation): reached from members, bans, audit entries and Find a user.
  if (segment === 'users') return { page: userPage, params: { gameId, ...(id ? { userId: id } : {}) }, section: 'users' };
  const found = GAME_PAGES.find(([s, , , shown]) => s === segment && shown());
  return found ? { page: found[2], params: { gameId, ...(id ? { id } : {}) }, section: segment } : null;
}

function renderNav(gameId: string | undefined, section: string | undefined, top: string | undefined): void {
  const who = operator();
  fill(
    topNav,
    h('a', { href: '#/games', 'aria-current': gameId || top ? undefined : 'page' }, 'Games'),
    TOP_PAGES.filter(([, , , shown]) => shown()).map(([root, label]) => h('a', { href: `#/${root}`, 'aria-current': top === root ? 'page' : undefined }, label)),
    who && h('span', { class: 'who', 'data-testid': 'operator' }, h('span', { class: 'sr-only' }, 'Signed in as '), h('span', { class: 'who-name' }, who.name), ' ', badge(who.role)),
    h('button', { type: 'button', class: 'link', onclick: signOut }, 'Sign out'),
  );
  if (!gameId) return fill(gameNav);
  fill(
    gameNav,
    h(
      'ul',
      {},
      GAME_PAGES.filter(([, , , shown]) => shown()).map(([segment, label]) =>
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
  if (!operator() && !(await identify(leaving.signal))) return;
  const found = pageFor(route);
  if (!found) return go('#/games');
  renderNav(found.params.gameId, found.section, found.top);
  fill(main, takeFlash());
  await found.page({ main, route, params: found.params, signal: leaving.signal, rerender: render });
  // After navigating, keyboard and screen-reader users land on the new page's heading; on the first
  // load focus stays at the top, where the skip link is.
  if (!firstRender && !main.contains(document.activeElement)) main.querySelector<HTMLElement>('h1')?.focus({ preventScroll: true });
  firstRender = false;
}

/**
 * Who this tab's token is (once a load: a role changed meanwhile holds from the next load, and the
 * service refuses what is above it anyway). A token refused signs out; any other failure says so.
 */
async function identify(signal: AbortSignal): Promise<boolean> {
  try {
    setOperator(await api<Whoami>('/v1/admin/whoami', { signal }));
    return true;
  } catch (err) {
    if ((err as Error).name === 'AbortError' || !session.token()) return false;
    fill(topNav, h('button', { type: 'button', class: 'link', onclick: signOut }, 'Sign out'));
    fill(gameNav);
    fill(main, errorBox(err), h('p', {}, h('button', { type: 'button', onclick: () => void render() }, 'Try again')));
    return false;
  }
}

function signOut(): void {
  setOperator(null);
  session.signOut();
  location.hash = '#/games';
  void render();
}

whenUnauthorised(() => {
  setOperator(null);
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
