import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { UiTest } from '../harness/workbench';
import { ROOT } from '../harness/paths';

// Runs in the page (Playwright evaluate); the test project compiles without the DOM library.
declare const getComputedStyle: (element: unknown, pseudo: string | null) => { display: string };

/** A real evaluation of the default model, checked in with the command that made it. */
const RESULT = path.join(ROOT, 'bench', 'results', 'eval-prove-math500.json');

export const tests: UiTest[] = [
  {
    name: 'Show Evaluation Report opens a report with its charts in the editor',
    timeoutMs: 120_000,
    async run(wb) {
      assert.ok(fs.existsSync(RESULT), `${RESULT} is missing: it is made by the command recorded in it`);
      const dir = path.join(wb.workspace, '.stepwise', 'eval');
      fs.mkdirSync(dir, { recursive: true });
      fs.copyFileSync(RESULT, path.join(dir, 'prove-MATH-500.json'));
      await wb.runCommand('View: Close All Editors');
      await wb.runCommand('Stepwise: Show Evaluation Report');
      const pick = wb.page
        .locator('.quick-input-list .monaco-list-row', { hasText: 'prove: MATH-500.jsonl' })
        .first();
      await pick.waitFor({ timeout: 20_000 });
      await pick.click();
      const frame = await wb.webviewWith('Stepwise evaluation: Prove and self-verify');
      const charts = frame.locator('svg.chart');
      assert.equal(await charts.count(), 4, 'accuracy per round, best-of-N, reliability diagram, ROC');
      for (const title of [
        'Accuracy after each round',
        'Reliability diagram',
        'ROC: scores vs correct answers',
      ])
        assert.ok((await frame.locator('svg.chart title', { hasText: title }).count()) === 1, title);
      // The page's own stylesheet applied under the webview's policy: the headline tiles are laid out as boxes.
      const display = await frame.locator('.headline').evaluate((el) => getComputedStyle(el, null).display);
      assert.equal(display, 'flex', 'the nonce-tagged stylesheet is in force');
      const text = await frame.locator('body').innerText();
      assert.match(text, /Final-answer accuracy/);
      assert.match(text, /stepwise eval prove/);
      await frame.locator('svg.chart').first().scrollIntoViewIfNeeded();
      await wb.screenshot('eval-report');
    },
  },
];
