import * as vscode from 'vscode';

/**
 * Shows a Stepwise error with the one action that fixes it where there is one. A missing or broken
 * model folder (a `model-folder` error, what a newcomer meets before installing the default model)
 * offers Select Model, which lists the models and installs the one picked; every error offers the log.
 */
export function showStepwiseError(text: string, code: string | undefined, showLog: () => void): void {
  const fix = code === 'model-folder' ? 'Select Model' : undefined;
  const actions = fix ? [fix, 'Show Log'] : ['Show Log'];
  void vscode.window.showErrorMessage(text, ...actions).then((choice) => {
    if (choice === 'Show Log') showLog();
    else if (choice === 'Select Model') void vscode.commands.executeCommand('stepwise.model.select');
  });
}

/** The `code` of an error when it is a string (ModelError's kinds), for {@link showStepwiseError}. */
export function errorCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}
