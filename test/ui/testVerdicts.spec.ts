import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { ROOT } from '../harness/paths';
import type { PageGlobals } from '../harness/dom';
import type { UiTest, Workbench } from '../harness/workbench';
import { editWorkspaceSettings } from '../harness/workspaceSettings';
import { SCRIPTED_MODEL, startScriptedCoder } from '../servers/scripted-coder';

/** The Testing API's state icons, as the workbench draws them in the gutter and the Test Explorer. */
const STATE_ICON = /codicon-testing-(passed|failed|error|skipped|queued|unset)-icon/;

/** Every testing state icon inside `selector`, by state ("failed", "skipped", ...). */
async function testingIcons(wb: Workbench, selector: string): Promise<string[]> {
  const classes = await wb.page.evaluate(
    (sel) =>
      Array.from(
        (globalThis as unknown as PageGlobals).document.querySelectorAll(
          `${sel} [class*="codicon-testing-"]`,
        ),
      ).map((el) => el.className),
    selector,
  );
  return classes.flatMap((c) => STATE_ICON.exec(c)?.[1] ?? []);
}

/** Every codicon class in the editor part: what to look for when the gutter's icons change name. */
async function editorCodicons(wb: Workbench): Promise<string[]> {
  return wb.page.evaluate(() =>
    Array.from(
      (globalThis as unknown as PageGlobals).document.querySelectorAll('.part.editor [class*="codicon-"]'),
    ).map((el) => el.className),
  );
}

/**
 * "Reason & generate tests" on a correct function, clicked as a person would, with the model
 * answering as the issue found it answering (test/servers/scripted-coder.ts: a wrong expectation,
 * a call with two arguments, correct implementations). The suites' small model writes no
 * admissible test for merge_intervals, so it cannot show this; everything after the model's words
 * (the endpoint backend, the signature check, the sandbox, the evidence, the Test Explorer, the
 * panel) is the product's own.
 */
