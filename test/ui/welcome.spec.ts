import * as assert from 'node:assert/strict';
import type { UiTest } from '../harness/workbench';

export const tests: UiTest[] = [
  {
    name: 'Show Welcome from the command palette renders the welcome panel',
    async run(wb) {
      await wb.runCommand('Stepwise: Show Welcome');
      const frame = await wb.webviewWith('Welcome to Stepwise');
      const text = await frame.locator('body').innerText();
      assert.match(text, /Model:/);
      assert.match(text, /Prove and Self-Verify/);
      assert.match(text, /Not loaded|Ready|Loading/);
      // Six actions, each a real button a person can click.
      assert.equal(await frame.locator('button.action').count(), 6);
      await wb.screenshot('welcome');
    },
  },
];
