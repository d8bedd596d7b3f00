/**
 * Integration layer: the mocha suite in test/suite runs inside the real extension host of
 * code-server (VS Code OSS), opened by headless chromium with the smoke-test driver's payload.
 * Prints `N passed, N failed` and writes test-output/results/integration.json.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CodeServer, copyWorkspace } from './codeServer';
import { launchBrowser } from './browser';
import { RESULTS, ROOT, runLayer } from './paths';
import { TEST_MODEL_SETTINGS, testModelEnv } from '../testModel';

interface SuiteResults {
  passed: number;
  failed: number;
  skipped: number;
  failures: { title: string; error: string }[];
  durationMs: number;
}

async function main(): Promise<number> {
  fs.mkdirSync(RESULTS, { recursive: true });
  const resultsFile = path.join(RESULTS, 'integration.json');
  fs.rmSync(resultsFile, { force: true });
  const workspace = copyWorkspace();
  const verbose = process.env.STEPWISE_HARNESS_VERBOSE === '1';
  const server = await CodeServer.start({
    workspace,
    smokeTestDriver: true,
    // The suites run on the fast test model, not the product's default (see test/testModel.ts).
    settings: TEST_MODEL_SETTINGS,
    env: {
      ...testModelEnv(),
      STEPWISE_TEST_RESULTS: resultsFile,
      STEPWISE_TEST_WORKSPACE: workspace,
      STEPWISE_TEST_OUTPUT: path.join(ROOT, 'test-output'),
      ...(process.env.STEPWISE_TEST_GREP ? { STEPWISE_TEST_GREP: process.env.STEPWISE_TEST_GREP } : {}),
    },
    log: verbose ? (l) => console.log(l) : undefined,
  });
  const { page, close } = await launchBrowser();
  const started = Date.now();
  try {
    const exit = new Promise<number>((resolve) => {
      void page.exposeFunction('codeAutomationExit', (code: number) => resolve(code));
    });
    // The workbench passes (type, args): print the text, which is what the suite logged.
    await page.exposeFunction('codeAutomationLog', (type: string, args: unknown[]) => {
      const text = (Array.isArray(args) ? args : [args])
        .map((a) => (typeof a === 'string' ? a : JSON.stringify(a)))
        .join(' ');
      if (text.trim()) console.log(type === 'error' ? `[extension host] ${text}` : text);
    });
    const remote = (p: string) => `vscode-remote://127.0.0.1:${server.port}${p}`;
    const payload = JSON.stringify([
      ['extensionDevelopmentPath', remote(ROOT)],
      ['extensionTestsPath', remote(path.join(ROOT, 'out', 'test', 'suite', 'index.js'))],
    ]);
    const url = `${server.url}/?folder=${encodeURIComponent(workspace)}&payload=${encodeURIComponent(payload)}`;
    await page.goto(url);
    const limitMs = Number(process.env.STEPWISE_INTEGRATION_TIMEOUT_MS ?? 20 * 60_000);
    const code = await Promise.race([
      exit,
      new Promise<number>((_, reject) =>
        setTimeout(
          () => reject(new Error(`The integration suite did not finish within ${limitMs / 60000} min.`)),
          limitMs,
        ).unref(),
      ),
    ]);
    const results: SuiteResults | undefined = fs.existsSync(resultsFile)
      ? JSON.parse(fs.readFileSync(resultsFile, 'utf8'))
      : undefined;
    if (!results) {
      console.error(
        `The extension host exited with ${code} without writing results (a wrong tests path also exits 1).`,
      );
      fs.writeFileSync(
        resultsFile,
        JSON.stringify({
          passed: 0,
          failed: 1,
          skipped: 0,
          failures: [{ title: 'suite', error: `exit ${code}, no results` }],
        }),
      );
      return 1;
    }
    for (const f of results.failures)
      console.error(`FAILED ${f.title}\n  ${f.error.split('\n').join('\n  ')}`);
    console.log(`integration: ${((Date.now() - started) / 1000).toFixed(1)} s`);
    console.log(
      `${results.passed} passed, ${results.failed} failed${results.skipped ? `, ${results.skipped} skipped` : ''}`,
    );
    return code === 0 && results.failed === 0 ? 0 : 1;
  } finally {
    await close();
    await server.stop();
    fs.rmSync(workspace, { recursive: true, force: true });
  }
}

runLayer('integration', main);
