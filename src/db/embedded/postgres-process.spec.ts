import { firstFatal } from './postgres-process';

describe('firstFatal', () => {
  it('takes the first FATAL/PANIC line without its prefix', () => {
    const out = [
      '2026-11-25 08:00:00.000 UTC [42] LOG:  starting PostgreSQL 18.1',
      '2026-11-25 08:00:00.001 UTC [42] FATAL:  database files are incompatible with server',
      '2026-11-25 08:00:00.002 UTC [42] LOG:  database system is shut down',
    ].join('\n');
    expect(firstFatal(out)).toBe('database files are incompatible with server');
  });

  it('reads initdb errors', () => {
    expect(firstFatal('initdb: error: directory "/x" exists but is not empty\n')).toBe('directory "/x" exists but is not empty');
  });

  it('is undefined when nothing failed', () => {
    expect(firstFatal('LOG:  database system is ready to accept connections\n')).toBeUndefined();
  });
});
