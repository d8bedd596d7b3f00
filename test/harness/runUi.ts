/**
 * UI layer: the packaged VSIX installed into code-server, the workbench driven in headless
 * chromium like a person would, screenshots under test-output/screenshots/. Every
 * out/test/ui/*.spec.js exports `tests: UiTest[]`; they share one browser and one code-server,
 * and the workbench is reset to one known state before each (see resetWorkbench.ts).
 * STEPWISE_TEST_GREP=<part of a name> runs a subset; STEPWISE_TEST_SHUFFLE=<seed|random> runs
 * the tests of all spec files in a seeded random order, printed with the seed to replay it.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CodeServer, copyWorkspace, installVsix } from './codeServer';
import { launchBrowser } from './browser';
import { RESULTS, ROOT, SCREENSHOTS, runLayer } from './paths';
import { TEST_MODEL_SETTINGS, testModelEnv } from '../testModel';
import { Workbench, type UiTest } from './workbench';
import { resetWorkbench } from './resetWorkbench';
import { seededShuffle, shuffleSeed } from './shuffle';

interface PlannedTest {
  file: string;
  test: UiTest;
}

async function main(): Promise<number> {
  fs.mkdirSync(RESULTS, { recursive: true });
  // A failure screenshot from an earlier run would look like one from this run.
  if (fs.existsSync(SCREENSHOTS))
    for (const f of fs.readdirSync(SCREENSHOTS).filter((n) => n.startsWith('FAILED-')))
      fs.rmSync(path.join(SCREENSHOTS, f));
  const vsix = path.join(ROOT, 'dist', 'stepwise-linux-x64.vsix');
  if (!fs.existsSync(vsix)) throw new Error(`${vsix} is missing: run bash scripts/package-vsix.sh first.`);
  const extensionsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-ext-'));
  await installVsix(vsix, extensionsDir);
  const workspace = copyWorkspace();
  const specDir = path.join(ROOT, 'out', 'test', 'ui');
  const grep = process.env.STEPWISE_TEST_GREP;
  // Spec modules are compiled CommonJS found at run time, so they are required by path.
  const load = (f: string) => require(path.join(specDir, f)) as { tests: UiTest[] }; // eslint-disable-line @typescript-eslint/no-require-imports
  const inFileOrder: PlannedTest[] = fs
    .readdirSync(specDir)
    .filter((f) => f.endsWith('.spec.js'))
    .sort()
    .flatMap((f) =>
      (load(f).tests ?? []).map((test) => ({
        file: f,
        test,
      })),
    )
    .filter((t) => !grep || t.test.name.includes(grep));
  const seed = shuffleSeed(process.env.STEPWISE_TEST_SHUFFLE);
  const tests = seed === undefined ? inFileOrder : seededShuffle(inFileOrder, seed);
  if (seed !== undefined) {
    console.log(`UI specs shuffled with STEPWISE_TEST_SHUFFLE=${seed} (replay it with that value):`);
    tests.forEach((t, i) => console.log(`  ${i + 1}. ${t.file}: ${t.test.name}`));
  }
  // Short outputs keep the default model's runs within a UI test's time; the flows are the same.
  // The specs run on the fast test model, not the product's default (see test/testModel.ts).
  const settings = {
    ...TEST_MODEL_SETTINGS,
    'stepwise.model.maxOutputTokens': 64,
    'stepwise.prove.maxIterations': 1,
    'stepwise.practice.questions': 1,
    'stepwise.practice.judgePasses': 2,
  };
  const server = await CodeServer.start({
    workspace,
    extensionsDir,
    settings,
    env: { ...testModelEnv(), STEPWISE_TEST_WORKSPACE: workspace },
  });
  const { page, close } = await launchBrowser();
  const results = {
    passed: 0,
    failed: 0,
    skipped: 0,
    failures: [] as { title: string; error: string }[],
    shuffleSeed: seed ?? null,
    order: tests.map((t) => `${t.file}: ${t.test.name}`),
  };
  try {
    await page.goto(`${server.url}/?folder=${encodeURIComponent(workspace)}`);
    const workbench = new Workbench(page, workspace);
    await workbench.ready();
    for (const { file, test } of tests) {
      let started = Date.now();
      let resetMs = 0;
      try {
        // Outside the test's own time: a reset that cannot finish fails the test it was for.
        await resetWorkbench(workbench);
        resetMs = Date.now() - started;
        started = Date.now();
        await Promise.race([
          test.run(workbench),
          new Promise((_, reject) =>
            setTimeout(
              () => reject(new Error(`timed out after ${test.timeoutMs ?? 180_000} ms`)),
              test.timeoutMs ?? 180_000,
            ).unref(),
          ),
        ]);
        results.passed++;
        console.log(`  ✓ ${test.name} (${Date.now() - started} ms, reset before it ${resetMs} ms)`);
      } catch (err) {
        results.failed++;
        results.failures.push({ title: `${file}: ${test.name}`, error: String((err as Error).stack ?? err) });
        console.log(`  ✗ ${test.name}: ${(err as Error).message}`);
        await workbench.screenshot(`FAILED-${test.name.replace(/\W+/g, '-')}`).catch(() => undefined);
      }
    }
  } finally {
    await close();
    await server.stop();
    fs.rmSync(workspace, { recursive: true, force: true });
    fs.rmSync(extensionsDir, { recursive: true, force: true });
    fs.writeFileSync(path.join(RESULTS, 'ui.json'), JSON.stringify(results, null, 2));
  }
  for (const f of results.failures) console.error(`FAILED ${f.title}\n  ${f.error.split('\n').join('\n  ')}`);
  if (results.failed && seed !== undefined)
    console.error(`This order can be replayed: STEPWISE_TEST_SHUFFLE=${seed} npm run test:ui`);
  console.log(`${results.passed} passed, ${results.failed} failed`);
  return results.failed === 0 ? 0 : 1;
}

runLayer('ui', main);
