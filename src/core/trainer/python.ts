import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

export class TrainerSetupError extends Error {
  constructor(
    message: string,
    readonly hint: string,
  ) {
    super(message);
    this.name = 'TrainerSetupError';
  }
}

/**
 * The interpreter that runs the trainer, in order: the setting, the Python extension's
 * active environment, the environment Stepwise set up, the repository's .venv. Each candidate
 * must import the trainer and its engines; the error says exactly what is missing.
 */
export function findTrainerPython(candidates: { setting?: string; pythonExtension?: string; managedVenv?: string; repositoryRoot?: string }): string {
  const tried: string[] = [];
  const options = [
    candidates.setting,
    candidates.pythonExtension,
    candidates.managedVenv && path.join(candidates.managedVenv, 'bin', 'python'),
    candidates.repositoryRoot && path.join(candidates.repositoryRoot, '.venv', 'bin', 'python'),
  ].filter((p): p is string => !!p);
  for (const python of options) {
    if (!fs.existsSync(python)) {
      tried.push(`${python}: not found`);
      continue;
    }
    const r = spawnSync(python, ['-c', 'import stepwise_trainer, torch, trl, transformers'], { encoding: 'utf8', timeout: 60_000 });
    if (r.status === 0) return python;
    const missing = /No module named '([^']+)'/.exec(r.stderr ?? '')?.[1];
    tried.push(`${python}: ${missing ? `no module ${missing}` : (r.stderr ?? '').trim().split('\n').pop()}`);
  }
  throw new TrainerSetupError(
    `No Python environment with the Stepwise trainer was found (${tried.join('; ') || 'no interpreter configured'}).`,
    'Run "Stepwise: Train from Annotations" and choose "Set up the trainer environment", or set stepwise.trainer.pythonPath to a Python with `pip install -e trainer`.',
  );
}
