/**
 * Hostile cases, issue 40 class 2: the user's workspace must be out of reach. The interpreter is
 * the workspace's own virtual environment (the editor's default) with an editable install of the
 * user's package in the flat layout (a .pth file naming the workspace folder itself, as pip's
 * editable installs write), and a .env with a secret next to the package. Generated code must neither import the package
 * (and delegate to the reference implementation) nor read the .env.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseAssertionLines } from '../../../src/core/tests/assertions';
import { runAssertions, runSuite } from '../../../src/core/sandbox/index';
import { scratch } from './hostileHelpers';

const linux = process.platform === 'linux';
const basePython = ['/usr/bin/python3', process.env.STEPWISE_PYTHON ?? ''].find(
  (p) => p && spawnSync(p, ['-c', 'import venv']).status === 0,
);
const ws = scratch('stepwise-workspace-');
const envFile = path.join(ws.dir, '.env');
const SECRET = 'API_TOKEN=hunter2-do-not-leak\n';
let python = '';

before(() => {
  if (!linux || !basePython) return;
  fs.writeFileSync(envFile, SECRET);
  fs.mkdirSync(path.join(ws.dir, 'refpkg'), { recursive: true });
  fs.writeFileSync(path.join(ws.dir, 'refpkg', '__init__.py'), 'def add(a, b):\n    return a + b\n');
  const venv = path.join(ws.dir, '.venv');
  // --system-site-packages: pytest comes from the base install, as in many workspaces.
  const made = spawnSync(basePython, ['-m', 'venv', '--without-pip', '--system-site-packages', venv]);
  assert.equal(made.status, 0, made.stderr?.toString());
  python = path.join(venv, 'bin', 'python');
  const site = spawnSync(python, ['-c', 'import sysconfig; print(sysconfig.get_paths()["purelib"])'], {
    encoding: 'utf8',
  }).stdout.trim();
  fs.writeFileSync(path.join(site, '__editable__.refpkg-0.1.pth'), `${ws.dir}\n`);
  const imports = spawnSync(python, ['-c', 'import refpkg; print(refpkg.add(2, 3))'], { encoding: 'utf8' });
  assert.equal(imports.stdout.trim(), '5', 'on the host the editable install is importable');
});

after(() => ws.cleanup());

async function assertionStatus(code: string, line: string, fn: string): Promise<string> {
  const { tests } = await parseAssertionLines(line, 'python', fn);
  assert.equal(tests.length, 1, `admitted: ${line}`);
  const r = await runAssertions({ language: 'python', code, tests, pythonPath: python, runs: 1 });
  assert.ok(r.isolation.isolated, r.isolation.summary);
  for (const bound of r.isolation.bound)
    for (const secret of [envFile, path.join(ws.dir, 'refpkg')])
      assert.ok(!secret.startsWith(`${bound}/`), `${bound} is bound, and holds ${secret}`);
  return `${r.verdicts[0].status}: ${r.verdicts[0].output}`;
}

test(
  'workspace: generated code cannot delegate to the package an editable install points at',
  { skip: !linux || !basePython },
  async () => {
    const status = await assertionStatus(
      'def add(a, b):\n    import refpkg\n    return refpkg.add(a, b)\n',
      'assert add(19, 23) == 42',
      'add',
    );
    assert.match(status, /^failed: .*(ModuleNotFoundError|No module named)/s);
  },
);

test(
  "workspace: generated code cannot read the workspace's .env",
  { skip: !linux || !basePython },
  async () => {
    const status = await assertionStatus(
      `def leak(n):\n    return open(${JSON.stringify(envFile)}).read()[:n]\n`,
      `assert leak(9) == ${JSON.stringify(SECRET.slice(0, 9))}`,
      'leak',
    );
    assert.match(status, /^failed: .*(FileNotFoundError|No such file)/s);
  },
);

test(
  "workspace: a pytest run finds none of the workspace's files, and the report lists exactly what was bound",
  { skip: !linux || !basePython },
  async () => {
    const r = await runSuite({
      language: 'python',
      code: '',
      pythonPath: python,
      tests: [
        {
          name: 'test_out_of_reach',
          source: `def test_out_of_reach():
    import importlib.util, os
    assert importlib.util.find_spec("refpkg") is None
    assert not os.path.exists(${JSON.stringify(envFile)})
    assert not os.path.exists(${JSON.stringify(path.join(ws.dir, 'refpkg'))})
    # Only the skeleton of the venv's own bound paths appears at the workspace's place.
    assert sorted(os.listdir(${JSON.stringify(ws.dir)})) == [".venv"], os.listdir(${JSON.stringify(ws.dir)})
`,
        },
      ],
    });
    assert.ok(r.isolation.isolated, r.isolation.summary);
    assert.equal(r.verdicts[0].status, 'passed', r.verdicts[0].output);
    const inWorkspace = r.isolation.bound.filter((p) => p === ws.dir || p.startsWith(`${ws.dir}/`));
    // From the workspace's venv: its config, its python and its site-packages, nothing else.
    for (const p of inWorkspace)
      assert.match(
        path.relative(ws.dir, p),
        /^\.venv\/(pyvenv\.cfg|bin\/python|lib\/python3\.\d+\/site-packages)$/,
      );
    assert.ok(r.isolation.bound.includes('/usr'), r.isolation.bound.join(', '));
  },
);
