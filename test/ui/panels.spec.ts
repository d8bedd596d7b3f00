import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { UiTest, Workbench } from '../harness/workbench';

/** A proof a person is still writing: its last step stops inside a formula, as a cut output does. */
const DRAFT = `# A sum of fractions

## Problem

Show that $\\frac{1}{2} + \\frac{1}{3} = \\frac{5}{6}$.

## Solution

Over the common denominator \`6\`, $\\frac{1}{2} = \\frac{3}{6}$ and $\\frac{1}{3} = \\frac{2}{6}$.

Adding the numerators gives $\\frac{3 + 2}{
`;

/** The workspace as a person's who has run no evaluation of their own. */
function withoutOwnEvaluations(wb: Workbench): void {
  fs.rmSync(path.join(wb.workspace, '.stepwise', 'eval'), { recursive: true, force: true });
}

/**
 * Panels a person can follow: Check My Proof on their own proof, the proof kept on screen while its
 * steps are scored (a check's and a Prove run's), a new run, started from the panel, replacing the result shown, a cancelled run shown as cancelled,
 * unfinished math, the model picker's figures against the report's, and the evaluation report
 * before any evaluation of their own. Names start with "Panels:" so that
 * STEPWISE_TEST_GREP=Panels runs them.
 */
export const tests: UiTest[] = [
  {
    name: 'Panels: Check My Proof on sqrt-two-irrational.md keeps the proof shown while scoring, then shows the grade, issues and labels',
    timeoutMs: 360_000,
    async run(wb) {
      await wb.openFile('proofs/sqrt-two-irrational.md');
      await wb.runCommand('Stepwise: Check My Proof');
      const frame = await wb.webviewWith('Check My Proof');
      // From the start, the person's proof is on screen while the model reads it.
      await frame
        .locator('#live-proof', { hasText: 'Suppose, for contradiction' })
        .waitFor({ timeout: 120_000 });
      assert.match(await frame.locator('#progress').innerText(), /scoring the steps|grading|checking/);
      await wb.screenshot('check-my-proof-running');
      await frame.locator('#issues').waitFor({ timeout: 300_000 });
      const text = await frame.locator('body').innerText();
      assert.match(text, /Verifier score \(expected\)/);
      assert.match(text, /Issues the verifier found/);
      assert.doesNotMatch(text, /Reward R|R_format/, 'a checked proof has no reward');
      // P(correct) from the calibrator, in the words the Prove panel uses.
      const judgment = await frame.locator('#judgment').innerText();
      assert.match(
        judgment,
        /(likely wrong|uncertain|likely right) \(P = [01]\.\d\d\)|no calibrated judgment/,
      );
      // No shipped calibrator was fitted on SmolLM2: P is shown with the warning that it is not
      // calibrated for this model, never as if it were.
      if (/P = /.test(judgment))
        assert.match(
          await frame.locator('#judgment-calibrator.warning').innerText(),
          /fitted on Qwen2\.5-Coder-0\.5B-Instruct, not on this run's models/,
        );
      // No generator ran: the panel names only the verifier's mode.
      assert.doesNotMatch(await frame.locator('#generation').innerText(), /Generator/);
      assert.equal(
        await frame.locator('#steps [data-step]').count(),
        5,
        "one row per step of the person's proof",
      );
      // Label step 3 wrong, in place.
      await frame.locator('#steps [data-step="2"] button[data-rating="-1"]').click();
      await frame.locator('#steps [data-step="2"] button.on[data-rating="-1"]').waitFor({ timeout: 20_000 });
      await wb.screenshot('check-my-proof');
    },
  },
  {
    name: 'Panels: Prove keeps the proof it wrote on screen while its steps are scored and graded',
    timeoutMs: 300_000,
    async run(wb) {
      await wb.openFile('proofs/units-digit.md');
      await wb.runCommand('Stepwise: Prove and Self-Verify');
      const frame = await wb.webviewWith('Prove and Self-Verify');
      const proof = frame.locator('#live-proof pre').first();
      // The stage after writing: the proof written so far must not vanish, nor be cut.
      await frame.locator('#progress', { hasText: 'scoring the steps' }).waitFor({ timeout: 180_000 });
      const written = (await proof.innerText()).trim();
      assert.ok(written.length > 0, 'the written proof is shown while its steps are scored');
      assert.match(await frame.locator('#live-proof h2').innerText(), /Proof so far/);
      await wb.screenshot('prove-scoring-steps');
      // Through grading too, the same text.
      await frame.locator('#progress', { hasText: 'grading the proof' }).waitFor({ timeout: 120_000 });
      assert.equal((await proof.innerText()).trim(), written, 'the proof is unchanged while it is graded');
      await frame.locator('#cancel').click();
      await frame.locator('#cancelled').waitFor({ timeout: 60_000 });
    },
  },
  {
    name: 'Panels: a cancelled Prove run is shown as cancelled, with what it finished, not as a failure',
    timeoutMs: 240_000,
    async run(wb) {
      await wb.openFile('proofs/sqrt-two-irrational.md');
      await wb.runCommand('Stepwise: Prove and Self-Verify');
      const frame = await wb.webviewWith('Prove and Self-Verify');
      await frame.locator('#live-proof pre').waitFor({ timeout: 120_000 });
      await frame.locator('#progress', { hasText: 'tokens' }).waitFor({ timeout: 60_000 });
      await frame.locator('#cancel').click();
      await frame.locator('#cancelled').waitFor({ timeout: 60_000 });
      const text = await frame.locator('body').innerText();
      assert.match(await frame.locator('#status').innerText(), /cancelled after/);
      assert.doesNotMatch(text, /R_format|failed|missing ## Self Evaluation/);
      assert.equal(await frame.locator('#problem .katex').count(), 1, "the problem's √2 is typeset");
      await wb.screenshot('prove-cancelled');
    },
  },
  {
    name: 'Panels: a new run clears the result shown at once and shows its own progress',
    timeoutMs: 300_000,
    async run(wb) {
      await wb.openFile('proofs/sqrt-two-irrational.md');
      await wb.runCommand('Stepwise: Check My Proof');
      const frame = await wb.webviewWith('Check My Proof');
      await frame.locator('#issues').waitFor({ timeout: 240_000 });
      // The person reads the result in the panel, which takes the focus from the document: Prove
      // from the palette still proves the document's problem, without asking for one.
      await frame.locator('h1').click();
      await wb.runCommand('Stepwise: Prove and Self-Verify');
      // The same panel, now the new run's: none of the check's figures stay beside its progress.
      await frame.locator('h1', { hasText: 'Prove and Self-Verify' }).waitFor({ timeout: 30_000 });
      assert.equal(
        await wb.page.locator('.quick-input-widget:visible', { hasText: 'The problem to prove' }).count(),
        0,
        'Prove did not ask for a problem',
      );
      assert.equal(
        await frame.locator('#issues, #verifier-score, #judgment, #steps').count(),
        0,
        "the checked proof's result is gone",
      );
      await frame.locator('#live-proof pre').waitFor({ timeout: 60_000 });
      assert.match(
        await frame.locator('#progress').innerText(),
        /Round 1: (writing the proof|scoring the steps|grading the proof)/,
      );
      await wb.screenshot('prove-replaced-run');
      await frame.locator('#cancel').click();
      await frame.locator('#cancelled').waitFor({ timeout: 60_000 });
      // It proved the document's problem, the one the check was about.
      assert.match(await frame.locator('#problem').innerText(), /irrational/);
    },
  },
  {
    name: 'Panels: unfinished math in a proof is shown as its source in code style, with no stray markup',
    timeoutMs: 300_000,
    async run(wb) {
      const file = path.join(wb.workspace, 'proofs', 'draft-fractions.md');
      fs.writeFileSync(file, DRAFT);
      try {
        await wb.openFile('proofs/draft-fractions.md');
        await wb.runCommand('Stepwise: Check My Proof');
        const frame = await wb.webviewWith('Check My Proof');
        await frame.locator('#issues').waitFor({ timeout: 240_000 });
        const steps = frame.locator('#steps [data-step]');
        assert.equal(await steps.count(), 2);
        // The finished formulas are typeset; the cut one is its source, in code style.
        assert.equal(await steps.nth(0).locator('.katex').count(), 2);
        assert.equal(await steps.nth(1).locator('code.math-source').innerText(), '$\\frac{3 + 2}{');
        assert.equal(await frame.locator('.katex-error').count(), 0, 'no red KaTeX errors');
        // Inline code keeps its text and loses its backticks; no dollar sign is left in the prose.
        assert.equal(await steps.nth(0).locator('code').first().innerText(), '6');
        const prose = await steps.nth(0).locator('.text').innerText();
        assert.doesNotMatch(prose, /[`$]/, prose);
        await steps.nth(1).scrollIntoViewIfNeeded();
        await wb.screenshot('unfinished-math');
      } finally {
        fs.rmSync(file, { force: true });
      }
    },
  },
  {
    name: "Panels: the model picker quotes the default model's figures from the evaluation report",
    timeoutMs: 120_000,
    async run(wb) {
      withoutOwnEvaluations(wb);
      await wb.runCommand('Stepwise: Select Model');
      await wb.quickInput.waitFor({ title: 'Stepwise: Select Model' }, 30_000);
      const row = wb.page
        .locator('.quick-input-widget .quick-input-list .monaco-list-row', { hasText: 'answers right' })
        .first();
      await row.waitFor({ timeout: 15_000 });
      const quoted = (await row.innerText()).match(
        /(\d+) of (\d+) (\S+) answers right · (\d+) s per problem on (\d+) CPU cores/,
      );
      assert.ok(quoted, `the picker quotes accuracy and speed: ${await row.innerText()}`);
      // The shipped calibrator was fitted on the default model's proofs, and on no other's.
      assert.match(await row.innerText(), /P\(correct\) calibrated/);
      const tiny = wb.page
        .locator('.quick-input-widget .quick-input-list .monaco-list-row', {
          hasText: 'SmolLM2-135M-Instruct',
        })
        .first();
      assert.match(await tiny.innerText(), /P\(correct\) not calibrated for it/);
      const [, k, n, dataset, seconds, cores] = quoted;
      await wb.screenshot('picker-figures');
      await wb.runCommand('Stepwise: Show Evaluation Report');
      await wb.answerPick({ title: 'Stepwise: Show Evaluation Report' }, `prove: ${dataset}`);
      const report = await wb.webviewWith('Stepwise evaluation: Prove and self-verify');
      const accuracy = await report.locator('.tile', { hasText: 'Final-answer accuracy' }).innerText();
      assert.match(accuracy, new RegExp(`\\b${k}/${n} problems`), 'the same k of n in both');
      const perItem = await report.locator('dl.facts div', { hasText: 'Time per item' }).innerText();
      const measured = perItem.match(/([\d.]+) s.* on (\d+) cores/);
      assert.ok(measured, perItem);
      assert.equal(Math.round(Number(measured[1])), Number(seconds), 'the same seconds per problem');
      assert.equal(measured[2], cores, 'on the same machine');
      await wb.screenshot('picker-figures-report');
    },
  },
  {
    name: 'Panels: Show Evaluation Report before any evaluation offers the shipped results and Run evaluation',
    timeoutMs: 60_000,
    async run(wb) {
      withoutOwnEvaluations(wb);
      await wb.runCommand('Stepwise: Show Evaluation Report');
      await wb.quickInput.waitFor({ title: 'Stepwise: Show Evaluation Report' }, 30_000);
      await wb
        .quickInputRow('$(play) Run evaluation…')
        .or(wb.quickInputRow('Run evaluation…'))
        .waitFor({ timeout: 10_000 });
      await wb.page
        .locator('.quick-input-widget', { hasText: 'shipped with Stepwise' })
        .waitFor({ timeout: 10_000 });
      await wb.screenshot('eval-report-first-contact');
      await wb.answerPick({ title: 'Stepwise: Show Evaluation Report' }, 'prove: MATH-500.jsonl');
      await wb.webviewWith('Stepwise evaluation: Prove and self-verify');
    },
  },
];
