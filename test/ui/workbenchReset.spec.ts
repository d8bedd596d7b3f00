import * as assert from 'node:assert/strict';
import { resetWorkbench, workbenchState } from '../harness/resetWorkbench';
import type { UiTest } from '../harness/workbench';

/**
 * The harness's reset between specs, checked on a workbench left the way a careless spec (or a
 * user) would leave it. Every other spec relies on starting from this state.
 */
export const tests: UiTest[] = [
  {
    name: 'The harness reset clears dialogs, quick input, notifications, running work, editors and panels',
    timeoutMs: 150_000,
    async run(wb) {
      await wb.openFile('proofs/sum-of-odd-numbers.md');
      await wb.runCommand('View: Split Editor');
      await wb.runCommand('Stepwise: Show Log');
      await wb.page.locator('.activitybar [aria-label*="Stepwise"]').first().click();
      // Two toggles leave the setting as it was and two notifications behind, the second saying
      // the opposite of the first. Their toasts hide by themselves after a few seconds, so the
      // notification center is what shows them.
      const toggleToast = (state: RegExp) =>
        wb.page.locator('.notification-toast', { hasText: state }).first();
      await wb.runCommand('Stepwise: Toggle "Stop at First Error" Labelling');
      const first = toggleToast(/labelling is (on|off)\./);
      await first.waitFor({ timeout: 10_000 });
      const wasOn = /labelling is on\./.test(await first.innerText());
      await wb.runCommand('Stepwise: Toggle "Stop at First Error" Labelling');
      await toggleToast(wasOn ? /labelling is off\./ : /labelling is on\./).waitFor({ timeout: 10_000 });
      // Model work still running, as a spec that timed out leaves it: its progress notification
      // cannot be cleared, only cancelled.
      await wb.runCommand('Stepwise: Generate Practice Set');
      await wb.answerInput({ title: 'Stepwise: Generate Practice Set' }, 'arithmetic');
      await wb.page
        .locator('.notification-toast', { hasText: 'generating a practice set' })
        .locator('.monaco-button', { hasText: 'Cancel' })
        .waitFor({ timeout: 60_000 });
      await wb.runCommand('Notifications: Show Notifications');
      const listed = wb.page.locator('.notifications-center .monaco-list-row');
      await listed.nth(2).waitFor({ timeout: 10_000 });
      await wb.runCommand('Help: About');
      await wb.page.locator('.monaco-dialog-box').waitFor({ timeout: 10_000 });
      const cluttered = await workbenchState(wb);
      assert.ok(cluttered.dialog, 'the About dialog is open');
      assert.ok(cluttered.tabs.length >= 2 && cluttered.editorGroups === 2, 'a split editor is open');
      assert.ok(cluttered.panel, 'the output panel is open');
      assert.ok(cluttered.notificationCenter, 'the notification center is open');
      assert.ok((await listed.count()) >= 3, 'it lists two notifications and the running practice set');
      assert.match(cluttered.sideBar ?? '', /stepwise/i, 'the side bar shows the Stepwise view');

      await resetWorkbench(wb);
      const reset = await workbenchState(wb);
      assert.equal(reset.dialog, undefined, 'no dialog');
      assert.deepEqual(reset.toasts, [], 'no notification toasts');
      assert.equal(reset.notificationCenter, false, 'the notification center is closed');
      assert.deepEqual(reset.tabs, [], 'no editors');
      assert.equal(reset.editorGroups, 1, 'one editor group');
      assert.equal(reset.panel, false, 'the panel is hidden');
      assert.equal(reset.secondarySideBar, false, 'the secondary side bar is hidden');
      assert.match(reset.sideBar ?? '', /explorer/i, 'the side bar shows the Explorer');
      assert.deepEqual(reset.expandedFolders, [], 'the Explorer has its folders folded');
      assert.ok(reset.focus.inEditorArea, `the focus is in the editor area, not on ${reset.focus.element}`);

      // A quick input left open with text typed into it is closed too.
      await wb.page.keyboard.press('F1');
      await wb.quickInput.input.fill('>Stepwise');
      await resetWorkbench(wb);
      assert.equal((await wb.quickInput.state()).open, false, 'the quick input is closed');
      await wb.screenshot('workbench-reset');
    },
  },
];
