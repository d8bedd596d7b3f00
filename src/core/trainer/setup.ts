import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { TrainerSetupError } from './python';

export interface TrainerSetupOptions {
  /** A Python 3.10+ to create the venv with (e.g. `python3`). */
  basePython: string;
  /** Folder of the new venv, e.g. `<globalStorage>/trainer-venv`. */
  venvDir: string;
  /** The trainer package shipped with the extension (its `trainer/` folder, with pyproject.toml). */
  trainerDir: string;
  /** Extra pip arguments (e.g. `--index-url` for a CPU-only torch). */
  pipArgs?: string[];
  signal?: AbortSignal;
  /** Every line pip and venv print, as it comes. */
  onLine?: (line: string) => void;
}

/**
 * Creates a virtual environment and installs the trainer package into it, streaming every line.
 * The package is copied to a temporary folder first, with the design constants from `protocol/`
 * beside it as in the repository: setuptools writes build files next to the sources, and the
 * extension's install folder may be read-only. Returns the venv's interpreter.
 */
export async function setUpTrainerEnvironment(o: TrainerSetupOptions): Promise<string> {
  const { execa } = await import('execa');
  const line = o.onLine ?? (() => undefined);
  if (!fs.existsSync(path.join(o.trainerDir, 'pyproject.toml')))
    throw new TrainerSetupError(
      `The trainer package is missing from ${o.trainerDir}.`,
      'Reinstall the extension, or set stepwise.trainer.pythonPath to a Python with the trainer installed.',
    );
  const step = async (file: string, args: string[]) => {
    line(`$ ${file} ${args.join(' ')}`);
    const child = execa(file, args, {
      reject: false,
      stdin: 'ignore',
      buffer: false,
      all: true,
      cancelSignal: o.signal,
      // SIGINT first, as a user pressing Ctrl+C would; pip cleans up after it.
      killSignal: 'SIGINT',
      forceKillAfterDelay: 5_000,
    });
    let rest = '';
    child.all?.on('data', (d: Buffer) => {
      const parts = (rest + d.toString()).split(/\r?\n|\r/);
      rest = parts.pop()!;
      for (const p of parts) if (p.trim()) line(p);
    });
    const r = await child;
    if (rest.trim()) line(rest);
    if (o.signal?.aborted) throw Object.assign(new Error('Setting up the trainer was cancelled.'), { name: 'AbortError' });
    if (r.failed)
      throw new TrainerSetupError(
        `${path.basename(file)} ${args[0] === '-m' ? args[1] : args[0]} failed (${r.exitCode !== undefined ? `exit code ${r.exitCode}` : r.shortMessage}).`,
        'The Stepwise log has its output. A network problem or a missing Python 3.10+ are the usual causes.',
      );
  };
  fs.mkdirSync(path.dirname(o.venvDir), { recursive: true });
  await step(o.basePython, ['-m', 'venv', o.venvDir]);
  const python = path.join(o.venvDir, process.platform === 'win32' ? 'Scripts/python.exe' : 'bin/python');
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-trainer-src-'));
  const copy = path.join(root, 'trainer');
  try {
    fs.cpSync(o.trainerDir, copy, {
      recursive: true,
      filter: (src) => !/(__pycache__|\.egg-info|[\\/]tests?)$/.test(src),
    });
    // The trainer's build (trainer/setup.py) packs the design constants from protocol/ beside it.
    const shared = path.join(o.trainerDir, '..', 'protocol', 'design-constants.json');
    if (fs.existsSync(shared)) {
      fs.mkdirSync(path.join(root, 'protocol'));
      fs.copyFileSync(shared, path.join(root, 'protocol', 'design-constants.json'));
    }
    const constraints = path.join(copy, 'constraints.txt');
    await step(python, [
      '-m',
      'pip',
      'install',
      '--progress-bar',
      'off',
      ...(fs.existsSync(constraints) ? ['-c', constraints] : []),
      ...(o.pipArgs ?? []),
      copy,
    ]);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
  return python;
}
