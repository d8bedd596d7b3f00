/**
 * The generation loop on one causal-LM session: left-padded batches with a KV cache, sampling,
 * stop sequences, EOS, cancellation between tokens, log-probabilities, and scoring. Runs wherever
 * it is created: inside the model worker in production, in-process in unit tests.
 */
import {
  SeededRandom,
  logSumExp,
  randomSeed,
  selectToken,
  tokenLogprob,
  type SamplingParams,
} from '../sampling';
import { DEFAULT_MAX_OUTPUT_TOKENS } from '../lengths';
import { emptyLookaheadStats, lookupGuess, type LookaheadStats } from '../lookahead';
import type { PlanSegment } from '../plan';
import { RepetitionHistory, repetitionSettings } from '../repetition';
import {
  ModelError,
  type Completion,
  type FinishReason,
  type GenerateOptions,
  type ModelInput,
  type ScoreResult,
  type TokenEvent,
} from '../types';
import { CausalLmSession, type DeviceChoice, type ForwardOutput } from './causalLmSession';
import { openModelFolder, type ModelFolder, type OnnxVariant } from './modelFolder';
import { copyRows, InPlaceKvCache } from './kvCache';
import { commonPrefix, PrefixCache } from './prefixCache';
import { runPlan, type EnginePlanOptions, type EnginePlanResult } from './planRunner';
import { SequenceText } from './sequenceText';
import { TextCodec } from './textCodec';

export interface EngineLoadOptions {
  modelDir: string;
  variant?: OnnxVariant;
  device?: DeviceChoice;
  threads?: number;
  /** false: every request runs its whole prompt, none of it read from the last sequence's cache. */
  prefixCache?: boolean;
}

/** Generation options as they cross the worker boundary (no callbacks, no AbortSignal). */
export type EngineGenerateOptions = Omit<GenerateOptions, 'signal' | 'onToken'> & {
  /** false: no prompt-lookup guess fed with each token (lookahead.ts); benchmarks compare the two. */
  lookahead?: boolean;
};

export interface EngineHooks {
  onToken?: (event: TokenEvent) => void;
  /** Polled before every forward pass. */
  isAborted?: () => boolean;
}

export interface EngineGenerateResult {
  completions: Completion[];
  promptTokens: number;
  /** Prompt tokens whose keys and values the last request left in the cache (prefixCache.ts). */
  cachedPromptTokens: number;
  timeToFirstTokenMs: number;
  totalMs: number;
  lookahead: LookaheadStats;
}

export class OnnxEngine {
  private texts: string[] | undefined;

  private constructor(
    readonly folder: ModelFolder,
    readonly codec: TextCodec,
    readonly session: CausalLmSession,
    private readonly prefix: PrefixCache,
  ) {}

  static async load(options: EngineLoadOptions): Promise<OnnxEngine> {
    const folder = openModelFolder(options.modelDir, options.variant ?? 'fp32');
    const codec = new TextCodec(folder);
    const session = await CausalLmSession.create(
      folder.modelFile,
      folder.shape,
      options.device ?? 'auto',
      options.threads,
    );
    return new OnnxEngine(folder, codec, session, new PrefixCache(options.prefixCache !== false));
  }

  get info() {
    return {
      name: this.folder.name,
      device: this.session.device,
      contextWindow: this.folder.shape.contextWindow,
    };
  }

  async generate(
    input: ModelInput,
    options: EngineGenerateOptions = {},
    hooks: EngineHooks = {},
  ): Promise<EngineGenerateResult> {
    const prompt = this.codec.encodeInput(input);
    const n = Math.max(1, Math.floor(options.n ?? 1));
    return this.generateBatch(
      Array.from({ length: n }, () => prompt),
      options,
      hooks,
    );
  }

