/**
 * Errors as the CLI prints them. The core's hints name the editor's settings (the editor is their
 * first reader); here each setting the CLI has a flag for is named by that flag, and the others
 * are named as editor settings so nobody looks for a flag that does not exist.
 */

const FLAG_FOR_SETTING: Record<string, string> = {
  'stepwise.model.openai.baseUrl': '--endpoint URL',
  'stepwise.model.openai.model': '--model NAME',
  'stepwise.model.onnx.path': '--model-dir DIR',
  'stepwise.model.onnx.variant': '--variant',
  'stepwise.model.onnx.device': '--device',
  'stepwise.model.maxOutputTokens': '--max-tokens N',
  'stepwise.python.interpreterPath': '--python PATH',
  'stepwise.prm.modelPath': '--prm-dir DIR',
  'stepwise.sandbox.diskMb': '--disk-mb N',
  'stepwise.tests.memoryMb': '--memory-mb N',
  'stepwise.tests.perTestTimeoutMs': '--timeout-ms N',
  'stepwise.tests.suiteTimeoutMs': '--suite-timeout-ms N',
  'stepwise.tests.agreementSamples': '--samples N',
};

/** Rewrites the settings a hint names into the CLI's flags (or "the editor setting X"). */
export function cliHint(hint: string): string {
  return hint.replace(/\bstepwise(?:\.[A-Za-z]+){2,}\b/g, (setting) =>
    FLAG_FOR_SETTING[setting] ? FLAG_FOR_SETTING[setting] : `the editor setting ${setting}`,
  );
}

interface IssueLike {
  path?: PropertyKey[];
  message?: string;
}

/**
 * One readable line (or the message as written) for any error: a schema validation error (zod)
 * becomes "field: problem" instead of a JSON dump of its issues.
 */
export function oneLineError(err: Error | unknown): string {
  const e = err as { name?: string; message?: string; issues?: IssueLike[] };
  if (Array.isArray(e?.issues) && (e.name === 'ZodError' || e.name === '$ZodError')) {
    const parts = e.issues.map(
      (i) => `${(i.path ?? []).map(String).join('.') || 'value'}: ${i.message ?? 'invalid'}`,
    );
    return `invalid input (${parts.join('; ')})`;
  }
  return e?.message ?? String(err);
}
