import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Every variable parseSettings reads is listed in docs/operations.md's Settings table and in
 * .env.example, so an operator finds each one where the docs say they all are.
 */
const ROOT = join(__dirname, '../..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

function variablesRead(): string[] {
  const source = read('src/config/settings.ts');
  const names = new Set<string>();
  for (const m of source.matchAll(/\benv\.([A-Z][A-Z0-9_]+)/g)) names.add(m[1]);
  for (const m of source.matchAll(/\(env, '([A-Z][A-Z0-9_]*)'/g)) names.add(m[1]);
  for (const m of source.matchAll(/'([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)'/g)) names.add(m[1]);
  return [...names].sort();
}

describe('the settings documentation', () => {
  const names = variablesRead();
  const operations = read('docs/operations.md');
  const table = operations.slice(operations.indexOf('## Settings'), operations.indexOf('\n## ', operations.indexOf('## Settings') + 1));
  const example = read('.env.example');

  it('finds the variables in the code', () => {
    expect(names).toEqual(expect.arrayContaining(['DATABASE_URL', 'PORT', 'OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_TRACES_SAMPLER_ARG']));
  });

  it.each(names)('lists %s in the Settings table of docs/operations.md', (name) => {
    expect(table.split('\n').some((line) => line.startsWith('|') && line.includes(`\`${name}\``))).toBe(true);
  });

  it.each(names)('lists %s in .env.example', (name) => {
    expect(example).toMatch(new RegExp(`^#? ?${name}=`, 'm'));
  });
});
