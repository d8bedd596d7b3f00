/**
 * UI layer: the packaged VSIX installed into code-server, the workbench driven in headless
 * chromium like a person would, screenshots under test-output/screenshots/. Every
 * out/test/ui/*.spec.js exports `tests: UiTest[]`; they share one browser and one code-server.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CodeServer, copyWorkspace, installVsix } from './codeServer';
import { launchBrowser } from './browser';
import { RESULTS, ROOT, runLayer } from './paths';
import { Workbench, type UiTest } from './workbench';

async function main(): Promise<number> {
  fs.mkdirSync(RESULTS, { recursive: true });
  const vsix = path.join(ROOT, 'dist', 'stepwise-linux-x64.vsix');
  if (!fs.existsSync(vsix)) throw new Error(`${vsix} is missing: run bash scripts/package-vsix.sh first.`);
  const extensionsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-ext-'));
  await installVsix(vsix, extensionsDir);
  const workspace = copyWorkspace();
  const specDir = path.join(ROOT, 'out', 'test', 'ui');
  const grep = process.env.STEPWISE_TEST_GREP;
  // Spec modules are compiled CommonJS found at run time, so they are required by path.
  const load = (f: string) => require(path.join(specDir, f)) as { tests: UiTest[] }; // eslint-disable-line @typescript-eslint/no-require-imports
  const tests: { file: string; test: UiTest }[] = fs
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
  // Short outputs keep the default model's runs within a UI test's time; the flows are the same.
  const settings = {
    'stepwise.model.maxOutputTokens': 64,
    'stepwise.prove.maxIterations': 1,
    'stepwise.practice.questions': 1,
    'stepwise.practice.judgePasses': 2,
  };
  const server = await CodeServer.start({
    workspace,
    extensionsDir,
    settings,
    env: { STEPWISE_TEST_WORKSPACE: workspace },
  });
  const { page, close } = await launchBrowser();
  const results = { passed: 0, failed: 0, skipped: 0, failures: [] as { title: string; error: string }[] };
  try {
    await page.goto(`${server.url}/?folder=${encodeURIComponent(workspace)}`);
    const workbench = new Workbench(page, workspace);
    await workbench.ready();
    for (const { file, test } of tests) {
      const started = Date.now();
      try {
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
        console.log(`  ✓ ${test.name} (${Date.now() - started} ms)`);
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
  console.log(`${results.passed} passed, ${results.failed} failed`);
  return results.failed === 0 ? 0 : 1;
}

runLayer('ui', main);
