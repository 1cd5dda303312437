/**
 * The deployed alert rules (deploy/prometheus/alerts.yml) made quick enough to watch in a test:
 * every `for:` shortened, and in each rule's expression the thresholds and windows that `rewrites`
 * names replaced. Everything else is the deployed rule, so the test exercises the same expressions.
 * Each rewrite must apply, and every rule must be named: a rule changed or added in deploy/ fails
 * here until its test copy is looked at again.
 */
import { readFileSync } from 'node:fs';
import { load } from 'js-yaml';

interface Rule {
  alert: string;
  expr: string;
  for?: string;
  [key: string]: unknown;
}

/** Alert name -> the [deployed, test] text pairs to swap in its expression (every occurrence). */
export type Rewrites = Record<string, [string, string][]>;

/** The rules of `file` with `forDuration` and `rewrites` applied, as JSON (which Prometheus reads as YAML). */
export function quickRules(file: string, forDuration: string, rewrites: Rewrites): string {
  const doc = load(readFileSync(file, 'utf8')) as { groups: { name: string; rules: Rule[] }[] };
  const names = doc.groups.flatMap((g) => g.rules.map((r) => r.alert));
  const unnamed = names.filter((n) => !(n in rewrites));
  const unknown = Object.keys(rewrites).filter((n) => !names.includes(n));
  if (unnamed.length || unknown.length) throw new Error(`${file}: rules without a test rewrite: [${unnamed.join(', ')}]; rewrites of no rule: [${unknown.join(', ')}]`);
  for (const group of doc.groups) {
    for (const rule of group.rules) {
      for (const [deployed, quick] of rewrites[rule.alert]) {
        if (!rule.expr.includes(deployed)) throw new Error(`${rule.alert}: its expression no longer holds ${JSON.stringify(deployed)}:\n${rule.expr}`);
        rule.expr = rule.expr.split(deployed).join(quick);
      }
      rule.for = forDuration;
    }
  }
  return JSON.stringify(doc, null, 2);
}
