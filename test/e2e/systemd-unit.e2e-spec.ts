import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { WORKER_DRAIN_CAP_MS } from '../../src/webhooks/delivery-worker';
import { ROOT } from '../helpers/process';

/**
 * deploy/systemd/guildhall.service as systemd and a security review read it: node runs the built
 * server itself, the stop waits out the drain, the settings come from a root-only file, and the
 * service is confined. `systemd-analyze verify` checks it where systemd's tools are installed;
 * elsewhere every directive is checked against the names systemd knows.
 */
const UNIT = join(ROOT, 'deploy/systemd/guildhall.service');

/** Each section's directives, with every value a repeated key was given. */
function parseUnit(text: string): Record<string, Record<string, string[]>> {
  const sections: Record<string, Record<string, string[]>> = {};
  let current: Record<string, string[]> | null = null;
  for (const [i, raw] of text.split('\n').entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const section = /^\[(\w+)\]$/.exec(line);
    if (section) {
      current = sections[section[1]] = {};
      continue;
    }
    const directive = /^([A-Za-z]+)=(.*)$/.exec(line);
    if (!directive || !current || line.endsWith('\\')) throw new Error(`line ${i + 1} is not a directive of a section: ${raw}`);
    (current[directive[1]] ??= []).push(directive[2].trim());
  }
  return sections;
}

/** The directives this unit may use, by section: a misspelt one is ignored by systemd, with only a warning. */
const KNOWN: Record<string, string[]> = {
  Unit: ['Description', 'Documentation', 'Wants', 'Requires', 'After', 'Before', 'StartLimitIntervalSec', 'StartLimitBurst'],
  Service: [
    'Type', 'User', 'Group', 'WorkingDirectory', 'Environment', 'EnvironmentFile', 'ExecStart', 'KillSignal', 'TimeoutStopSec',
    'Restart', 'RestartSec', 'SyslogIdentifier', 'NoNewPrivileges', 'CapabilityBoundingSet', 'ProtectSystem', 'ProtectHome',
    'PrivateTmp', 'PrivateDevices', 'ProtectKernelTunables', 'ProtectKernelModules', 'ProtectControlGroups', 'ProtectKernelLogs',
    'ProtectClock', 'ProtectHostname', 'ProtectProc', 'RestrictAddressFamilies', 'RestrictNamespaces', 'RestrictSUIDSGID',
    'RestrictRealtime', 'LockPersonality', 'SystemCallArchitectures', 'RemoveIPC', 'UMask', 'ReadWritePaths',
  ],
  Install: ['WantedBy'],
};

function run(program: string, args: string[]): Promise<{ code: number | null; output: string; missing: boolean }> {
  return new Promise((res) => {
    execFile(program, args, { timeout: 30_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : null) : 0;
      res({ code, output: `${stdout}${stderr}`.trim(), missing: (err as NodeJS.ErrnoException | null)?.code === 'ENOENT' });
    });
  });
}

describe('deploy/systemd/guildhall.service', () => {
  const unit = parseUnit(readFileSync(UNIT, 'utf8'));
  const service = unit.Service;
  const one = (key: string) => {
    expect({ key, values: service[key] }).toEqual({ key, values: [expect.any(String)] });
    return service[key][0];
  };

  it('runs `node dist/src/main.js` itself, as a user of its own, in production, with the settings of a root-only file', () => {
    expect(one('ExecStart')).toBe('node dist/src/main.js');
    expect(one('Type')).toBe('exec');
    expect(one('WorkingDirectory')).toMatch(/^\/.+/);
    expect(one('User')).not.toMatch(/^(root|0)$/);
    expect(one('EnvironmentFile')).toBe('/etc/guildhall/guildhall.env');
    expect(service.Environment).toContain('NODE_ENV=production');
    expect(unit.Install.WantedBy).toEqual(['multi-user.target']);
  });

  it('stops with SIGTERM and waits out the drain before a kill; restarts only after a failure', () => {
    expect(one('KillSignal')).toBe('SIGTERM');
    // docs/operations.md: the drain ends within 35 s (the webhook attempts' 30 s, then the closing).
    expect(Number(one('TimeoutStopSec')) * 1000).toBeGreaterThan(WORKER_DRAIN_CAP_MS + 5_000);
    expect(one('Restart')).toBe('on-failure');
  });

  it('is confined: no new privileges, a read-only system, no homes, a private /tmp, nothing writable besides', () => {
    expect(service).toMatchObject({
      NoNewPrivileges: ['yes'],
      ProtectSystem: ['strict'],
      ProtectHome: ['yes'],
      PrivateTmp: ['yes'],
      CapabilityBoundingSet: [''],
    });
    expect(service.ReadWritePaths).toBeUndefined();
  });

  it('systemd accepts it: `systemd-analyze verify` says nothing (without systemd-analyze, every directive is one it knows)', async () => {
    const verify = await run('systemd-analyze', ['verify', UNIT]);
    if (verify.missing) {
      const unknown = Object.entries(unit).flatMap(([section, keys]) =>
        Object.keys(keys).filter((k) => !(KNOWN[section] ?? []).includes(k)).map((k) => `[${section}] ${k}`),
      );
      expect({ sections: Object.keys(unit).sort(), unknown }).toEqual({ sections: ['Install', 'Service', 'Unit'], unknown: [] });
    } else {
      // A misspelt or misvalued directive is only a warning, with exit 0: the output must be empty too.
      expect({ code: verify.code, output: verify.output }).toEqual({ code: 0, output: '' });
    }
  });
});
