/**
 * The filesystem a sandboxed process sees under bubblewrap: an empty root with the system folders
 * and the interpreter's own install bound read-only, nothing else of the host. Home folders, /tmp,
 * /run, /dev/shm and every other place where secrets or Unix sockets live are simply not there (or
 * are empty tmpfs mounts); files in /etc that only their owner may read are masked, because the
 * sandbox's uid maps to the host user that started it, who may own them.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

/** Where the run's folders appear inside the sandbox. */
export const SANDBOX_IN = '/sandbox/in';
export const SANDBOX_WORK = '/sandbox/work';

const SYSTEM_DIRS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc'];
const HIDDEN_TMPFS = ['/tmp', '/var/tmp', '/run', '/var/run', '/dev/shm', '/home', '/root'];

let etcMasks: string[] | undefined;

/** Entries under /etc that others may not read: bound over with nothing inside the sandbox. */
function ownerOnlyEtc(): string[] {
  if (etcMasks) return etcMasks;
  const found: string[] = [];
  const walk = (dir: string, depth: number) => {
    let names: string[];
    try {
      names = fs.readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names) {
      const p = path.join(dir, name);
      let st: fs.Stats;
      try {
        st = fs.lstatSync(p);
      } catch {
        continue;
      }
      if (st.isSymbolicLink()) continue;
      const othersRead = (st.mode & 0o004) !== 0 && (!st.isDirectory() || (st.mode & 0o001) !== 0);
      if (!othersRead) found.push(p);
      else if (st.isDirectory() && depth < 4) walk(p, depth + 1);
    }
  };
  walk('/etc', 0);
  return (etcMasks = found);
}

const interpreterRoots = new Map<string, string[]>();

function under(p: string, roots: string[]): boolean {
  return roots.some((r) => p === r || p.startsWith(r.endsWith('/') ? r : `${r}/`));
}

/** An absolute path for a command (PATH lookup on the host). */
export function resolveExecutable(command: string): string {
  if (command.includes('/')) return path.resolve(command);
  for (const dir of (process.env.PATH ?? '/usr/bin:/bin').split(':')) {
    const p = path.join(dir, command);
    try {
      fs.accessSync(p, fs.constants.X_OK);
      return p;
    } catch {
      // Not in this folder.
    }
  }
  return command;
}

/**
 * What Python itself needs, asked of the interpreter in isolated mode (-I: no PYTHONPATH, no user
 * site): its prefixes and standard library, and the site-packages folders of its own prefixes.
 * Never sys.path: an editable install or any .pth file puts the user's workspace there, and
 * generated code would import the user's reference implementation or read files next to it.
 * For a virtual environment only its pyvenv.cfg, bin folder and site-packages are taken, not
 * the whole folder, which may be the workspace itself.
 */
const PYTHON_PATHS = `import json, site, sys, sysconfig
p = sysconfig.get_paths()
print(json.dumps({"prefix": sys.prefix, "base": [sys.base_prefix, sys.base_exec_prefix],
    "lib": [p["stdlib"], p["platstdlib"], p["purelib"], p["platlib"]] + site.getsitepackages()}))`;

/**
 * The paths an interpreter needs, read-only: for Python the executable and PYTHON_PATHS; for
 * Node its install prefix. Asked once per interpreter, on the host.
 */
export function interpreterPaths(executable: string, kind: 'python' | 'node'): string[] {
  const cached = interpreterRoots.get(executable);
  if (cached) return cached;
  const found = new Set<string>();
  const add = (p: string | undefined, file = false) => {
    if (!p || !path.isAbsolute(p) || p === '/') return;
    try {
      const st = fs.statSync(p);
      if (st.isDirectory() || (file && st.isFile())) found.add(path.normalize(p));
    } catch {
      // Not there (zip files, stale entries): nothing to bind.
    }
  };
  let real = executable;
  try {
    real = fs.realpathSync(executable);
  } catch {
    // A missing interpreter fails later with its own error.
  }
  if (kind === 'node') for (const exe of [executable, real]) add(path.dirname(path.dirname(exe)));
  else {
    // The executable itself, not its folder: a folder holding a python may hold anything.
    for (const exe of [executable, real]) add(exe, true);
    const r = spawnSync(executable, ['-I', '-c', PYTHON_PATHS], {
      encoding: 'utf8',
      timeout: 30_000,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    });
    try {
      const info = JSON.parse(r.stdout) as { prefix: string; base: string[]; lib: string[] };
      for (const p of info.base) add(p);
      const venv = !info.base.includes(info.prefix);
      if (venv) add(path.join(info.prefix, 'pyvenv.cfg'), true);
      // The standard library and site-packages; in a venv's own folder only its site-packages.
      for (const p of info.lib)
        if (!venv || !under(p, [info.prefix]) || /[/](site|dist)-packages$/.test(p)) add(p);
      if (!venv) add(info.prefix);
    } catch {
      // An interpreter that cannot say: only its own folders are bound.
    }
  }
  // Paths inside other paths in the list are covered by their parent's bind.
  const list = [...found].sort();
  const roots = list.filter((p, i) => !list.slice(0, i).some((q) => under(p, [q])));
  const result = roots.filter((p) => !under(p, SYSTEM_DIRS));
  interpreterRoots.set(executable, result);
  return result;
}

/** The host paths a run binds read-only (system folders and `extraReadOnly`), for the report. */
export function boundFromHost(extraReadOnly: string[]): string[] {
  const system = SYSTEM_DIRS.filter((dir) => {
    try {
      return fs.lstatSync(dir).isDirectory();
    } catch {
      return false;
    }
  });
  return [...system, ...extraReadOnly];
}

/** bubblewrap's mount arguments for a run: system read-only, inputs read-only, a capped work tmpfs. */
export function mountArgs(inputDir: string, diskMb: number, extraReadOnly: string[]): string[] {
  const args: string[] = [];
  for (const dir of SYSTEM_DIRS) {
    let st: fs.Stats;
    try {
      st = fs.lstatSync(dir);
    } catch {
      continue;
    }
    if (st.isSymbolicLink()) args.push('--symlink', fs.readlinkSync(dir), dir);
    else if (st.isDirectory()) args.push('--ro-bind', dir, dir);
  }
  for (const masked of ownerOnlyEtc()) {
    const dir = fs.lstatSync(masked).isDirectory();
    args.push(...(dir ? ['--tmpfs', masked] : ['--ro-bind', '/dev/null', masked]));
  }
  args.push('--proc', '/proc', '--dev', '/dev');
  for (const dir of HIDDEN_TMPFS) args.push('--tmpfs', dir);
  // After the empty tmpfs mounts, so an interpreter installed under /root or /tmp stays visible.
  for (const dir of extraReadOnly) args.push('--ro-bind', dir, dir);
  args.push('--ro-bind', inputDir, SANDBOX_IN);
  args.push('--size', String(diskMb * 1024 * 1024), '--tmpfs', SANDBOX_WORK);
  // Every tmpfs but the capped work folder is read-only, the root last: nothing else takes writes.
  for (const dir of [...HIDDEN_TMPFS, '/dev', '/']) args.push('--remount-ro', dir);
  return args;
}
