import type { Locator, Page } from 'playwright-core';
import { until } from './codeServer';
import type { DomInput, PageGlobals } from './dom';

/** What the quick input shows right now, read from the page in one go. */
export interface QuickInputState {
  /** Displayed and not in its closing animation (a closing widget is inert for 150 ms). */
  open: boolean;
  title: string;
  /** The prompt line under the input (an input box's `prompt`). */
  message: string;
  placeholder: string;
  value: string;
}

/** The command palette's placeholder in VS Code OSS 1.139 (Quick Open's says "Search files by name"). */
export const PALETTE_PLACEHOLDER = 'Type the name of a command to run.';
export const QUICK_OPEN_PLACEHOLDER = 'Search files by name';

/** Which quick input a step waits for: every given field must be contained in what is shown. */
export interface QuickInputExpectation {
  title?: string;
  prompt?: string;
  placeholder?: string;
}

export function describeExpectation(e: QuickInputExpectation): string {
  const parts = Object.entries(e).map(([k, v]) => `${k} "${v}"`);
  return `the quick input with ${parts.join(' and ')}`;
}

export function matches(state: QuickInputState, e: QuickInputExpectation): boolean {
  return (
    state.open &&
    (e.title === undefined || state.title.includes(e.title)) &&
    (e.prompt === undefined || state.message.includes(e.prompt)) &&
    (e.placeholder === undefined || state.placeholder.includes(e.placeholder))
  );
}

/**
 * The workbench's one quick input widget (palette, Quick Open, an extension's input box or quick
 * pick all reuse it). Waits name *which* quick input they expect, so a closing palette or another
 * command's prompt is never mistaken for the one a step is about to type into.
 */
export class QuickInput {
  readonly widget: Locator;
  readonly input: Locator;

  constructor(private readonly page: Page) {
    this.widget = page.locator('.quick-input-widget');
    this.input = page.locator('.quick-input-widget:not(.quick-input-widget-closing) .quick-input-box input');
  }

  async state(): Promise<QuickInputState> {
    return this.page.evaluate(() => {
      const doc = (globalThis as unknown as PageGlobals).document;
      const w = doc.querySelector('.quick-input-widget');
      const input = w?.querySelector('.quick-input-box input') as DomInput | null | undefined;
      const open =
        !!w &&
        w.getClientRects().length > 0 &&
        !w.inert &&
        !w.classList.contains('quick-input-widget-closing');
      return {
        open,
        title: w?.querySelector('.quick-input-title')?.textContent?.trim() ?? '',
        message: w?.querySelector('.quick-input-message')?.textContent?.trim() ?? '',
        placeholder: input?.placeholder ?? '',
        value: input?.value ?? '',
      };
    });
  }

  /** Waits until the quick input shows what `expected` describes (and is not closing). */
  async waitFor(expected: QuickInputExpectation, timeoutMs: number): Promise<void> {
    let last: QuickInputState | undefined;
    try {
      await until(
        describeExpectation(expected),
        async () => matches((last = await this.state()), expected),
        timeoutMs,
        100,
      );
    } catch (err) {
      throw new Error(`${(err as Error).message} It showed: ${describeState(last)}.`, { cause: err });
    }
  }

  /** Waits until `expected` is no longer what the quick input shows (accepted, closed or replaced). */
  async waitGone(expected: QuickInputExpectation, timeoutMs: number): Promise<void> {
    await until(
      `${describeExpectation(expected)} to go away`,
      async () => !matches(await this.state(), expected),
      timeoutMs,
      100,
    );
  }

  /** Escape until the widget is hidden; the input gets focus first, since Escape goes to the focus. */
  async close(timeoutMs = 10_000): Promise<void> {
    let last: QuickInputState | undefined;
    try {
      await until(
        'the quick input to close',
        async () => {
          last = await this.state();
          // Hidden, not merely closing: the closing widget is still drawn for 150 ms.
          if (!(await this.widget.isVisible())) return true;
          // A closing widget only needs time; Escape then would reach whatever has the focus.
          if (last.open) {
            await this.input.focus({ timeout: 1000 }).catch(() => undefined);
            await this.page.keyboard.press('Escape');
          }
          return false;
        },
        timeoutMs,
        250,
      );
    } catch (err) {
      throw new Error(`the quick input would not close (it showed ${describeState(last)})`, { cause: err });
    }
  }
}

export function describeState(s: QuickInputState | undefined): string {
  if (!s) return 'nothing readable';
  if (!s.open) return 'no open quick input';
  return `title "${s.title}", prompt "${s.message}", placeholder "${s.placeholder}", value "${s.value}"`;
}
