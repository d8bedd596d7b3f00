/**
 * The isolation report: what the confinement of this machine holds, in words a person reads, and
 * the caps the runs actually got. It never says "capped" for a cap that is not in force.
 */
import * as os from 'node:os';
import { sandboxMemoryMb, SANDBOX_DEFAULTS, type Limits, type Probe } from './limits';
import { SAMPLE_MS } from './memoryWatch';
import { SECCOMP_BLOCKS } from './seccomp';
import type { IsolationReport } from './types';

function memoryText(machine: Probe, limits: Limits | undefined): string {
  const total = limits ? `${sandboxMemoryMb(limits)} MiB` : 'the run’s memory setting';
  const whole = machine.cgroups.memory
    ? `${total} for the whole sandbox, all processes together (memory cgroup; the kernel stops a process past it)`
    : process.platform === 'linux'
      ? `${total} for the whole sandbox, all processes together, by a supervisor that samples the process tree every ${SAMPLE_MS} ms and kills it past the cap (no memory cgroup here; a burst between two samples can pass the cap for a moment)`
      : 'NOT capped in total on this platform';
  const perProcess =
    limits?.memoryMb && machine.canLimit
      ? `; each process also at most ${limits.memoryMb} MiB of address space`
      : '';
  return `${whole}${perProcess}`;
}

function cpuText(machine: Probe, limits: Limits | undefined, cores: number): string {
  const want = limits?.cpuCores ?? SANDBOX_DEFAULTS.cpuCores;
  if (!machine.taskset || cores === 0) return 'NOT capped: the code may use every core until its time limit';
  if (want >= cores) return `all ${cores} cores this process may use (the setting allows ${want})`;
  return machine.seccomp
    ? `pinned to ${want} of ${cores} cores (CPU affinity; the seccomp filter stops the code from widening it)`
    : `pinned to ${want} of ${cores} cores (CPU affinity only: without the sandbox the code can widen it)`;
}

export function isolationReport(
  machine: Probe,
  limits: Limits | undefined,
  bound: string[],
  cores: number,
): IsolationReport {
  const { bwrap, userFlags, cgroups, canLimit, isRoot } = machine;
  const memory = memoryText(machine, limits);
  const cpu = cpuText(machine, limits, cores);
  const processes = cgroups.pids
    ? 'capped (pids cgroup, entered before the sandbox starts; /sys is not mounted inside)'
    : !canLimit
      ? 'not capped on this platform'
      : isRoot
        ? 'NOT capped (root without a pids cgroup); timeouts still apply'
        : 'capped (process-count limit)';
  const keyring = machine.seccomp
    ? `no kernel keyring: the seccomp filter refuses ${SECCOMP_BLOCKS}`
    : 'NOT isolated: the code can read and add keys in your session keyring';
  const totalCap = machine.cgroups.memory ? 'memory cgroup' : 'memory supervisor';
  if (!bwrap) {
    return {
      isolated: false,
      filesystem: 'NOT isolated: generated code can read and write wherever you can.',
      network: 'NOT isolated: generated code can reach the network.',
      memory,
      processes,
      cpu,
      keyring,
      user: 'NOT isolated: runs as you, with your privileges.',
      disk: canLimit ? 'NOT capped in total; single files are capped' : 'not capped on this platform',
      bound,
      missing: ['bubblewrap (bwrap) with namespaces'],
      summary: `Not isolated on ${os.platform()}: bubblewrap is unavailable, so tests run with timeouts${canLimit ? ', resource limits' : ''} and a ${totalCap} only. Run them only on code you trust.`,
    };
  }
  const userns = userFlags.length > 0;
  const missing = [
    ...(userns ? [] : ['user namespace (runs as root with no capabilities instead)']),
    ...(userns && !userFlags.includes('--disable-userns')
      ? ['--disable-userns (nested user namespaces allowed)']
      : []),
    ...(isRoot && !cgroups.pids ? ['pids cgroup'] : []),
    ...(cgroups.memory ? [] : ['memory cgroup (a supervisor samples the memory instead)']),
    ...(machine.seccomp ? [] : [`seccomp filter on ${process.arch} (the kernel keyring is reachable)`]),
  ];
  return {
    isolated: true,
    filesystem:
      'private root: system folders and only what the interpreter needs, read-only (see bound; never the workspace or a path a .pth file adds); home folders, /tmp, /run, /dev/shm and host sockets hidden; owner-only files in /etc masked; writable only a private capped folder',
    network: 'none (own network namespace, host loopback and abstract sockets unreachable)',
    memory,
    processes,
    cpu,
    keyring,
    user: userns
      ? `uid 65534 in its own user namespace, no capabilities${userFlags.includes('--disable-userns') ? ', no nested user namespaces' : ''}`
      : 'root with every capability dropped (user namespaces are unavailable)',
    disk: 'capped (private tmpfs of the run; gone when the run ends)',
    bound,
    missing,
    summary: `Isolated with bubblewrap: private read-only root with only the system and the interpreter, no network, ${userns ? 'unprivileged uid' : 'no capabilities'}, ${machine.seccomp ? 'no keyring, ' : ''}capped writable folder, memory capped for the whole sandbox (${totalCap}), ${cgroups.pids || !isRoot ? 'process count capped, ' : ''}${cpu.startsWith('pinned') ? `CPU ${cpu.split(' (')[0]}, ` : ''}killed on timeout.${missing.length ? ` Missing: ${missing.join('; ')}.` : ''}`,
  };
}
