import * as assert from 'node:assert/strict';
import type { UiTest } from '../harness/workbench';

/**
 * Panels a person can follow: Check My Proof on their own proof, the proof kept on screen while its
 * steps are scored, a cancelled run shown as cancelled, and the evaluation report before any
 * evaluation of their own. Names start with "Panels:" so that STEPWISE_TEST_GREP=Panels runs them.
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
      await wb.screenshot('prove-cancelled');
    },
  },
  {
    name: 'Panels: Show Evaluation Report before any evaluation offers the shipped results and Run evaluation',
    timeoutMs: 60_000,
    async run(wb) {
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
