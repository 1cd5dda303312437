import { can } from '../access';
import { api } from '../api';
import { confirmAction } from '../confirm';
import { field, h, type Child } from '../dom';
import { count, when } from '../format';
import type { PageContext } from '../page';
import { href, hrefWith } from '../router';
import type { CursorPage, Group, Report, ReportedSubject, ReportSubject } from '../types';
import { badge, cursorPager, empty, flash, labelled, load, pageHeader, select, table } from '../ui';
import { userHref } from './user';

/** A subject's open reports shown a page: one a reporter at most, so usually all of them. */
const REPORTS_PAGE = 100;

const code = (text: string) => h('code', {}, text);
const category = (c: string) => badge(c.replace(/_/g, ' '));

/** Where the console shows a subject: the group's page or the player's, where kick and ban are. */
const subjectHref = (gameId: string, s: ReportSubject): string => (s.type === 'group' ? href(['games', gameId, 'groups', s.id]) : userHref(gameId, s.id));
const jump = (gameId: string, s: ReportSubject): HTMLElement =>
  h('a', { href: subjectHref(gameId, s) }, s.type === 'group' ? 'Open the group' : 'Open the player');

/**
 * The game's reports queue (EXTENSIONS X10), for moderators and up: the users and groups with open
 * reports, most distinct reporters first, 50 a page; a subject picked from it shows its open
 * reports, each resolved (dismissed or actioned, with a note) after a confirmation.
 */
export async function reportsPage({ main, params, route, signal, rerender }: PageContext): Promise<void> {
  const { gameId } = params;
  const type = route.query.get('subjectType');
  const id = route.query.get('subjectId');
  const picked: ReportSubject | null = (type === 'user' || type === 'group') && id ? { type, id } : null;
  document.title = 'Reports · Guildhall console';
  const queue = h('section', { 'aria-label': 'Reported subjects' });
  const reports = picked && h('section', { 'aria-labelledby': 'subject-reports-h' });
  main.append(pageHeader('Reports', h('p', { class: 'muted' }, 'Users and groups with open reports, most distinct reporters first.')), queue);
  if (reports) main.append(reports);
  await load(queue, async () => {
    const cursor = route.query.get('cursor') ?? '';
    const page = await api<CursorPage<ReportedSubject>>(`/v1/admin/games/${gameId}/reports/subjects`, { query: { status: 'open', cursor }, signal });
    if (page.items.length === 0) return empty(cursor ? 'No more reported subjects.' : 'No open reports.');
    const isPicked = (s: ReportedSubject) => picked !== null && s.subject.type === picked.type && s.subject.id === picked.id;
    return [
      table('Reported subjects', [
        {
          label: 'Subject',
          cell: (s) => [badge(s.subject.type), ' ', h('a', { href: hrefWith(route, { subjectType: s.subject.type, subjectId: s.subject.id }), 'aria-current': isPicked(s) ? 'true' : undefined }, code(s.subject.id))],
        },
        { label: 'Reporters', numeric: true, cell: (s) => count(s.reporters) },
        { label: 'Open reports', numeric: true, cell: (s) => count(s.openReports) },
        { label: 'Categories', cell: (s) => s.categories.map(category) },
        { label: 'First', cell: (s) => when(s.firstAt) },
        { label: 'Latest', cell: (s) => when(s.lastAt) },
        { label: 'Moderate', cell: (s) => jump(gameId, s.subject) },
      ], page.items),
      cursorPager(!cursor, hrefWith(route, { cursor: '' }), page.nextCursor ? hrefWith(route, { cursor: page.nextCursor }) : null, ['⇤ Most reported', 'Next →'], 'Queue pages'),
    ];
  }, 'Loading the reports queue');
  if (!reports || !picked) return;
  const reportsCursor = route.query.get('reportsCursor') ?? '';
  const pager = (page: CursorPage<Report>) =>
    cursorPager(!reportsCursor, hrefWith(route, { reportsCursor: '' }), page.nextCursor ? hrefWith(route, { reportsCursor: page.nextCursor }) : null, ['⇤ Newest', 'Older →'], 'Report pages');
  await load(reports, () => subjectView(gameId, picked, reportsCursor, pager, signal, rerender), 'Loading the subject’s reports');
}

