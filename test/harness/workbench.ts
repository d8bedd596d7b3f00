import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Frame, Page } from 'playwright-core';
import { SCREENSHOTS } from './paths';
import { until } from './codeServer';

/** What a UI spec gets: the workbench page and helpers that act as a person would. */
export class Workbench {
  constructor(
    readonly page: Page,
    readonly workspace: string,
  ) {}

  /** Waits until the workbench has rendered its parts. */
  async ready(): Promise<void> {
    await this.page.locator('.monaco-workbench').waitFor({ timeout: 90_000 });
    await this.page.locator('.statusbar').waitFor({ timeout: 60_000 });
  }

  /**
   * Runs a command from the palette by its title (F1, type, Enter). While the extension host is
   * still starting the command is not listed yet, so the palette is reopened until it is.
   */
  async runCommand(title: string, timeoutMs = 60_000): Promise<void> {
    await until(
      `the command "${title}" in the palette`,
      async () => {
        await this.focusWorkbench();
        await this.page.keyboard.press('F1');
        const input = this.page.locator('.quick-input-widget input');
        await input.waitFor({ timeout: 5000 });
        await input.fill(`>${title}`);
        const row = this.page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first();
        try {
          await row.waitFor({ timeout: 3000 });
        } catch {
          return false;
        }
        await this.page.keyboard.press('Enter');
        return true;
      },
      timeoutMs,
      500,
    );
  }

  /** Keyboard focus back on the workbench (a webview keeps it after a click inside). */
  async focusWorkbench(): Promise<void> {
    await this.page.keyboard.press('Escape');
    await this.page
      .locator('.part.titlebar, .monaco-workbench')
      .first()
      .click({ position: { x: 700, y: 8 } })
      .catch(() => undefined);
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
    await this.focusWorkbench();
    // The browser keeps Ctrl+P (print); the palette without its ">" prefix is Quick Open.
    await this.page.keyboard.press('F1');
    const input = this.page.locator('.quick-input-widget input');
    await input.waitFor({ timeout: 10_000 });
    await input.fill(relative);
    await this.page
      .locator('.quick-input-list .monaco-list-row', { hasText: path.basename(relative) })
      .first()
      .waitFor({ timeout: 15_000 });
    await this.page.keyboard.press('Enter');
    await this.page
      .locator(`.tab[aria-label*="${path.basename(relative)}"]`)
      .first()
      .waitFor({ timeout: 15_000 });
  }

  async screenshot(name: string): Promise<string> {
    fs.mkdirSync(SCREENSHOTS, { recursive: true });
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
