import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GROUP_EVENT_TYPES, USER_EVENT_TYPES } from './event-types';

const EVENTS_PAGE = join(__dirname, '..', '..', 'docs', 'concepts', 'events.md');

/** The types named in the first column of the table that follows `heading` on the events page. */
function documentedTypes(page: string, heading: string): string[] {
  const start = page.indexOf(heading);
  if (start < 0) throw new Error(`docs/concepts/events.md has no "${heading}" table any more`);
  const lines = page.slice(start).split('\n');
  const first = lines.findIndex((l) => l.startsWith('|'));
  const rows: string[] = [];
  for (const line of lines.slice(first + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(line.split('|')[1]);
  }
  return rows.flatMap((cell) => [...cell.matchAll(/`([a-z_.]+)`/g)].map((m) => m[1]));
}

describe('the event types in the docs', () => {
  const page = readFileSync(EVENTS_PAGE, 'utf8');

  it('docs/concepts/events.md lists exactly the group-scoped types under "Group events"', () => {
    expect(documentedTypes(page, '**Group events**').sort()).toEqual([...GROUP_EVENT_TYPES].sort());
  });

  it('and exactly the user-scoped types under "User events"', () => {
    expect(documentedTypes(page, '**User events**').sort()).toEqual([...USER_EVENT_TYPES].sort());
  });
});
