// Runs every test layer in order and ends with one summary line `N passed, N failed`.
// Layers: lint, unit (node:test), trainer (pytest), integration (real extension host in
// code-server), ui (real workbench in chromium). Each layer's counts come from its own report.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const RESULTS = 'test-output/results';
mkdirSync(RESULTS, { recursive: true });
const only = process.argv.slice(2);

function run(cmd, args, env = {}) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: 'inherit', env: { ...process.env, ...env } });
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 128 : 1)));
  });
}

function readJson(file) {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

function countTap(file) {
  const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const num = (key) => Number((text.match(new RegExp(`^# ${key} (\\d+)`, 'm')) ?? [])[1] ?? 0);
  return {
    passed: num('pass'),
    failed: num('fail') + num('cancelled'),
    skipped: num('skipped') + num('todo'),
  };
}

function countJunit(file) {
  const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const m = text.match(/<testsuite [^>]*>/);
  if (!m) return undefined;
  const attr = (k) => Number((m[0].match(new RegExp(`\\b${k}="(\\d+)"`)) ?? [])[1] ?? 0);
  const failed = attr('failures') + attr('errors');
  return { passed: attr('tests') - failed - attr('skipped'), failed, skipped: attr('skipped') };
}

const layers = [
  {
    name: 'lint',
    async run() {
      const code = await run('npm', ['run', '--silent', 'lint']);
      return { passed: code === 0 ? 1 : 0, failed: code === 0 ? 0 : 1, skipped: 0 };
    },
  },
  {
    name: 'unit',
    async run() {
      const tap = join(RESULTS, 'unit.tap');
      rmSync(tap, { force: true });
      const code = await run(process.execPath, ['scripts/run-unit-tests.mjs'], { STEPWISE_UNIT_TAP: tap });
      const counts = countTap(tap);
      if (code !== 0 && counts.failed === 0) counts.failed = 1;
      // The sandbox tests again as an unprivileged user (most people run Stepwise that way): no
      // pids cgroup, no root-owned interpreter, user namespaces only.
      if (process.platform === 'linux') {
        const unprivileged = join(RESULTS, 'unit-unprivileged.tap');
        rmSync(unprivileged, { force: true });
        const code2 = await run('bash', ['scripts/run-sandbox-tests-unprivileged.sh'], {
          STEPWISE_UNIT_TAP: unprivileged,
        });
        const more = countTap(unprivileged);
        if (code2 !== 0 && more.failed === 0) more.failed = 1;
        for (const k of ['passed', 'failed', 'skipped']) counts[k] += more[k];
      }
      return counts;
    },
  },
  {
    name: 'trainer',
    async run() {
      const xml = join(RESULTS, 'pytest.xml');
      rmSync(xml, { force: true });
      const code = await run('.venv/bin/python', [
        '-m',
        'pytest',
        'trainer/tests',
        '-q',
        `--junitxml=${xml}`,
      ]);
      const counts = countJunit(xml) ?? { passed: 0, failed: 1, skipped: 0 };
      if (code !== 0 && counts.failed === 0) counts.failed = 1;
      return counts;
    },
  },
  { name: 'integration', script: 'test:integration', report: 'integration.json' },
  { name: 'ui', script: 'test:ui', report: 'ui.json' },
];

const totals = { passed: 0, failed: 0, skipped: 0 };
const lines = [];
for (const layer of layers) {
  if (only.length && !only.includes(layer.name)) continue;
  process.stdout.write(`\n===== ${layer.name} =====\n`);
  let counts;
  if (layer.run) {
    counts = await layer.run();
  } else {
    const file = join(RESULTS, layer.report);
    rmSync(file, { force: true });
    const code = await run('npm', ['run', '--silent', layer.script]);
    const r = readJson(file);
    counts = r
      ? { passed: r.passed ?? 0, failed: r.failed ?? 0, skipped: r.skipped ?? 0 }
      : { passed: 0, failed: 1, skipped: 0 };
    if (code !== 0 && counts.failed === 0) counts.failed = 1;
  }
  totals.passed += counts.passed;
  totals.failed += counts.failed;
  totals.skipped += counts.skipped;
  lines.push(
    `${layer.name.padEnd(12)} ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`,
  );
}
process.stdout.write(`\n===== summary =====\n${lines.join('\n')}\n`);
process.stdout.write(`${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped\n`);
process.exit(totals.failed === 0 ? 0 : 1);
