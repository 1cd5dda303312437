/** Unique external ids for e2e tests: prefix, a per-test-file counter and a random tail. */
import { randomUUID } from 'node:crypto';

let seq = 0;
export const seqUid = (p = 'u') => `${p}-${++seq}-${randomUUID().slice(0, 8)}`;
