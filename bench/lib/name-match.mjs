// The name matcher on its own (EXTENSIONS X10): a policy of 1,000 words, a 120-character group
// name checked over and over in this process. No server and no database: the check runs inside a
// request, so its cost is what it adds to a group create or rename.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { percentile } from './processes.mjs';

export const NAME_MATCH_TARGET_MS = 0.1;
const WORDS = 1000;
const BATCH = 100;
const BATCHES = 2000;
export const NAME_MATCH_BATCHES = { size: BATCH, count: BATCHES };

/**
 * Words shaped like a real list: varied lengths, shared beginnings, a few with look-alike digits.
 * Also the policy of the groupCreatePolicy row (bench/run.mjs).
 */
export function policyWords() {
  const stems = ['adm', 'staf', 'mod', 'off', 'gm', 'dev', 'crap', 'scum', 'noob', 'tox', 'cheat', 'hack'];
  return Array.from({ length: WORDS }, (_, i) => `${stems[i % stems.length]}${i.toString(36)}${i % 5 === 0 ? '1' : 'e'}r`);
}

/**
 * A name that makes the matcher work: many short words and spelled-out letters (each a place a
 * word may start), look-alikes, and words that begin like listed ones without being one.
 */
const NAME = 'The 0ff1cial Staffing Crew of a.d.m.i.n Hackers - Cheaters Anonymous & the Toxically Devoted GMs of Nooblandia 2026!'.padEnd(120, '.');

export function measureNameMatch(root) {
  const require = createRequire(join(root, 'package.json'));
  const { compileNameMatcher } = require(join(root, 'dist/src/moderation/name-matcher.js'));
  const words = policyWords();
  const compileStarted = performance.now();
  const matcher = compileNameMatcher({ blocked: words.slice(0, WORDS / 2), reserved: words.slice(WORDS / 2) });
  const compileMs = performance.now() - compileStarted;
  for (let i = 0; i < BATCH * 200; i++) matcher.match(NAME);
  // Batches, not single calls: one check is below the timer's resolution.
  const perCall = [];
  for (let b = 0; b < BATCHES; b++) {
    const began = performance.now();
    for (let i = 0; i < BATCH; i++) matcher.match(NAME);
    perCall.push((performance.now() - began) / BATCH);
  }
  perCall.sort((a, b) => a - b);
  return { words: WORDS, nameLength: NAME.length, compileMs, p50: percentile(perCall, 50), p99: percentile(perCall, 99), checksPerS: 1000 / percentile(perCall, 50) };
}
