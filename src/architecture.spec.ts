import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/**
 * The layers point one way: no source file reaches itself through its imports (type-only imports
 * included: they tie the files together for a reader just the same), and `observability` is a floor
 * under every feature module, taking only settings, the release and its own types.
 */
const SRC = __dirname;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return path.endsWith('.ts') && !path.endsWith('.spec.ts') ? [path] : [];
  });
}

/** The files of `src` a file imports or re-exports from, by relative path. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^'";]*?\bfrom\s+'(\.[^']+)'/g)].flatMap(([, spec]) => {
    const target = resolve(dirname(file), spec);
    const found = [`${target}.ts`, join(target, 'index.ts')].find((candidate) => existsSync(candidate));
    return found && found.startsWith(SRC) ? [found] : [];
  });
}

const graph = new Map(sources(SRC).map((file) => [file, importsOf(file)]));
const name = (file: string) => relative(SRC, file);

/** Each import circle, as the files along it (depth-first search; one circle per back edge). */
function circles(): string[][] {
  const found: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (file: string) => {
    state.set(file, 'open');
    path.push(file);
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === 'open') found.push([...path.slice(path.indexOf(next)), next].map(name));
      else if (!state.has(next)) visit(next);
    }
    path.pop();
    state.set(file, 'done');
  };
  for (const file of graph.keys()) if (!state.has(file)) visit(file);
  return found;
}

describe('source layers', () => {
  it('reads the imports of the tree (the check below would pass on nothing otherwise)', () => {
    expect(graph.size).toBeGreaterThan(300);
    expect(graph.get(join(SRC, 'main.ts'))).toContain(join(SRC, 'boot-line.ts'));
  });

  it('has no import circle', () => {
    expect(circles()).toEqual([]);
  });

  it('keeps observability below the feature modules', () => {
    const allowed = (target: string) =>
      /^(observability|config)\//.test(name(target)) || ['version.ts', 'common/startup-error.ts'].includes(name(target));
    const upward = [...graph]
      .filter(([file]) => name(file).startsWith('observability/'))
      .flatMap(([file, targets]) => targets.filter((t) => !allowed(t)).map((t) => `${name(file)} -> ${name(t)}`));
    expect(upward).toEqual([]);
  });
});
