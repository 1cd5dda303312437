import { api, type Query } from '../api';
import { chart } from '../charts';
import { field, h } from '../dom';
import { count } from '../format';
import type { PageContext } from '../page';
import { go, hrefWith } from '../router';
import type { Activity, Churn, Growth, PermissionUsage, RoleDistribution } from '../types';
import { empty, labelled, load, select } from '../ui';

const PRESETS: Array<[value: string, label: string, days: number | null]> = [
  ['1', 'Last 24 hours', 1],
  ['7', 'Last 7 days', 7],
  ['30', 'Last 30 days', 30],
  ['90', 'Last 90 days', 90],
  ['365', 'Last year', 365],
  ['all', 'All time', null],
];
const DAY_MS = 86_400_000;
const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/** The window the range form asks for: explicit dates win over the preset. */
function windowOf(query: URLSearchParams): { from?: string; to?: string; growthFrom: string; growthTo?: string } {
  const preset = PRESETS.find(([v]) => v === (query.get('range') ?? '30')) ?? PRESETS[2];
  const to = query.get('to') || undefined;
  const end = to ? new Date(to).getTime() : Date.now();
  const from = query.get('from') || (preset[2] === null ? undefined : new Date(end - preset[2] * DAY_MS).toISOString());
  // Growth always needs a window; "all time" shows its widest useful one, a year.
  return { from, to, growthFrom: from ?? new Date(end - 365 * DAY_MS).toISOString(), growthTo: to };
}

/** The five analytics of a game as charts, over the range the form sets. */
export function analyticsSection({ params, route, signal }: PageContext): HTMLElement {
  const base = `/v1/admin/games/${params.gameId}/analytics`;
  const q = route.query;
  const w = windowOf(q);
  const topN = q.get('topN') ?? '5';
  const window: Query = { from: w.from, to: w.to };

  const form: HTMLFormElement = h(
    'form',
    {
      class: 'inline filters',
      onsubmit: (event: Event) => {
        event.preventDefault();
        go(hrefWith(route, { range: field(form, 'range'), from: field(form, 'from'), to: field(form, 'to'), topN: field(form, 'topN') }));
      },
    },
    labelled('Range', select('range', PRESETS.map(([v, l]) => [v, l]), q.get('range') ?? '30')),
    labelled('From (UTC date)', h('input', { type: 'date', name: 'from', value: (q.get('from') ?? '').slice(0, 10) }), 'overrides the range'),
    labelled('To (UTC date)', h('input', { type: 'date', name: 'to', value: (q.get('to') ?? '').slice(0, 10) })),
    labelled('Top groups', select('topN', Array.from({ length: 10 }, (_, i) => [String(i + 1), String(i + 1)]), topN)),
    h('button', { type: 'submit' }, 'Apply'),
  );

  const slot = (id: string) => h('div', { class: 'chart-slot', id: `${id}-slot` });
  const churn = slot('churn');
  const growth = slot('growth');
  const activity = slot('activity');
  const roles = slot('roles');
  const permissions = slot('permissions');

  void load(churn, async () => {
    const c = await api<Churn>(`${base}/group-churn`, { query: window, signal });
    return chart({
      id: 'chart-churn', kind: 'bars', title: 'Member churn',
      summary: `${count(c.totalDeparturesInWindow)} departures from ${count(c.totalGroupsInWindow)} groups created in the range, by how long the member had stayed`,
      x: c.bins.map((b) => b.label), xLabel: 'Time in the group', series: [{ label: 'Departures', values: c.bins.map((b) => b.count) }],
    }, signal);
  }, 'Loading churn');

  void load(growth, async () => {
    const g = await api<Growth>(`${base}/group-growth`, { query: { from: w.growthFrom, to: w.growthTo, topN }, signal });
    if (g.series.length === 0) return empty('No groups yet.');
    return chart({
      id: 'chart-growth', kind: 'lines', time: true, title: 'Group growth',
      summary: `active members of the ${g.series.length - 1} largest groups and all others, every ${hours(g.bucketSizeMs)}`,
      x: g.buckets.map((b) => Date.parse(b) / 1000), xLabel: 'Time', series: g.series.map((s) => ({ label: s.name, values: s.data })),
    }, signal);
  }, 'Loading growth');

  void load(activity, async () => {
    const a = await api<Activity>(`${base}/member-activity`, { query: window, signal });
    return chart({
      id: 'chart-activity', kind: 'lines', title: 'Member activity',
      summary: `${count(a.totalEvents)} audit entries of the game's groups by UTC hour, one line per weekday`,
      x: Array.from({ length: 24 }, (_, i) => `${String(i).padStart(2, '0')}:00`), xLabel: 'Hour (UTC)',
      series: a.cells.map((hoursOfDay, day) => ({ label: WEEKDAYS[day], values: hoursOfDay })),
    }, signal);
  }, 'Loading activity');

  void load(roles, async () => {
    const r = await api<RoleDistribution>(`${base}/role-distribution`, { signal });
    if (r.topRoles.length === 0) return empty('No role is assigned to an active member.');
    const rows = r.otherCount > 0 ? [...r.topRoles, { name: 'others', count: r.otherCount }] : r.topRoles;
    return chart({
      id: 'chart-roles', kind: 'bars', title: 'Role distribution',
      summary: `${count(r.totalAssignments)} assignments to active members over ${count(r.uniqueRoleNames)} role names`,
      x: rows.map((x) => x.name), xLabel: 'Role', series: [{ label: 'Assignments', values: rows.map((x) => x.count) }],
    }, signal);
  }, 'Loading roles');

  void load(permissions, async () => {
    const p = await api<PermissionUsage>(`${base}/permission-usage`, { signal });
    if (p.items.length === 0) return empty('No permission is granted yet.');
    return chart({
      id: 'chart-permissions', kind: 'bars', title: 'Permission usage',
      summary: `${count(p.totalCount)} grants and overrides of ${count(p.uniqueKeys)} permission keys${p.otherCount ? `, ${count(p.otherCount)} beyond the top 15` : ''}`,
      x: p.items.map((i) => i.permission), xLabel: 'Permission',
      series: [
        { label: 'Role grants', values: p.items.map((i) => i.roleGrants) },
        { label: 'Member overrides', values: p.items.map((i) => i.memberOverrides) },
      ],
    }, signal);
  }, 'Loading permissions');

  return h(
    'section',
    { class: 'block', 'aria-labelledby': 'analytics-h' },
    h('h2', { id: 'analytics-h' }, 'Analytics'),
    form,
    h('div', { class: 'charts' }, churn, growth, activity, roles, permissions),
  );
}

const hours = (ms: number) => (ms >= DAY_MS ? `${ms / DAY_MS} d` : `${ms / 3_600_000} h`);
