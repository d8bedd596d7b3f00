// Generation lengths and waits every backend and the settings share. No Node imports: the panels'
// bundle reaches these through Prove's run schema.

/**
 * Most tokens one generation may produce when the caller does not say: stepwise.model.maxOutputTokens's
 * default, Prove's generator length, and what an endpoint or the ONNX engine gives a call without one.
 * (`stepwise loop` samples shorter on purpose: core/loop/solutions.ts, LOOP_SAMPLING_LENGTHS.)
 */
export const DEFAULT_MAX_OUTPUT_TOKENS = 512;

/** Milliseconds an endpoint may take before a request gives up: stepwise.model.openai.timeoutMs's default. */
export const DEFAULT_ENDPOINT_TIMEOUT_MS = 60_000;
