import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import { runsDir } from '../../src/core/runs/folder';
import { DEFAULT_MODEL_NAME, DEFAULT_VARIANT, ladderModelDir } from '../../src/core/model/defaults';
import { DEFAULT_MODEL_ID } from '../../src/core/model/ladder/catalog';
import type { UiTest, Workbench } from '../harness/workbench';
import { editWorkspaceSettings } from '../harness/workspaceSettings';

// Runs in the page (Playwright evaluate); the test project compiles without the DOM library.
declare const getComputedStyle: (element: unknown, pseudo: string) => { content: string };

/** Asks the playground (Stepwise: Try the Model in the Playground) and waits for the answer to finish. */
async function askPlayground(wb: Workbench, prompt: string): Promise<{ model: string; output: string }> {
  await wb.runCommand('Stepwise: Try the Model in the Playground');
  const frame = await wb.webviewWith('Playground — Try the Model');
  await frame.locator('#prompt').fill(prompt);
  await frame.locator('#run').click();
  await frame.locator('#stats', { hasText: 'tokens/s' }).waitFor({ timeout: 180_000 });
  return {
    model: await frame.locator('#model').innerText(),
    output: await frame.locator('#output').innerText(),
  };
}

/**
 * The user-facing flows, driven as a person would, each ending in a screenshot. Each starts from
 * the harness's reset workbench (no editors, no quick input, no notifications), in any order.
 */
