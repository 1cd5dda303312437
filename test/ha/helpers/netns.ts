import { execFileSync } from 'node:child_process';

/**
 * Separate hosts on one machine: a network namespace per host, each with one veth to a bridge the
 * test makes, and an address of its own in a private /24. The root namespace has the bridge's own
 * address, so the test process reaches every host, and nothing outside the bridge is reached.
 * Everything is named with one prefix: a crashed earlier run's leftovers are found and removed.
 */
const PREFIX = 'ghha';
const BRIDGE = `${PREFIX}-br`;
const SUBNET = '10.231.0';
/** The root namespace's address on the bridge: the test's load, Prometheus and webhook receiver. */
export const GATEWAY = `${SUBNET}.1`;
const CUT_TABLE = `${PREFIX}_cut`;

const ip = (...args: string[]) => execFileSync('ip', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

export interface Network {
  /** Host name (a role) to its address. */
  hosts: Record<string, string>;
  namespace(host: string): string;
  /** Drops every packet between `host` and `peers` (both ways), in `host`'s own namespace. */
  cut(host: string, peers: string[]): void;
  heal(host: string): void;
  destroy(): void;
}

/** Kills what still runs in this prefix's namespaces, then removes them and the bridge. */
export function removeLeftovers(): void {
  const namespaces = ip('netns', 'list')
    .split('\n')
    .map((l) => l.split(' ')[0])
    .filter((n) => n.startsWith(`${PREFIX}-`));
  for (const ns of namespaces) {
    for (const pid of ip('netns', 'pids', ns).split('\n').filter(Boolean)) {
      try {
        process.kill(Number(pid), 'SIGKILL');
      } catch {
        // Gone already.
      }
    }
    ip('netns', 'del', ns);
  }
  // A deleted namespace's veths can outlive it for a while (the kernel frees it later): removed here.
  const links = ip('-o', 'link', 'show')
    .split('\n')
    .map((l) => l.split(': ')[1]?.split('@')[0])
    .filter((l): l is string => !!l && l.startsWith(`${PREFIX}-`));
  for (const link of links) {
    try {
      ip('link', 'del', link);
    } catch (err) {
      // The kernel freed it between the listing and now (deleting either end of a veth removes both).
      if (!/Cannot find device/.test(String((err as { stderr?: unknown }).stderr ?? err))) throw err;
    }
  }
}

/** `hosts` are names; each gets the next address from .11 on, in the order given. */
export function createNetwork(names: string[]): Network {
  removeLeftovers();
  if (ip('-o', 'addr', 'show').includes(` ${SUBNET}.`)) throw new Error(`${SUBNET}.0/24 is in use on this machine: the HA suite needs it for its hosts`);
  const hosts: Record<string, string> = {};
  const namespace = (host: string) => `${PREFIX}-${host}`;
  try {
    ip('link', 'add', BRIDGE, 'type', 'bridge');
    ip('addr', 'add', `${GATEWAY}/24`, 'dev', BRIDGE);
    ip('link', 'set', BRIDGE, 'up');
    names.forEach((host, i) => {
      const ns = namespace(host);
      const outer = `${PREFIX}-v${i}`;
      const inner = `${PREFIX}-p${i}`;
      hosts[host] = `${SUBNET}.${11 + i}`;
      ip('netns', 'add', ns);
      ip('link', 'add', outer, 'type', 'veth', 'peer', 'name', inner);
      ip('link', 'set', inner, 'netns', ns);
      ip('-n', ns, 'link', 'set', inner, 'name', 'eth0');
      ip('-n', ns, 'addr', 'add', `${hosts[host]}/24`, 'dev', 'eth0');
      ip('-n', ns, 'link', 'set', 'eth0', 'up');
      ip('-n', ns, 'link', 'set', 'lo', 'up');
      ip('link', 'set', outer, 'master', BRIDGE);
      ip('link', 'set', outer, 'up');
    });
  } catch (err) {
    removeLeftovers();
    throw err;
  }
  const nft = (host: string, script: string) =>
    execFileSync('ip', ['netns', 'exec', namespace(host), 'nft', '-f', '-'], { input: script, stdio: ['pipe', 'pipe', 'pipe'] });
  return {
    hosts,
    namespace,
    cut: (host, peers) => {
      const set = peers.map((p) => hosts[p]).join(', ');
      nft(
        host,
        [
          `table inet ${CUT_TABLE} {`,
          `  chain in { type filter hook input priority 0; policy accept; ip saddr { ${set} } drop; }`,
          `  chain out { type filter hook output priority 0; policy accept; ip daddr { ${set} } drop; }`,
          '}',
        ].join('\n'),
      );
    },
    heal: (host) => nft(host, `delete table inet ${CUT_TABLE}\n`),
    destroy: removeLeftovers,
  };
}
