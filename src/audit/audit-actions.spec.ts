import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AUDIT_ACTIONS } from './audit-actions';

const ROOT = join(__dirname, '..', '..');
const ADMIN_PAGE = join(ROOT, 'docs', 'concepts', 'admin.md');

/** The user-facing pages: README.md and every Markdown file under docs/. */
function docPages(): string[] {
  const pages = [join(ROOT, 'README.md')];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.md')) pages.push(path);
    }
  };
  walk(join(ROOT, 'docs'));
  return pages;
}

/** The list that follows "The actions" on the audit log page, up to the next blank line. */
function documentedActions(): Set<string> {
  const page = readFileSync(ADMIN_PAGE, 'utf8');
  const start = page.indexOf('\nThe actions');
  if (start < 0) throw new Error('docs/concepts/admin.md no longer lists the audit actions after "The actions"');
  const afterIntro = page.indexOf('\n\n', start + 1);
  const end = page.indexOf('\n\n', afterIntro + 2);
  const list = page.slice(afterIntro, end < 0 ? undefined : end);
  return new Set([...list.matchAll(/`([a-z_.]+)`/g)].map((m) => m[1]));
}

describe('the audit actions in the docs', () => {
  it('docs/concepts/admin.md lists exactly the actions of audit-actions.ts', () => {
    const sut = documentedActions();
    const missing = AUDIT_ACTIONS.filter((a) => !sut.has(a));
    const unknown = [...sut].filter((a) => !(AUDIT_ACTIONS as readonly string[]).includes(a));
    expect({ missing, unknown }).toEqual({ missing: [], unknown: [] });
  });

  it('no page states a count of audit actions other than the real one', () => {
    const wrong: string[] = [];
    for (const page of docPages()) {
      const text = readFileSync(page, 'utf8');
      for (const m of text.matchAll(/\b(\d+)\s+(?:audit\s+)?actions\b/gi)) {
        if (Number(m[1]) !== AUDIT_ACTIONS.length) wrong.push(`${page.slice(ROOT.length + 1)}: "${m[0]}"`);
      }
    }
    expect(wrong).toEqual([]);
  });
});