  /**
   * Generates one continuation per prompt, all in one batch. Shorter prompts are left-padded
   * (mask 0, positions counted over real tokens only) so every row's next token is at the end.
   */
  async generateBatch(
    prompts: number[][],
    options: EngineGenerateOptions = {},
    hooks: EngineHooks = {},
  ): Promise<EngineGenerateResult> {
    const started = performance.now();
    const batch = prompts.length;
    const promptLen = Math.max(...prompts.map((p) => p.length));
    if (prompts.some((p) => p.length === 0))
      throw new ModelError('The prompt is empty.', 'internal', 'Give the model some text to continue.');
    this.checkContext(promptLen);
    const maxTokens = Math.min(
      Math.max(0, Math.floor(options.maxTokens ?? DEFAULT_MAX_OUTPUT_TOKENS)),
      this.info.contextWindow - promptLen,
    );
    const minTokens = Math.max(0, Math.floor(options.minTokens ?? 0));
    const params: SamplingParams = {
      temperature: options.temperature ?? 1,
      topK: options.topK,
      topP: options.topP,
    };
    const random = new SeededRandom(options.seed ?? randomSeed());
    const wantLogprobs = options.logprobs !== false;
    const padId = this.folder.padTokenId ?? [...this.codec.eosTokenIds][0] ?? 0;

    const texts = prompts.map(() => new SequenceText((ids) => this.codec.decode(ids), options.stop ?? []));
    const repetition = repetitionSettings(options.repetition);
    const histories = prompts.map(() => new RepetitionHistory(repetition));
    const finish: (FinishReason | undefined)[] = prompts.map(() => undefined);
    const mask: number[][] = prompts.map((p) => [
      ...new Array(promptLen - p.length).fill(0),
      ...p.map(() => 1),
    ]);
    let ids = prompts.flatMap((p) => [...new Array(promptLen - p.length).fill(padId), ...p]);
    let positions = mask.flatMap(positionsOf);
    let seq = promptLen;
    let past;
    let firstTokenAt: number | undefined;
    // One sequence starts from what the last request left in the cache; `fed` mirrors its columns.
    // n samples of one prompt run it once and copy its cache to every row.
    const single = batch === 1;
    const fanOut =
      !single &&
      this.prefix.enabled &&
      this.session.graphKind === 'in-place-cache' &&
      prompts.every((p) => p.length === promptLen && commonPrefix(p, prompts[0]) === promptLen);
    const prefilled = single || fanOut ? await this.prefix.prefill(this.session, prompts[0]) : undefined;
    const fed = single ? [...prompts[0]] : [];
    // One sequence on an in-place cache: feed a prompt-lookup guess with each token (lookahead.ts).
    const lookahead =
      batch === 1 && options.lookahead !== false && this.session.graphKind === 'in-place-cache';
    const stats = emptyLookaheadStats();
    const sequence = lookahead ? [...prompts[0]] : [];
    /** The guess fed in the last pass and the logits after it, while it may still be the next token. */
    let spare: { token: number; row: Float32Array } | undefined;
    let reused: Float32Array | undefined;
    /** The guess the next pass feeds after the token. */
    let fedGuess: number | undefined;

    const emit = (sequence: number, text: string, tokenId?: number, logprob?: number) => {
      if (hooks.onToken && (text !== '' || tokenId !== undefined))
        hooks.onToken({ sequence, text, tokenId, logprob });
    };

    for (let step = 0; ; step++) {
      if (step >= maxTokens) {
        finish.forEach((f, b) => (finish[b] = f ?? 'length'));
        break;
      }
      if (hooks.isAborted?.()) {
        finish.forEach((f, b) => (finish[b] = f ?? 'abort'));
        break;
      }
      let rowOf: (b: number) => Float32Array;
      if (reused) {
        const row = reused;
        rowOf = () => row;
        reused = undefined;
      } else {
        const out: ForwardOutput =
          step === 0 && prefilled
            ? prefilled
            : await this.session.forward({
                ids,
                batch,
                seq,
                mask: mask.flat(),
                positions,
                past,
                allLogits: fedGuess !== undefined,
              });
        if (step > 0 && single) fed.push(...ids);
        past = out.present;
        if (step === 0 && fanOut && past instanceof InPlaceKvCache) {
          // The prompt stays for the next request; the rows start from copies of it.
          const { kvHeads, headDim } = this.folder.shape;
          this.prefix.keep(prompts[0], past);
          past = copyRows(past, new Array<number>(batch).fill(0), kvHeads, headDim);
        }
        if (fedGuess !== undefined) {
          spare = { token: fedGuess, row: out.logits.subarray(out.vocab, 2 * out.vocab) };
          rowOf = () => out.logits.subarray(0, out.vocab);
        } else {
          // A fanned-out prompt has one row of logits, every sequence's first.
          const rows = step === 0 && fanOut ? 1 : batch;
          rowOf = (b) => {
            const offset = ((b % rows) * out.rows + out.rows - 1) * out.vocab;
            return out.logits.subarray(offset, offset + out.vocab);
          };
        }
      }
      const next: number[] = [];
      for (let b = 0; b < batch; b++) {
        if (finish[b] !== undefined) {
          next.push(padId);
          continue;
        }
        const row = rowOf(b);
        const banned = step < minTokens ? this.codec.eosTokenIds : undefined;
        const token = selectToken(histories[b].apply(row), params, random, banned);
        histories[b].push(token);
        next.push(token);
        firstTokenAt ??= performance.now();
        if (this.codec.eosTokenIds.has(token)) {
          finish[b] = 'eos';
          emit(b, texts[b].flush());
          continue;
        }
        const logprob = wantLogprobs ? tokenLogprob(row, token, logSumExp(row)) : undefined;
        const pushed = texts[b].push(token, logprob ?? null);
        if (pushed.stopped) finish[b] = 'stop';
        const isLast = step + 1 >= maxTokens;
        emit(b, pushed.streamed + (isLast && !pushed.stopped ? texts[b].flush() : ''), token, logprob);
      }
      if (finish.every((f) => f !== undefined)) break;
      if (lookahead) sequence.push(next[0]);
      if (spare) {
        const guess = spare;
        spare = undefined;
        if (next[0] === guess.token) {
          // The guess was right: it is in the cache already, and its logits are the next row.
          stats.accepted++;
          reused = guess.row;
          continue;
        }
        past = past && this.session.truncateCache(past, mask[0].length - 1);
        mask[0].pop();
        fed.pop();
      }
      for (let b = 0; b < batch; b++) mask[b].push(1);
      ids = next;
      positions = mask.map((m) => positionsOf(m).at(-1) as number);
      seq = 1;
      fedGuess =
        lookahead && mask[0].length < this.info.contextWindow && step + 2 < maxTokens
          ? lookupGuess(sequence)
          : undefined;
      if (fedGuess !== undefined) {
        stats.guessed++;
        mask[0].push(1);
        ids = [next[0], fedGuess];
        positions = [positions[0], positions[0] + 1];
        seq = 2;
      }
    }
    for (let b = 0; b < batch; b++) {
      if (finish[b] === 'abort' || finish[b] === 'length') emit(b, texts[b].flush());
    }
    if (single && past) this.prefix.keep(fed, past);

    const now = performance.now();
    return {
      completions: texts.map((t, b) => ({
        text: t.finalText,
        tokens: t.finalTokens.map((tok) => ({ id: tok.id, text: tok.text, logprob: tok.logprob })),
        finishReason: finish[b] ?? 'length',
      })),
      promptTokens: promptLen,
      cachedPromptTokens: prefilled?.reused ?? 0,
      timeToFirstTokenMs: (firstTokenAt ?? now) - started,
      totalMs: now - started,
      lookahead: stats,
    };
  }