export const tests: UiTest[] = [
  {
    name: 'Reason & generate tests on merge_intervals (correct): no red ✗, no failed test, wrong expectations unconfirmed with their evidence',
    timeoutMs: 300_000,
    async run(wb) {
      const endpoint = await startScriptedCoder();
      const restore = editWorkspaceSettings(wb.workspace, {
        'stepwise.model.backend': 'openai',
        'stepwise.model.openai.baseUrl': `${endpoint.origin}/v1`,
        'stepwise.model.openai.model': SCRIPTED_MODEL,
        // The installed extension finds no project venv, and python3 on this machine is a pyenv
        // shim that does not run inside the sandbox (every test came back "does not collect"):
        // the interpreter is picked as a user with pyenv would.
        'stepwise.python.interpreterPath': path.join(ROOT, '.venv', 'bin', 'python'),
      });
      try {
        // The extension host reads the edited settings once its file watcher fires; the status
        // bar then names the endpoint's model.
        await wb.page.locator('.statusbar', { hasText: SCRIPTED_MODEL }).waitFor({ timeout: 60_000 });
        await wb.openFile('code/intervals.py');
        // The first lens of the file sits above merge_intervals.
        const lens = wb.page
          .locator('.contentWidgets .codelens-decoration a', { hasText: 'Reason & generate tests' })
          .first();
        await lens.waitFor({ timeout: 60_000 });
        await lens.click();
        const frame = await wb.webviewWith('Reason & generate tests', 60_000);
        await frame.locator('#phase', { hasText: 'done in' }).waitFor({ timeout: 240_000 });
        assert.match(await frame.locator('#phase').innerText(), new RegExp(SCRIPTED_MODEL));
        const text = await frame.locator('body').innerText();
        assert.match(text, /Reason & generate tests: merge_intervals/);
        assert.match(text, /Five stages/);
        assert.match(text, /Informal reasoning/);
        assert.match(text, /Executable code/);
        // The call with two lists never ran: stage 2's badge says why it was dropped.
        assert.match(
          (await frame.locator('.badge').nth(1).getAttribute('title')) ?? '',
          /merge_intervals takes 1 positional argument, but this call gives 2/,
        );
        // The reward says what it rests on: 3 valid tests of 4 (the wrong one is not valid).
        assert.match(
          await frame.locator('#metric-generator').innerText(),
          /generator reward 1\.00 on 3 valid tests of 4/,
        );
        // One count of the suite everywhere the panel states it: heading, validity note, support.
        const total = text.match(/Accumulated suite \((\d+) tests\)/)?.[1];
        const validity = (await frame.locator('#metric-validity').innerText()).match(/(\d+) of (\d+) tests/);
        const support = (await frame.locator('#metric-generator').innerText()).match(
          /on (\d+) valid tests? of (\d+)/,
        );
        assert.ok(total && validity && support, text);
        assert.equal(validity[2], total, 'the validity note counts the suite the heading counts');
        assert.equal(support[2], total, "the reward's support counts the same suite");
        assert.equal(support[1], validity[1], 'the same valid tests under both');

        // The wrong expectation: listed apart, with what the function did and the evidence.
        const unconfirmed = frame.locator('#unconfirmed');
        await unconfirmed.waitFor({ timeout: 10_000 });
        assert.match(await unconfirmed.innerText(), /1 unconfirmed expectation\(s\) to review/);
        const item = await unconfirmed.locator('li.expectation').innerText();
        assert.match(item, /assert merge_intervals\(\[\(1, 3\), \(4, 5\)\]\) == \[\(1, 5\)\]/);
        assert.match(item, /Your function: ✗ failed\./);
        assert.match(item, /Evidence: 0 of 3 generated implementations pass it.*\(confidence 0\.00\)/s);
        assert.match(item, /Accept: my function is wrong/);
        assert.equal(
          await frame.locator('#confirmed-failures').count(),
          0,
          'no failure confirmed on correct code',
        );

        // The editor: the tests' states sit in the gutter of merge_intervals; none is a failure.
        // The whole editor part: the glyph margin's widgets are not all inside `.margin`.
        // The Test Explorer's gutter marks render after the panel's figures: wait for them a while.
        let gutter = await testingIcons(wb, '.part.editor .monaco-editor');
        for (let waited = 0; gutter.length === 0 && waited < 15_000; waited += 500) {
          await wb.page.waitForTimeout(500);
          gutter = await testingIcons(wb, '.part.editor .monaco-editor');
        }
        console.log(`    gutter testing icons: ${gutter.join(', ') || 'none'}`);
        if (gutter.length === 0)
          console.log(`    editor codicons: ${(await editorCodicons(wb)).join(' | ')}`);
        assert.ok(gutter.length > 0, 'the run left its states in the gutter');
        assert.ok(
          !gutter.some((s) => s === 'failed' || s === 'error'),
          `a red mark in the gutter: ${gutter}`,
        );
        // The picture shows what the user reviews: the expectation and its evidence beside the code.
        await unconfirmed.scrollIntoViewIfNeeded();
        await wb.screenshot('test-verdicts-merge-intervals');

        // The Test Explorer: the function's suite is there and holds no failed test (a parent's
        // icon is its worst child's, so the folded suite row speaks for every test in it).
        await wb.page.locator('.activitybar [aria-label*="Testing"]').first().click();
        const row = wb.page.locator('.sidebar .monaco-list-row', { hasText: 'merge_intervals' }).first();
        await row.waitFor({ timeout: 20_000 });
        const explorer = await testingIcons(wb, '.sidebar .monaco-list');
        console.log(`    Test Explorer icons: ${explorer.join(', ') || 'none'}`);
        assert.ok(explorer.length > 0, 'the Test Explorer shows the run');
        assert.ok(!explorer.some((s) => s === 'failed' || s === 'error'), `a failed test: ${explorer}`);
        await wb.screenshot('test-verdicts-test-explorer');
      } finally {
        restore();
        await endpoint.close();
        // Back on the test model before the next test.
        await wb.page
          .locator('.statusbar', { hasText: SCRIPTED_MODEL })
          .waitFor({ state: 'hidden', timeout: 60_000 })
          .catch(() => undefined);
      }
    },
  },
];
