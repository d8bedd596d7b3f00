import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Frame, Locator, Page } from 'playwright-core';
import type { PageGlobals } from './dom';
import { SCREENSHOTS } from './paths';
import { until } from './codeServer';
import {
  PALETTE_PLACEHOLDER,
  QUICK_OPEN_PLACEHOLDER,
  QuickInput,
  type QuickInputExpectation,
} from './quickInput';

/** A point on the window title: clicking it focuses the workbench and opens nothing. */
const TITLE_POINT = { x: 700, y: 8 };

/** What a UI spec gets: the workbench page and helpers that act as a person would. */
export class Workbench {
  readonly quickInput: QuickInput;

  constructor(
    readonly page: Page,
    readonly workspace: string,
  ) {
    this.quickInput = new QuickInput(page);
  }

  /** Waits until the workbench has rendered its parts. */
  async ready(): Promise<void> {
    await this.page.locator('.monaco-workbench').waitFor({ timeout: 90_000 });
    await this.page.locator('.statusbar').waitFor({ timeout: 60_000 });
  }

  /**
   * Runs a command from the palette by its title (F1, type, click its row). While the extension
   * host is still starting the command is not listed yet, so the palette is reopened until it is.
   * Returns once the palette has closed; a prompt the command opens is awaited with `answerInput`.
   */
  async runCommand(title: string, timeoutMs = 60_000): Promise<void> {
    const palette = { placeholder: PALETTE_PLACEHOLDER };
    await until(
      `the command "${title}" in the palette`,
      async () => {
        await this.openPalette();
        await this.quickInput.input.fill(`>${title}`);
        // The row whose label is exactly the title: "View: Close All Editors" must not pick
        // "View: Close All Editors in Group", nor a recently used command listed first.
        const row = this.quickInputRow(title);
        try {
          await row.waitFor({ timeout: 3000 });
        } catch {
          return false;
        }
        await row.click();
        await this.parkMouse();
        await this.quickInput.waitGone(palette, 5000);
        return true;
      },
      timeoutMs,
      500,
    );
  }

  /**
   * Types `text` into the quick input that shows `expected` (this command's title or prompt) and
   * accepts it. Waiting on *this* prompt, not on any input, skips a palette still closing (inert)
   * and another command's prompt. The default wait covers an extension host busy with a model.
   */
  async answerInput(expected: QuickInputExpectation, text: string, timeoutMs = 30_000): Promise<void> {
    await this.quickInput.waitFor(expected, timeoutMs);
    await this.quickInput.input.fill(text);
    await this.page.keyboard.press('Enter');
    await this.quickInput.waitGone(expected, 5000);
  }

  /** Picks the item labelled `label` in the quick pick that shows `expected` (this command's title). */
  async answerPick(expected: QuickInputExpectation, label: string, timeoutMs = 30_000): Promise<void> {
    await this.quickInput.waitFor(expected, timeoutMs);
    const row = this.quickInputRow(label);
    await row.waitFor({ timeout: 5000 });
    await row.click();
    await this.parkMouse();
    await this.quickInput.waitGone(expected, 5000);
  }

  /** The palette, open, empty but for its ">" and not closing; whatever quick input was open goes first. */
  private async openPalette(): Promise<void> {
    await this.quickInput.close();
    await this.focusWorkbench();
    await this.page.keyboard.press('F1');
    await this.quickInput.waitFor({ placeholder: PALETTE_PLACEHOLDER }, 5000);
  }

  /** The quick input's list row whose label is exactly `label`. */
  quickInputRow(label: string): Locator {
    return this.page
      .locator('.quick-input-widget:not(.quick-input-widget-closing) .quick-input-list .monaco-list-row')
      .filter({ has: this.page.locator('.label-name').getByText(label, { exact: true }) })
      .first();
  }

  /**
   * Keyboard focus back on the workbench (a webview keeps it after a click inside), by a click on
   * the window title. No Escape: it would also hide the notification toasts a spec may check.
   */
  async focusWorkbench(): Promise<void> {
    await this.page
      .locator('.part.titlebar, .monaco-workbench')
      .first()
      .click({ position: TITLE_POINT })
      .catch(() => undefined);
  }

  /**
   * The pointer back on the window title. Left on a quick input row, it ends up over the editor
   * once the quick input closes, and the editor's hover covers what the screenshot is about.
   */
  async parkMouse(): Promise<void> {
    await this.page.mouse.move(TITLE_POINT.x, TITLE_POINT.y);
  }

  /** The webview frame whose document contains `text` (webviews are two iframes deep). */
  async webviewWith(text: string, timeoutMs = 60_000): Promise<Frame> {
    let found: Frame | undefined;
    await until(
      `a webview showing "${text}"`,
      async () => {
        // The workbench itself shows tab titles too; only webview documents count.
        for (const frame of this.page.frames().filter((f) => f !== this.page.mainFrame())) {
          const body = await frame
            .locator('body')
            .innerText({ timeout: 500 })
            .catch(() => '');
          if (body.includes(text)) {
            found = frame;
            return true;
          }
        }
        return false;
      },
      timeoutMs,
      300,
    );
    return found!;
  }

  /** Opens a workspace file through Quick Open, as a person would. */
  async openFile(relative: string): Promise<void> {
    const name = path.basename(relative);
    // The browser keeps Ctrl+P (print); the palette without its ">" prefix is Quick Open.
    await this.openPalette();
    await this.quickInput.input.fill(relative);
    await this.quickInput.waitFor({ placeholder: QUICK_OPEN_PLACEHOLDER }, 5000);
    const row = this.quickInputRow(name);
    // File search answers from the server's index: the first query after start-up takes longest.
    await row.waitFor({ timeout: 15_000 });
    await row.click();
    await this.parkMouse();
    await this.quickInput.waitGone({ placeholder: QUICK_OPEN_PLACEHOLDER }, 5000);
    await this.page.locator(`.part.editor .tab[aria-label*="${name}"]`).first().waitFor({ timeout: 15_000 });
  }

  async screenshot(name: string): Promise<string> {
    fs.mkdirSync(SCREENSHOTS, { recursive: true });
    // A panel's web fonts (KaTeX's) may still be loading; the picture shows what a person sees after.
    const fontsLoaded = Promise.all(
      this.page
        .frames()
        .map((frame) =>
          frame
            .evaluate(() => (globalThis as unknown as PageGlobals).document.fonts.ready.then(() => true))
            .catch(() => false),
        ),
    );
    let timer: NodeJS.Timeout | undefined;
    const cap = new Promise<void>((resolve) => (timer = setTimeout(resolve, 5000)));
    await Promise.race([fontsLoaded, cap]).finally(() => clearTimeout(timer));
    const file = path.join(SCREENSHOTS, `${name}.png`);
    await this.page.screenshot({ path: file });
    return file;
  }
}

export interface UiTest {
  name: string;
  /** Longest the test may take (default 3 minutes). */
  timeoutMs?: number;
  run(workbench: Workbench): Promise<void>;
}
