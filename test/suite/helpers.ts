import * as vscode from 'vscode';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { StepwiseApi } from '../../src/vscode/extension';

export const EXTENSION_ID = 'stepwise.stepwise';

export async function activateStepwise(): Promise<StepwiseApi> {
  const ext = vscode.extensions.getExtension<StepwiseApi>(EXTENSION_ID);
  if (!ext) throw new Error(`Extension ${EXTENSION_ID} is not installed in this host.`);
  return ext.isActive ? ext.exports : ext.activate();
}

export function workspaceRoot(): string {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder) throw new Error('The integration tests need a workspace folder.');
  return folder.uri.fsPath;
}

/** Records a measured figure for the report (test-output/results/<name>.json), never asserted. */
export function report(name: string, figures: Record<string, unknown>): void {
  const dir = path.join(
    process.env.STEPWISE_TEST_OUTPUT ?? path.join(workspaceRoot(), '.stepwise-test'),
    'results',
  );
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(
    path.join(dir, `${name}.json`),
    JSON.stringify({ ...figures, measuredAt: new Date().toISOString() }, null, 2),
  );
  console.log(`[figures] ${name}: ${JSON.stringify(figures)}`);
}

/** Polls until `check` returns a value, or fails after `timeoutMs`. */
export async function waitFor<T>(
  what: string,
  check: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== null && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