  /** Runs a generation plan (plan.ts) by steering this engine's own decoding. */
  generatePlan(
    input: ModelInput,
    plan: PlanSegment[],
    options: EnginePlanOptions = {},
    hooks: EngineHooks = {},
  ): Promise<EnginePlanResult> {
    const model = {
      session: this.session,
      name: this.folder.name,
      contextWindow: this.info.contextWindow,
      eosTokenIds: this.codec.eosTokenIds,
      encodeInput: (i: ModelInput) => this.codec.encodeInput(i),
      encode: (text: string) => this.codec.encodeContinuation(text),
      decode: (ids: number[]) => this.codec.decode(ids),
      tokenTexts: () => this.tokenTexts(),
      kvShape: this.folder.shape,
      padId: this.folder.padTokenId ?? [...this.codec.eosTokenIds][0] ?? 0,
      prefix: this.prefix,
    };
    return runPlan(model, input, plan, options, hooks);
  }

  /**
   * Each token's decoded text by id, computed once: grammar checks compare candidate tokens'
   * text without decoding in the loop. Special tokens decode to '' and are never admitted.
   */
  tokenTexts(): string[] {
    if (!this.texts) {
      const size = this.folder.shape.vocabSize ?? this.codec.vocabSize;
      this.texts = Array.from({ length: size }, (_, id) => this.codec.decode([id]));
    }
    return this.texts;
  }

  /** Log-probabilities of the continuation's tokens after the prompt, from one forward pass. */
  async score(prompt: ModelInput, continuation: string): Promise<ScoreResult> {
    const promptIds = this.codec.encodeInput(prompt);
    const contIds = this.codec.encodeContinuation(continuation);
    if (promptIds.length === 0)
      throw new ModelError('The prompt is empty.', 'internal', 'Give the model some text to condition on.');
    if (contIds.length === 0) return { tokens: [], totalLogprob: 0 };
    const all = [...promptIds, ...contIds];
    this.checkContext(all.length);
    const logits = await this.fullLogits(all);
    const tokens = contIds.map((id, j) => {
      const row = logits.rows[promptIds.length - 1 + j];
      return { id, text: this.codec.decode([id]), logprob: tokenLogprob(row, id) };
    });
    return { tokens, totalLogprob: tokens.reduce((s, t) => s + t.logprob, 0) };
  }

  /** Logits of every position of one unpadded sequence, without a cache (tests compare against it). */
  async fullLogits(ids: number[]): Promise<{ rows: Float32Array[]; vocab: number }> {
    const mask = ids.map(() => 1);
    const out = await this.session.forward({
      ids,
      batch: 1,
      seq: ids.length,
      mask,
      positions: positionsOf(mask),
      past: undefined,
      allLogits: true,
    });
    const rows = ids.map((_, i) => out.logits.subarray(i * out.vocab, (i + 1) * out.vocab));
    return { rows, vocab: out.vocab };
  }

  async dispose(): Promise<void> {
    this.prefix.clear();
    await this.session.release();
  }

  private checkContext(tokens: number): void {
    if (tokens >= this.info.contextWindow) {
      throw new ModelError(
        `The prompt is ${tokens} tokens; ${this.folder.name} reads at most ${this.info.contextWindow}.`,
        'context-overflow',
        'Shorten the input (fewer or smaller files, a shorter problem statement).',
      );
    }
  }
}

/** Position of each token: count of real tokens before it; pads get 1 as Hugging Face does. */
export function positionsOf(mask: number[]): number[] {
  let seen = 0;
  return mask.map((m) => (m === 1 ? seen++ : 1));
}
