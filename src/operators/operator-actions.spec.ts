import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { OPERATOR_AUDIT_ACTIONS } from './operator-actions';

const ADMIN_PAGE = join(__dirname, '..', '..', 'docs', 'concepts', 'admin.md');

/** The last column of the table under "### Moderation" on the admin page. */
function moderationTableActions(): string[] {
  const page = readFileSync(ADMIN_PAGE, 'utf8');
  const start = page.indexOf('\n### Moderation');
  if (start < 0) throw new Error('docs/concepts/admin.md no longer has its Moderation section');
  const end = page.indexOf('\n#', start + 1);
  const rows = page
    .slice(start, end < 0 ? undefined : end)
    .split('\n')
    .filter((line) => line.startsWith('| `'));
  return rows.map((row) => row.split('|').at(-2)?.trim() ?? '').filter((cell) => cell !== '').map((cell) => cell.replace(/`/g, ''));
}

describe('the operator audit actions in the docs', () => {
  it('the moderation table names real operator audit actions, each once', () => {
    const documented = moderationTableActions();
    expect(documented.length).toBeGreaterThan(0);
    expect(documented.filter((a) => !(OPERATOR_AUDIT_ACTIONS as readonly string[]).includes(a))).toEqual([]);
    expect(new Set(documented).size).toBe(documented.length);
  });
});
