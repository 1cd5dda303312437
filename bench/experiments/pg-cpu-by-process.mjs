// Where a PostgreSQL cluster's CPU goes, by kind of process, over a window: client backends (the
// service's statements) against the checkpointer, the WAL writer, autovacuum and the rest
// (docs/design/write-path.md, step 12). Reads /proc at the window's start and end; a process that
// exits inside the window is not counted (the bench's own figure, which adds what the postmaster
// reaped, tells how much that was).
//   node bench/experiments/pg-cpu-by-process.mjs <postmaster pid> [seconds, default 10]
// During a bench row: the postmaster's pid is the first line of the bench cluster's postmaster.pid.
import { readdirSync, readFileSync } from 'node:fs';

const postmaster = Number(process.argv[2]);
const seconds = Number(process.argv[3] ?? 10);
if (!Number.isInteger(postmaster) || postmaster <= 0) {
  console.error('usage: pg-cpu-by-process.mjs <postmaster pid> [seconds]');
  process.exit(2);
}
const TICKS_A_SECOND = 100;

/** The cluster's processes now: pid to CPU ticks (user and system) and process title. */
function sample() {
  const processes = new Map();
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[1]) !== postmaster && Number(pid) !== postmaster) continue;
      const title = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
      processes.set(pid, { ticks: Number(fields[11]) + Number(fields[12]), title });
    } catch {
      // gone between the listing and the read
    }
  }
  return processes;
}

/** A backend's title names its client's address and port; every other process names its kind. */
const kind = (title) => (/\(\d+\)/.test(title) ? 'client backend' : title.replace(/^postgres:\s*/, '').replace(/\s+\d.*$/, '') || 'postmaster');

const start = sample();
await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
const byKind = new Map();
for (const [pid, { ticks, title }] of sample()) {
  const spent = (ticks - (start.get(pid)?.ticks ?? 0)) / TICKS_A_SECOND;
  if (spent > 0) byKind.set(kind(title), (byKind.get(kind(title)) ?? 0) + spent);
}
const total = [...byKind.values()].reduce((a, b) => a + b, 0);
for (const [name, spent] of [...byKind].sort((a, b) => b[1] - a[1])) {
  console.log(`${name.padEnd(40)} ${spent.toFixed(2)} s  ${((100 * spent) / total).toFixed(1)} %`);
}
console.log(`total ${total.toFixed(2)} s of CPU in ${seconds} s`);
