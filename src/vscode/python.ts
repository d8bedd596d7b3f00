/**
 * The Python interpreters Stepwise runs: generated tests in the sandbox and the trainer. Both ask
 * the Python extension first, so the environment a user picked there is the one Stepwise uses.
 */
import * as vscode from 'vscode';
import { readSettings } from './settings';

interface PythonExtensionApi {
  environments?: { getActiveEnvironmentPath(resource?: vscode.Uri): { path: string } };
}

/** The Python extension's active interpreter, when that extension is installed. */
export async function pythonExtensionInterpreter(log: vscode.LogOutputChannel): Promise<string | undefined> {
  const ext = vscode.extensions.getExtension<PythonExtensionApi>('ms-python.python');
  if (!ext) return undefined;
  try {
    const api = ext.isActive ? ext.exports : await ext.activate();
    return api?.environments?.getActiveEnvironmentPath().path || undefined;
  } catch (err) {
    log.warn(`The Python extension did not name an interpreter: ${String(err)}`);
    return undefined;
  }
}

/**
 * The interpreter for generated tests: `stepwise.python.interpreterPath`, else the Python
 * extension's, else undefined (the sandbox then looks for python3 on PATH).
 */
export async function sandboxPython(log: vscode.LogOutputChannel): Promise<string | undefined> {
  return readSettings().python.interpreterPath || (await pythonExtensionInterpreter(log));
}