async function subjectView(
  gameId: string,
  s: ReportSubject,
  cursor: string,
  pager: (page: CursorPage<Report>) => Child,
  signal: AbortSignal,
  rerender: () => Promise<void>,
): Promise<Child> {
  const query = { status: 'open', subjectType: s.type, subjectId: s.id, limit: String(REPORTS_PAGE), cursor };
  const [name, page] = await Promise.all([subjectName(gameId, s, signal), api<CursorPage<Report>>(`/v1/admin/games/${gameId}/reports`, { query, signal })]);
  const items = page.items;
  return [
    h('h2', { id: 'subject-reports-h' }, `Reports on ${s.type === 'group' ? 'the group' : 'the player'} `, name),
    h('p', {}, jump(gameId, s), s.type === 'group' ? ': its members, kicks and bans' : ': their memberships and game-wide ban'),
    items.length
      ? table('Open reports', [
          { label: 'Reporter', cell: (r) => (r.reporterUserId === null ? h('span', { class: 'muted' }, 'the service') : h('a', { href: userHref(gameId, r.reporterUserId) }, code(r.reporterUserId))) },
          { label: 'Category', cell: (r) => category(r.category) },
          { label: 'Message', cell: (r) => r.message ?? '—' },
          { label: 'Filed', cell: (r) => when(r.createdAt) },
          ...(can('resolveReport') ? [{ label: 'Actions', cell: (r: Report) => resolveButton(gameId, r, rerender) }] : []),
        ], items)
      : empty('No open reports on this subject.'),
    (cursor || page.nextCursor) && pager(page),
  ];
}

/** A group subject by its name (a deleted or unknown group by its id); a player by their id. */
async function subjectName(gameId: string, s: ReportSubject, signal: AbortSignal): Promise<Child> {
  if (s.type === 'user') return code(s.id);
  const group = await api<Group>(`/v1/admin/games/${gameId}/groups/${encodeURIComponent(s.id)}`, { signal }).catch((err: Error) => {
    if (err.name === 'AbortError') throw err;
    return null;
  });
  return group ? h('strong', {}, group.name) : code(s.id);
}

/** Resolve: dismissed (nothing to act on) or actioned, with an optional note for the audit. */
function resolveButton(gameId: string, r: Report, rerender: () => Promise<void>): HTMLElement {
  const by = r.reporterUserId ?? 'the service';
  return h('button', {
    type: 'button',
    'aria-label': `Resolve the report of ${by}`,
    onclick: async () => {
      const done = await confirmAction({
        title: 'Resolve this report?',
        text: ['The report of ', code(by), ` (${r.category.replace(/_/g, ' ')}) closes and leaves the queue. Resolving changes nothing else: kick, ban or time out from the subject’s page.`],
        confirm: 'Resolve the report',
        tone: 'primary',
        fields: [
          labelled('Resolution', select('resolution', [['dismissed', 'Dismissed: nothing to act on'], ['actioned', 'Actioned: the subject was dealt with']], 'dismissed')),
          labelled('Note', h('textarea', { name: 'note', rows: 3, maxlength: 1000 }), 'optional; the audit log carries it'),
        ],
        run: async (form) => {
          const resolution = field(form, 'resolution');
          const note = field(form, 'note');
          await api<Report>(`/v1/admin/games/${gameId}/reports/${encodeURIComponent(r.id)}/resolve`, { method: 'POST', body: { resolution, ...(note ? { note } : {}) } });
          flash(`Resolved the report of ${by} as ${resolution}.`);
        },
      });
      if (done) await rerender();
    },
  }, 'Resolve');
}
