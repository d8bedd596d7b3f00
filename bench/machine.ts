import * as os from 'node:os';

/** The machine a benchmark ran on, as every bench/results file records it. */
export function benchMachine(): { cpus: number; cpu: string; platform: string; node: string } {
  return {
    cpus: os.cpus().length,
    cpu: os.cpus()[0]?.model ?? 'unknown',
    platform: `${os.platform()} ${os.arch()}`,
    node: process.version,
  };
}
