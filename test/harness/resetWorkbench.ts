/**
 * Puts the workbench back into one known state before every UI spec, so no spec depends on what
 * the one before it left open: no modal dialog, no quick input, no notifications, no editors (one
 * empty editor group), panel and secondary side bar hidden, the Explorer in the side bar with its
 * folders folded, and the keyboard focus in the editor area. Each state is checked by polling the page with a deadline;
 * what could not be reset is named in the error.
 */
import type { DomElement, PageGlobals } from './dom';
import { until } from './codeServer';
import type { Workbench } from './workbench';

/** What a person would see of the parts the reset is about, read from the page in one go. */
export interface WorkbenchState {
  dialog: string | undefined;
  /** The quick input is on screen, its 150 ms closing animation included. */
  quickInput: boolean;
  toasts: string[];
  notificationCenter: boolean;
  tabs: string[];
  editorGroups: number;
  panel: boolean;
  secondarySideBar: boolean;
  sideBar: string | undefined;
  /** Folders expanded in the Explorer's tree. */
  expandedFolders: string[];
  focus: { inEditorArea: boolean; element: string };
}

export async function workbenchState(wb: Workbench): Promise<WorkbenchState> {
  return wb.page.evaluate(() => {
    const doc = (globalThis as unknown as PageGlobals).document;
    const shown = (el: DomElement | null): el is DomElement => {
      if (!el || el.getClientRects().length === 0) return false;
      const box = el.getBoundingClientRect();
      return box.width > 0 && box.height > 0;
    };
    const all = (selector: string) => Array.from(doc.querySelectorAll(selector)).filter(shown);
    const text = (el: DomElement | null) => (el?.textContent ?? '').replace(/\s+/g, ' ').trim();
    const sideBar = doc.querySelector('.part.sidebar');
    const active = doc.activeElement;
    return {
      dialog: shown(doc.querySelector('.monaco-dialog-box'))
        ? text(doc.querySelector('.monaco-dialog-box')).slice(0, 120) || 'an empty dialog'
        : undefined,
      quickInput: shown(doc.querySelector('.quick-input-widget')),
      toasts: all('.notification-toast').map((t) =>
        text(t.querySelector('.notification-list-item-message')).slice(0, 120),
      ),
      notificationCenter: shown(doc.querySelector('.notifications-center')),
      tabs: all('.part.editor .tab').map((t) => t.getAttribute('aria-label') ?? text(t)),
      editorGroups: all('.part.editor .editor-group-container').length,
      panel: shown(doc.querySelector('.part.panel')),
      secondarySideBar: shown(doc.querySelector('.part.auxiliarybar')),
      sideBar: shown(sideBar) ? text(sideBar.querySelector('.composite.title .title-label')) : undefined,
      // The workspace root is the pane's header, not a row: every expanded row is a subfolder.
      expandedFolders: all('.part.sidebar .explorer-folders-view .monaco-list-row[aria-expanded="true"]').map(
        (row) => row.getAttribute('aria-label') ?? text(row),
      ),
      focus: {
        inEditorArea: !!active?.closest('.part.editor'),
        element: active ? `${active.tagName.toLowerCase()}.${active.className}`.slice(0, 100) : 'nothing',
      },
    };
  });
}

/** The side bar view every spec starts from (the workbench's own default). */
const SIDE_BAR_VIEW = 'Explorer';
/** Every state here should be reached at once; the deadline only absorbs a loaded machine. */
const SETTLE_MS = 10_000;

interface ResetStep {
  /** What the step resets, as the error names it. */
  what: string;
  /** True when the state is already what every spec starts from. */
  done(s: WorkbenchState): boolean;
  /** What the page showed instead, for the error. */
  found(s: WorkbenchState): string;
  /** What a person would do to get there; skipped when `done` already holds. */
  act(wb: Workbench): Promise<void>;
  /** Run `act` even when `done` holds (notifications can sit unseen in the center). */
  always?: boolean;
  /** How long the state may take to hold after `act` (default SETTLE_MS). */
  settleMs?: number;
}

