/**
 * The memory supervisor, for machines where no memory cgroup can be made (an unprivileged user
 * without a delegated cgroup v2 subtree): it samples the resident memory of the run's whole
 * process tree from /proc every SAMPLE_MS and kills the tree once the sum passes the cap. Between
 * two samples a run can go over the cap for a moment (bounded by how fast it can touch memory on
 * the cores it is pinned to); the isolation report says so.
 */
import * as fs from 'node:fs';

export const SAMPLE_MS = 20;

/** Whether this kernel lists children in /proc (CONFIG_PROC_CHILDREN); if not, /proc is scanned. */
const childrenFiles = fs.existsSync(`/proc/self/task/${process.pid}/children`);

/** Every process's parent, from a scan of /proc (the fallback). */
function parents(): Map<number, number[]> {
  const byParent = new Map<number, number[]>();
  let entries: string[] = [];
  try {
    entries = fs.readdirSync('/proc');
  } catch {
    // No /proc: nothing to measure.
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The command name, in parentheses, may hold spaces: the fields after it are fixed.
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      byParent.set(ppid, [...(byParent.get(ppid) ?? []), Number(entry)]);
    } catch {
      // Gone meanwhile.
    }
  }
  return byParent;
}

function childrenOf(pid: number): number[] {
  const found: number[] = [];
  let tasks: string[];
  try {
    tasks = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return found; // Gone meanwhile.
  }
  for (const tid of tasks) {
    try {
      const text = fs.readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8');
      for (const child of text.split(' ')) if (Number(child) > 0) found.push(Number(child));
    } catch {
      // The thread ended meanwhile.
    }
  }
  return found;
}

/** The pid and every descendant. */
export function processTree(root: number): number[] {
  const byParent = childrenFiles ? undefined : parents();
  const seen = new Set<number>([root]);
  const queue = [root];
  while (queue.length) {
    const pid = queue.pop() as number;
    for (const c of byParent ? (byParent.get(pid) ?? []) : childrenOf(pid)) {
      if (seen.has(c)) continue;
      seen.add(c);
      queue.push(c);
    }
  }
  return [...seen];
}

/**
 * Memory a process holds on its own: anonymous and shared-memory pages. Shared library pages are
 * left out, since every process maps the same ones and summing them would count them many times.
 */
function heldBytes(pid: number): number {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0);
    return (kb('RssAnon') + kb('RssShmem')) * 1024;
  } catch {
    return 0;
  }
}

/** Watches the tree under `root`; calls `over` once with its pids when it holds more than `capBytes`. */
export function watchTreeMemory(root: number, capBytes: number, over: (pids: number[]) => void): () => void {
  let stopped = false;
  const timer = setInterval(() => {
    if (stopped) return;
    const pids = processTree(root);
    let total = 0;
    for (const pid of pids) total += heldBytes(pid);
    if (total > capBytes) {
      stop();
      over(pids);
    }
  }, SAMPLE_MS);
  const stop = () => {
    stopped = true;
    clearInterval(timer);
  };
  return stop;
}
