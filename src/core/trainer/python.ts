import { execFile } from 'node:child_process';
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
export async function findTrainerPython(candidates: { setting?: string; pythonExtension?: string; managedVenv?: string; repositoryRoot?: string }): Promise<string> {
  const tried: string[] = [];
  const options = [
    candidates.setting,
    candidates.pythonExtension,
    candidates.managedVenv && venvPython(candidates.managedVenv),
    candidates.repositoryRoot && venvPython(path.join(candidates.repositoryRoot, '.venv')),
  ].filter((p): p is string => !!p);
  for (const python of options) {
    if (python.includes(path.sep) && !fs.existsSync(python)) {
      tried.push(`${python}: not found`);
      continue;
    }
    const missing = await missingModules(python);
    if (missing.length === 0) return python;
    tried.push(`${python}: ${missing.join(', ')}`);
  }
  throw new TrainerSetupError(
    `No Python environment with the Stepwise trainer was found (${tried.join('; ') || 'no interpreter configured'}).`,
    'Run "Stepwise: Train from Annotations" and choose "Set up the trainer environment", or set stepwise.trainer.pythonPath to a Python with `pip install -e trainer`.',
  );
}

/** The interpreter inside a venv folder. */
export function venvPython(venv: string): string {
  return process.platform === 'win32' ? path.join(venv, 'Scripts', 'python.exe') : path.join(venv, 'bin', 'python');
}

const REQUIRED = ['stepwise_trainer', 'torch', 'trl'];

/**
 * What the interpreter cannot import of the trainer and its engines, in one quick subprocess:
 * each import is tried separately so the answer names every missing module, not the first.
 */
export async function missingModules(python: string): Promise<string[]> {
  const script = [
    'import importlib, json',
    'missing = []',
    `for name in ${JSON.stringify(REQUIRED)}:`,
    '    try:',
    '        importlib.import_module(name)',
    '    except Exception as e:',
    '        missing.append(f"{name} ({type(e).__name__}: {e})")',
    'print(json.dumps(missing))',
  ].join('\n');
  // Asynchronous: importing torch takes seconds, and the extension host must not block on it.
  const r = await new Promise<{ stdout: string; stderr: string; error?: Error }>((resolve) =>
    execFile(python, ['-c', script], { encoding: 'utf8', timeout: 120_000 }, (error, stdout, stderr) =>
      resolve({ stdout, stderr, error: error ?? undefined }),
    ),
  );
  if (r.error && (r.error as NodeJS.ErrnoException).code === 'ENOENT') return [`cannot run it (${r.error.message})`];
  try {
    const missing = JSON.parse(r.stdout.trim().split('\n').pop() ?? '') as unknown;
    if (Array.isArray(missing)) return missing.map(String);
  } catch {
    // fall through: the interpreter did not run the script (not a Python 3, or it crashed)
  }
  return [`the import check failed (${(r.stderr || r.stdout || String(r.error)).trim().split('\n').pop()})`];
}