const steps: ResetStep[] = [
  {
    what: 'close the modal dialog',
    done: (s) => s.dialog === undefined,
    found: (s) => `the dialog "${s.dialog}"`,
    // A modal dialog keeps the focus and closes on Escape (its cancel button).
    act: (wb) => wb.page.keyboard.press('Escape'),
  },
  {
    what: 'close the quick input',
    done: (s) => !s.quickInput,
    found: () => 'the quick input still shown',
    act: (wb) => wb.quickInput.close(SETTLE_MS),
  },
  {
    what: 'clear the notifications',
    done: (s) => s.toasts.length === 0 && !s.notificationCenter,
    found: (s) =>
      `notifications ${JSON.stringify(s.toasts)}${s.notificationCenter ? ' in the open center' : ''}`,
    act: async (wb) => {
      // Work a timed-out spec left running shows its progress with a Cancel button (in a toast or
      // the center), and "Clear All" cannot close it while it runs: cancel it, as a person would.
      const cancel = wb.page.locator(
        '.notification-toast .monaco-button, .notifications-center .monaco-button',
        {
          hasText: /^Cancel$/,
        },
      );
      for (const button of await cancel.all()) await button.click().catch(() => undefined);
      await wb.runCommand('Notifications: Clear All Notifications', SETTLE_MS);
    },
    always: true,
    // Cancelled model work ends at its next token, which a loaded machine takes a while to reach.
    settleMs: 60_000,
  },
  {
    what: 'close the editors',
    done: (s) => s.tabs.length === 0 && s.editorGroups === 1 && s.dialog === undefined,
    found: (s) =>
      `${s.tabs.length} tabs ${JSON.stringify(s.tabs)} in ${s.editorGroups} groups${s.dialog ? `, dialog "${s.dialog}"` : ''}`,
    act: async (wb) => {
      await wb.runCommand('View: Close All Editor Groups', SETTLE_MS);
      // An edited file asks whether to save: a spec's edits are not kept.
      const dontSave = wb.page.locator('.monaco-dialog-box .monaco-button', { hasText: "Don't Save" });
      if (await dontSave.isVisible()) await dontSave.click();
    },
  },
  {
    what: 'hide the panel',
    done: (s) => !s.panel,
    found: () => 'the panel still shown',
    act: (wb) => wb.runCommand('View: Hide Panel', SETTLE_MS),
  },
  {
    what: 'hide the secondary side bar',
    done: (s) => !s.secondarySideBar,
    found: () => 'the secondary side bar still shown',
    act: (wb) => wb.runCommand('View: Hide Secondary Side Bar', SETTLE_MS),
  },
  {
    what: `show the ${SIDE_BAR_VIEW} in the side bar`,
    done: (s) => s.sideBar?.toLowerCase() === SIDE_BAR_VIEW.toLowerCase(),
    found: (s) => (s.sideBar === undefined ? 'the side bar hidden' : `the side bar showing "${s.sideBar}"`),
    act: (wb) => wb.runCommand('View: Show Explorer', SETTLE_MS),
  },
  {
    // The previous spec's files stay revealed (folders open, a row selected) until folded.
    what: 'fold the folders in the Explorer',
    done: (s) => s.expandedFolders.length === 0,
    found: (s) => `folders still open: ${JSON.stringify(s.expandedFolders)}`,
    act: (wb) => wb.runCommand('Collapse Folders in Explorer', SETTLE_MS),
  },
  {
    what: 'focus the editor area',
    done: (s) => s.focus.inEditorArea,
    found: (s) => `the focus on ${s.focus.element}`,
    act: (wb) => wb.runCommand('View: Focus Active Editor Group', SETTLE_MS),
    always: true,
  },
  {
    // The palette the steps above used fades out for 150 ms; a screenshot would still show it.
    what: 'let the palette finish closing',
    done: (s) => !s.quickInput,
    found: () => 'the quick input still shown',
    act: (wb) => wb.quickInput.close(SETTLE_MS),
  },
];

/**
 * Runs every reset step in order, each acting only when needed and then polling until its state
 * holds. Throws one error naming every state that could not be reached.
 */
export async function resetWorkbench(wb: Workbench): Promise<void> {
  const failures: string[] = [];
  for (const step of steps) {
    let last: WorkbenchState | undefined;
    try {
      if (step.always || !step.done(await workbenchState(wb))) await step.act(wb);
      await until(
        step.what,
        async () => step.done((last = await workbenchState(wb))),
        step.settleMs ?? SETTLE_MS,
        100,
      );
    } catch (err) {
      const saw = last ? ` (found ${step.found(last)})` : '';
      failures.push(`could not ${step.what}${saw}: ${(err as Error).message.split('\n')[0]}`);
    }
  }
  if (failures.length) throw new Error(`Workbench reset failed: ${failures.join('; ')}`);
}
