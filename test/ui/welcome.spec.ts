import * as assert from 'node:assert/strict';
import type { UiTest } from '../harness/workbench';

export const tests: UiTest[] = [
  {
    name: 'Show Welcome from the command palette renders the welcome panel',
    async run(wb) {
      await wb.runCommand('Stepwise: Show Welcome');
      const frame = await wb.webviewWith('Welcome to Stepwise');
      assert.equal(await frame.locator('h1').innerText(), 'Welcome to Stepwise');
      // The model card says which model and in what state, whatever that state is.
      const modelStatus = await frame.locator('#model-status').innerText();
      assert.match(modelStatus, /Model:/);
      assert.match(modelStatus, /Not loaded|Ready|Loading|Error|Failed/i);
      assert.match(await frame.locator('body').innerText(), /Prove and Self-Verify/);
      // Six actions, each a real button a person can click.
      assert.equal(await frame.locator('button.action').count(), 6);
      await wb.screenshot('welcome');
    },
  },
];
