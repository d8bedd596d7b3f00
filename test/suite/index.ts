/**
 * The mocha entry point the extension host loads (`extensionTestsPath`), shared by the
 * code-server harness and @vscode/test-electron. Results go to $STEPWISE_TEST_RESULTS as JSON.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import Mocha from 'mocha';

// out/test/suite → the repository's test/suite, where each compiled test's source lives.
const SOURCES = path.resolve(__dirname, '..', '..', '..', 'test', 'suite');

/**
 * The compiled tests whose source still exists: tsc never deletes out/, so a renamed or removed
 * suite file would otherwise keep running from its stale .js under the old name.
 */
function findTests(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return findTests(p);
    if (!e.name.endsWith('.test.js')) return [];
    const source = path.join(SOURCES, path.relative(__dirname, p)).replace(/\.js$/, '.ts');
    if (fs.existsSync(source)) return [p];
    console.log(`  (skipping ${path.relative(__dirname, p)}: its source ${source} is gone)`);
    return [];
  });
}

export function run(): Promise<void> {
  const mocha = new Mocha({
    ui: 'tdd',
    color: false,
    // Our own pass/fail lines below are the log; the spec reporter's format strings arrive
    // unformatted through the extension host's console.
    reporter: 'base',
    timeout: 180_000,
    grep: process.env.STEPWISE_TEST_GREP,
  });
  for (const file of findTests(__dirname).sort()) mocha.addFile(file);
  const results = {
    passed: 0,
    failed: 0,
    skipped: 0,
    failures: [] as { title: string; error: string }[],
    durationMs: 0,
  };
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const runner = mocha.run((failures) => {
      results.durationMs = Date.now() - started;
      const file = process.env.STEPWISE_TEST_RESULTS;
      if (file) {
        fs.mkdirSync(path.dirname(file), { recursive: true });
        fs.writeFileSync(file, JSON.stringify(results, null, 2));
      }
      if (failures > 0) reject(new Error(`${failures} integration test(s) failed.`));
      else resolve();
    });
    runner.on('pass', (t) => {
      results.passed++;
      console.log(`  ✓ ${t.fullTitle()} (${t.duration} ms)`);
    });
    runner.on('fail', (t, err: Error) => {
      results.failed++;
      results.failures.push({ title: t.fullTitle(), error: String(err?.stack ?? err) });
      console.log(`  ✗ ${t.fullTitle()}: ${err?.message}`);
    });
    runner.on('pending', () => results.skipped++);
  });
}
