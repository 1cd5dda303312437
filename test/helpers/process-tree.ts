import { readdirSync, readFileSync } from 'node:fs';

/**
 * What Linux's /proc says of running processes: enough to find the server a launcher (npm, a
 * shell) started, and to tell whether it outlived the launcher.
 */
export interface ProcessInfo {
  pid: number;
  ppid: number;
  /** R, S, D…; Z for a process that has exited and waits for its parent to reap it. */
  state: string;
  argv: string[];
}

/** The process, or null when there is none with that pid. */
export function processInfo(pid: number): ProcessInfo | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name, in parentheses, may itself hold spaces and parentheses: the fields follow the last ')'.
    const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter((a) => a !== '');
    return { pid, ppid: Number(ppid), state, argv };
  } catch {
    return null;
  }
}

/** Whether the process runs (an exited one not yet reaped does not). */
export function isRunning(pid: number): boolean {
  const info = processInfo(pid);
  return info !== null && info.state !== 'Z';
}

/** Every process below `pid`: its children, theirs, and so on. */
export function descendants(pid: number): ProcessInfo[] {
  const all = readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map((name) => processInfo(Number(name)))
    .filter((p): p is ProcessInfo => p !== null);
  const found: ProcessInfo[] = [];
  const parents = new Set([pid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const p of all) {
      if (parents.has(p.ppid) && !parents.has(p.pid)) {
        parents.add(p.pid);
        found.push(p);
        grew = true;
      }
    }
  }
  return found;
}