export const tests: UiTest[] = [
  {
    // The suites run on SmolLM2 for speed; this one runs the product's own default model, as
    // setup.sh installs it for a user, switched to through the settings a user would edit.
    name: 'Try the Model on the product default, Qwen2.5-Coder-0.5B-Instruct, answers the prompt',
    timeoutMs: 300_000,
    async run(wb) {
      const qwen = ladderModelDir(DEFAULT_MODEL_ID);
      assert.ok(fs.existsSync(path.join(qwen, 'onnx')), `the default model is not installed at ${qwen}`);
      const restore = editWorkspaceSettings(wb.workspace, {
        'stepwise.model.onnx.path': qwen,
        'stepwise.model.onnx.variant': DEFAULT_VARIANT,
      });
      try {
        // The extension host sees the edited settings.json once its file watcher fires; until
        // then the playground still runs the test model, so run it again as a user would.
        for (let attempt = 1; ; attempt++) {
          const { model, output } = await askPlayground(wb, 'What is 7 times 8? Answer with the number.');
          if (model.includes(DEFAULT_MODEL_NAME)) {
            assert.match(model, new RegExp(`${DEFAULT_MODEL_NAME} on CPU`));
            // A model that can do the job: the 0.5B gets this right; SmolLM2 does not reliably.
            assert.match(output, /56/);
            break;
          }
          assert.ok(attempt < 3, `the playground still runs ${model} after the settings changed`);
          await wb.page.waitForTimeout(5_000);
        }
        await wb.screenshot('playground-default-model');
      } finally {
        restore();
        // Back on the test model before the next test: the status bar drops the default model's
        // name once the extension has swapped its backend for the restored settings.
        await wb.page
          .locator('.statusbar', { hasText: DEFAULT_MODEL_NAME })
          .waitFor({ state: 'hidden', timeout: 60_000 });
      }
    },
  },
  {
    name: 'Try the Model streams the default model into the playground',
    timeoutMs: 240_000,
    async run(wb) {
      const { model, output } = await askPlayground(wb, 'Name three prime numbers.');
      assert.ok(output.trim().length > 0, 'the model wrote something');
      assert.match(model, /SmolLM2-135M-Instruct on CPU/);
      await wb.screenshot('playground');
    },
  },
  {
    name: 'Prove and Self-Verify shows steps, score distributions, the answer check and rewards; Show Calibration draws the run',
    timeoutMs: 360_000,
    async run(wb) {
      await wb.openFile('proofs/units-digit.md');
      await wb.runCommand('Stepwise: Prove and Self-Verify');
      const frame = await wb.webviewWith('Prove and Self-Verify');
      await frame.locator('#rewards').waitFor({ timeout: 280_000 });
      const text = await frame.locator('body').innerText();
      assert.match(text, /Self-score \(expected\)/);
      assert.match(text, /Verifier score \(expected\)/);
      assert.match(text, /R_format/);
      assert.match(text, /Iterations/);
      // Which mode produced the proof, and why when it was not constrained.
      const generation = await frame.locator('#generation').innerText();
      assert.match(generation, /Generator: (constrained \(\w[\w-]*\)|free — .+)/);
      assert.match(await frame.locator('#proof-mode').innerText(), /constrained|free generation/);
      // The reference answer of the document's "Answer:" line, and the proof's answer against it.
      assert.match(await frame.locator('#problem').innerText(), /Reference answer: 4/);
      assert.doesNotMatch(await frame.locator('#problem').innerText(), /Answer: 4\s*$/m);
      assert.match(await frame.locator('#answer-check').innerText(), /reference 4/);
      assert.ok((await frame.locator('#steps').count()) === 1, 'the proof section is shown');
      // The suites' SmolLM2 has no calibrator of its own: its P is marked as not calibrated for it.
      if (/P = /.test(await frame.locator('#judgment').innerText()))
        assert.match(
          await frame.locator('#judgment-calibrator.warning').innerText(),
          /not calibrated for these models/,
        );
      await wb.screenshot('prove-panel');
      // A constrained answer always has a self-score, shown with one bar per option (a free one
      // only when its text had a readable box).
      const options = await frame.locator('#self-score-distribution [data-option]').count();
      if (/Generator: constrained/.test(generation))
        assert.equal(options, 3, 'one bar per self-score option');
      else assert.ok(options === 0 || options === 3, `${options} self-score options`);

      // Calibration is drawn from saved Prove runs, so it is checked on the run just made: as a
      // test of its own it passed only when it happened to run after this one.
      await wb.runCommand('Stepwise: Show Calibration');
      const calibration = await wb.webviewWith('Calibration of scores');
      await calibration.locator('#summary').waitFor({ timeout: 30_000 });
      assert.match(await calibration.locator('#summary').innerText(), /[1-9]\d* saved run\(s\)/);
      for (const id of [
        '#p-correct-vs-answer',
        '#self-vs-answer',
        '#verifier-vs-answer',
        '#self-vs-verifier',
      ])
        assert.equal(await calibration.locator(id).count(), 1, id);
      // The run had a reference answer, so correctness is known for its candidate.
      assert.match(await calibration.locator('#self-vs-answer').innerText(), /candidates\s*[1-9]/);
      await wb.screenshot('calibration');

      // A run of a second model beside it: different models' scores are different scales, so the
      // panel shows one model at a time and pools them only when asked.
      const runs = runsDir(wb.workspace);
      const other = fs
        .readdirSync(runs)
        .filter((f) => f.endsWith('.json'))
        .sort()
        .map((f) => JSON.parse(fs.readFileSync(path.join(runs, f), 'utf8')))
        .filter((run) => run.kind === 'prove')
        .pop();
      other.id = randomUUID();
      other.models.generator.name = 'Other-Model';
      const otherFile = path.join(runs, 'other-model-run.json');
      fs.writeFileSync(otherFile, JSON.stringify(other));
      try {
        // A new panel opens (the first one's frame goes with it when closed); only it has a picker.
        await wb.runCommand('View: Close Editor');
        await wb.runCommand('Stepwise: Show Calibration');
        const perModel = await wb.webviewWith('Runs of');
        await perModel.locator('select#model').waitFor({ timeout: 30_000 });
        const options = await perModel.locator('select#model option').allInnerTexts();
        assert.ok(
          options.some((o) => /^SmolLM2-135M-Instruct \(\d+ runs\)$/.test(o)),
          options.join(' | '),
        );
        assert.ok(options.includes('Other-Model (1 runs)'), options.join(' | '));
        assert.match(
          await perModel.locator('#summary').innerText(),
          / of (SmolLM2-135M-Instruct|Other-Model):/,
        );
        await perModel.locator('select#model').selectOption('');
        await perModel.locator('#summary', { hasText: 'every model pooled' }).waitFor({ timeout: 30_000 });
        await wb.screenshot('calibration-models');
      } finally {
        fs.rmSync(otherFile, { force: true });
      }
    },
  },
  {
    name: 'Label steps from the keyboard: gutter marks and the Labels view',
    timeoutMs: 120_000,
    async run(wb) {
      await wb.openFile('proofs/sum-of-odd-numbers.md');
      const line = wb.page.locator('.view-line', { hasText: 'We argue by induction' }).first();
      await line.click();
      await wb.runCommand('Stepwise: Label Step as Positive (+1)');
      await wb.page.locator('.statusbar', { hasText: 'step 1 labelled +1' }).waitFor({ timeout: 20_000 });
      await wb.runCommand('Stepwise: Label Step as Neutral (0)');
      await wb.runCommand('Stepwise: Label Step as Negative (−1)');
      // The status bar confirms each durable label and counts what is left.
      await wb.page
        .locator('.statusbar', { hasText: 'step 3 labelled −1 · 2 left' })
        .waitFor({ timeout: 20_000 });
      await wb.page.locator('.activitybar [aria-label*="Stepwise"]').first().click();
      // The container has one view, so its title (not a pane header) names it.
      await wb.page
        .locator('.sidebar .title-label', { hasText: 'Stepwise' })
        .first()
        .waitFor({ timeout: 20_000 });
      // The view may already show the file from an earlier render: wait for its refreshed count.
      const row = wb.page.locator('.monaco-list-row', { hasText: 'sum-of-odd-numbers.md' }).first();
      await row.waitFor({ timeout: 20_000 });
      await row
        .filter({ hasText: '3/5 labelled' })
        .waitFor({ timeout: 20_000 })
        .catch(async () => assert.fail(`the Labels view still says: ${await row.innerText()}`));
      await wb.screenshot('labels');
    },
  },
  {
    name: 'Score Steps with the Process Reward Model marks every step with its score',
    timeoutMs: 120_000,
    async run(wb) {
      // The tiny exported PRM built by scripts/build-tiny-model.sh (random weights, real graph).
      const prm = path.resolve(__dirname, '..', '..', '..', '.cache', 'models', 'tiny-prm');
      assert.ok(fs.existsSync(path.join(prm, 'stepwise_export.json')), `build the tiny PRM first (${prm})`);
      const restore = editWorkspaceSettings(wb.workspace, { 'stepwise.prm.modelPath': prm });
      try {
        await wb.openFile('proofs/product-of-consecutive.md');
        // The extension host sees the edited settings.json only after its file watcher fires;
        // until then the command says no PRM is set. Run it again until the scores show, as a
        // user who had just changed the setting would (a spec run first met that window).
        const scoredBar = wb.page.locator('.statusbar', { hasText: 'PRM: 4 steps scored' });
        for (let attempt = 1; ; attempt++) {
          await wb.runCommand('Stepwise: Score Steps with the Process Reward Model');
          const shown = await scoredBar
            .waitFor({ timeout: 15_000 })
            .then(() => true)
            .catch(() => false);
          if (shown) break;
          assert.ok(attempt < 4, 'no step scores in the status bar after 4 runs of the command');
        }
        // Each step line carries its score after the text (an injected "PRM 0.xx").
        const marked = await wb.page
          .locator('.view-lines')
          .first()
          .evaluate(
            (el) =>
              [...el.querySelectorAll('span')]
                .map((s) => getComputedStyle(s, '::after').content)
                .filter((c) => /PRM \d\.\d\d/.test(c)).length,
          );
        assert.equal(marked, 4, 'each of the four steps shows its PRM score');
        await wb.screenshot('step-scores');
      } finally {
        restore();
      }
    },
  },
  {
    name: 'Generate Practice Set shows questions, metrics and the export button',
    // A practice set is the longest model job here (about 25 generations: the question, greedy,
    // best-of-3 and high-temperature answers, judge and pair passes): on the shared 2-core
    // machine at about 5 tokens/s it took 320-430 s.
    timeoutMs: 900_000,
    async run(wb) {
      await wb.runCommand('Stepwise: Generate Practice Set');
      // The command's own prompt, not whichever quick input is on screen (the palette closing).
      await wb.answerInput(
        { title: 'Stepwise: Generate Practice Set', prompt: 'Topic of the problems' },
        'arithmetic',
      );
      const frame = await wb.webviewWith('Practice Set');
      // This run's set, not one an earlier spec left in the panel: the panel first says it is
      // generating (on this topic), and only this run's result replaces that.
      await frame.locator('#progress', { hasText: 'arithmetic' }).waitFor({ timeout: 60_000 });
      await frame.locator('#summary').waitFor({ timeout: 880_000 });
      const text = await frame.locator('body').innerText();
      assert.match(text, /questions kept/);
      assert.match(text, /Export DPO pairs/);
      await wb.screenshot('practice');
    },
  },
];
