/**
 * `score()` for OpenAI-compatible servers: `/completions` with `echo: true` returns the prompt's own
 * tokens with log-probabilities. Before the first score, one probe checks that the server's echoed
 * values can be trusted; a server that cannot score gets a clear error instead of wrong numbers.
 */

import { ModelError, type ScoreResult } from '../types';
import { continuationScore, echoAligned, readEchoTokens } from './echoScore';

/** Posts a non-streamed `/completions` request and returns the parsed JSON answer. */
export type CompleteJson = (body: Record<string, unknown>, signal: AbortSignal) => Promise<unknown>;

/** The probe used once per backend to check that echoed log-probabilities line up. */
const ECHO_PROBE = 'The capital of France is';

export class EchoScorer {
  private check: Promise<void> | undefined;

  constructor(
    private readonly model: string,
    private readonly complete: CompleteJson,
    private readonly where: () => string,
  ) {}

  async score(prompt: string, continuation: string, signal: AbortSignal): Promise<ScoreResult> {
    this.check ??= this.checkAlignment(signal);
    // A check that failed for another reason (cancelled, unreachable) is tried again next time.
    await this.check.catch((err: unknown) => {
      if (!(err instanceof ModelError && err.code === 'endpoint-unsupported')) this.check = undefined;
      throw err;
    });
    const echo = readEchoTokens(await this.request(prompt + continuation, true, signal));
    if ('missing' in echo) throw this.cannotScore(echo.missing);
    const result = continuationScore(echo, prompt, continuation);
    if (continuation.length > 0 && result.tokens.length === 0) {
      throw this.cannotScore('the echoed tokens do not cover the continuation');
    }
    return result;
  }

  private async request(prompt: string, echo: boolean, signal: AbortSignal): Promise<unknown> {
    const body = {
      model: this.model,
      prompt,
      // Some servers read 0 as "no limit"; the one generated token is left out of the score.
      max_tokens: 1,
      temperature: 0,
      logprobs: 1,
      echo,
      stream: false,
    };
    try {
      return await this.complete(body, signal);
    } catch (err) {
      if (
        err instanceof ModelError &&
        (err.code === 'endpoint-unsupported' || err.code === 'endpoint-malformed')
      ) {
        throw this.cannotScore(err.message);
      }
      throw err;
    }
  }

  /**
   * The greedy next token of the probe must get (nearly) the same log-probability when it is echoed
   * as part of the prompt as when it was generated.
   */
  private async checkAlignment(signal: AbortSignal): Promise<void> {
    const generated = readEchoTokens(await this.request(ECHO_PROBE, false, signal));
    if ('missing' in generated || generated.tokens.length === 0 || generated.logprobs[0] === null) {
      throw this.cannotScore('it returns no log-probabilities for /completions');
    }
    const next = { text: generated.tokens[0], logprob: generated.logprobs[0] };
    const echo = readEchoTokens(await this.request(ECHO_PROBE + next.text, true, signal));
    if ('missing' in echo) {
      throw this.cannotScore(`echo: true returned no prompt log-probabilities (${echo.missing})`);
    }
    if (echoAligned(ECHO_PROBE, next, echo) === false) {
      throw this.cannotScore(
        'its echoed prompt log-probabilities are shifted by one position (llama-cpp-python does this for models without a BOS token), so scores would be wrong',
      );
    }
  }

  private cannotScore(why: string): ModelError {
    return new ModelError(
      `The endpoint ${this.where()} cannot score text: ${why}.`,
      'endpoint-unsupported',
      'Scoring needs /v1/completions with echo and logprobs (vLLM, or llama.cpp with a BOS-token model); use the local ONNX backend for verifier and step scores.',
    );
  }
}
