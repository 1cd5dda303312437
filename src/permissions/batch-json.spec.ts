import { batchJson } from './batch-json';
import type { BatchCheckResult } from './dto/check-batch.dto';

describe('batchJson', () => {
  const every: BatchCheckResult[] = [
    { allowed: true, source: 'role', viaRoleId: '01900000-0000-7000-8000-000000000001' },
    { allowed: false, source: 'none' },
    { allowed: false, source: 'timeout' },
    { allowed: false, source: 'default' },
    { allowed: true, source: 'override' },
    { allowed: false, source: 'override' },
    { error: { code: 'not_found', message: 'group not found' } },
  ];

  it('writes every shape of answer exactly as JSON.stringify does, in order', () => {
    expect(batchJson(every)).toBe(JSON.stringify({ results: every }));
    expect(batchJson([...every].reverse())).toBe(JSON.stringify({ results: [...every].reverse() }));
  });

  it('writes answers that repeat, through the same role or another, each in its place', () => {
    const [a, b] = ['01900000-0000-7000-8000-00000000000a', '01900000-0000-7000-8000-00000000000b'];
    const mixed: BatchCheckResult[] = [
      { allowed: true, source: 'role', viaRoleId: a },
      { allowed: true, source: 'role', viaRoleId: b },
      { allowed: false, source: 'default' },
      { allowed: true, source: 'role', viaRoleId: a },
      { allowed: false, source: 'default' },
      { allowed: true, source: 'role', viaRoleId: b },
      { allowed: true, source: 'default' },
    ];
    expect(batchJson(mixed)).toBe(JSON.stringify({ results: mixed }));
  });

  it('writes a single answer and escapes what a string could hold', () => {
    const odd: BatchCheckResult[] = [{ error: { code: 'not_found', message: 'group "x"\n\\ not found \u2028' } }];
    expect(batchJson(odd)).toBe(JSON.stringify({ results: odd }));
    expect(JSON.parse(batchJson(every.slice(0, 1)))).toEqual({ results: every.slice(0, 1) });
  });
});
