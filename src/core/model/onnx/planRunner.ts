/**
 * Runs a generation plan on the local engine by steering its own decoding: forced text is fed as
 * if the model had written it, free text is sampled up to a stop string, EOS or its budget, a
 * choice scores every option from the same point and takes one, and assertion lines are sampled
 * under a character grammar that every chosen token must keep. Rows (n > 1) share one prompt
 * prefill; on a graph with an in-place cache they are decoded together in batched passes
 * (planBatch.ts), otherwise one after another.
 */
import {
  checkPlan,
  type Choice,
  type FreeText,
  type PlanCompletion,
  type PlanSegment,
  type SegmentResult,
} from '../plan';
import { interpretPlan } from '../planInterpreter';
import { emptyLookaheadStats, type LookaheadStats } from '../lookahead';
import { RepetitionHistory, repetitionSettings } from '../repetition';
import { SeededRandom, randomSeed, selectToken, type SamplingParams } from '../sampling';
import { ModelError, type ModelInput, type RepetitionOptions, type TokenEvent } from '../types';
import { writeAssertions } from './planAssertions';
import { chooseOption } from './planChoice';
import { copyRows, InPlaceKvCache, keepRows } from './kvCache';
import { BatchedLanes } from './planBatch';
import { OwnCacheLane, PlanCursor, type CursorModel } from './planCursor';
import type { PlanModel, RowContext } from './planRow';
import { SequenceText } from './sequenceText';

/** Plan options as they cross the worker boundary (no callbacks, no AbortSignal). */
export interface EnginePlanOptions {
  temperature?: number;
  topP?: number;
  topK?: number;
  n?: number;
  seed?: number;
  repetition?: RepetitionOptions;
  /** false: rows one after another even where they could be batched (benchmarks compare the two). */
  batchRows?: boolean;
  /** false: no prompt-lookup guess fed with each token (lookahead.ts). */
  lookahead?: boolean;
}

export interface EnginePlanResult {
  completions: PlanCompletion[];
  promptTokens: number;
  /** Prompt tokens whose keys and values the last request left in the cache (prefixCache.ts). */
  cachedPromptTokens: number;
  timeToFirstTokenMs: number;
  totalMs: number;
  lookahead: LookaheadStats;
}

export interface PlanHooks {
  onToken?: (event: TokenEvent) => void;
  isAborted?: () => boolean;
}

export async function runPlan(
  model: PlanModel,
  input: ModelInput,
  plan: PlanSegment[],
  options: EnginePlanOptions = {},
  hooks: PlanHooks = {},
): Promise<EnginePlanResult> {
  checkPlan(plan);
  const started = performance.now();
  let firstTokenAt: number | undefined;
  const prompt = model.encodeInput(input);
  if (prompt.length === 0)
    throw new ModelError('The prompt is empty.', 'internal', 'Give the model some text to continue.');
  if (prompt.length >= model.contextWindow) {
    throw new ModelError(
      `The prompt is ${prompt.length} tokens; ${model.name} reads at most ${model.contextWindow}.`,
      'context-overflow',
      'Shorten the input (fewer or smaller files, a shorter problem statement).',
    );
  }
  const isAborted = hooks.isAborted ?? (() => false);
  if (isAborted()) throw new ModelError('The generation was cancelled.', 'aborted');
  const prefill = await model.prefix.prefill(model.session, prompt);
  const promptLogits = prefill.logits.slice((prefill.rows - 1) * prefill.vocab, prefill.rows * prefill.vocab);
  const params: SamplingParams = {
    temperature: options.temperature ?? 1,
    topK: options.topK,
    topP: options.topP,
  };
  const seed = options.seed ?? randomSeed();
  const reserve = reserves(model, plan);
  const n = Math.max(1, Math.floor(options.n ?? 1));
  const emitFor = (sequence: number) => (segment: number, text: string, tokenId?: number) => {
    if (text === '' && tokenId === undefined) return;
    firstTokenAt ??= performance.now();
    hooks.onToken?.({ sequence, segment, text, tokenId });
  };
  const cursorModel = (aborted: () => boolean): CursorModel => ({
    encode: model.encode,
    contextWindow: model.contextWindow,
    modelName: model.name,
    isAborted: aborted,
  });
  const newHistory = () => new RepetitionHistory(repetitionSettings(options.repetition));

  const completions: PlanCompletion[] = [];
  const lookahead = emptyLookaheadStats();
  if (n > 1 && options.batchRows !== false && prefill.present instanceof InPlaceKvCache) {
    // One failed row stops the others, so that the call ends with its error, not after their work.
    let failed = false;
    const stopped = () => failed || isAborted();
    const shape = model.kvShape;
    // The rows go separate ways; what the next request may share with them is the prompt.
    if (model.prefix.enabled)
      model.prefix.keep(prompt, copyRows(prefill.present, [0], shape.kvHeads, shape.headDim));
    const lanes = new BatchedLanes(
      model.session,
      keepRows(prefill.present, new Array<number>(n).fill(0), shape.kvHeads, shape.headDim),
      shape,
      model.padId,
      stopped,
    );
    const rows = Array.from({ length: n }, async (_, sequence) => {
      const cursor = new PlanCursor(
        cursorModel(stopped),
        prompt.length,
        prompt,
        lanes.lane(sequence),
        promptLogits,
        newHistory(),
      );
      // Each row draws from its own stream, so a row's text does not depend on the others' timing.
      const random = new SeededRandom(seed + sequence * 0x9e37);
      try {
        return await new RowRun(model, cursor, params, random, emitFor(sequence), reserve).run(plan);
      } catch (e) {
        failed = true;
        throw e;
      } finally {
        lanes.finish(sequence);
      }
    });
    const settled = await Promise.allSettled(rows);
    const errors = settled.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
    if (errors.length > 0) {
      if (isAborted()) throw new ModelError('The generation was cancelled.', 'aborted');
      // The first error that is not another row's stop.
      throw errors.find((e) => !(e instanceof ModelError && e.code === 'aborted')) ?? errors[0];
    }
    for (const r of settled) if (r.status === 'fulfilled') completions.push(r.value);
  } else {
    const lane = new OwnCacheLane(model.session, prefill.present, options.lookahead !== false);
    const cursor = new PlanCursor(
      cursorModel(isAborted),
      prompt.length,
      prompt,
      lane,
      promptLogits,
      newHistory(),
    );
    const random = new SeededRandom(seed);
    for (let sequence = 0; sequence < n; sequence++) {
      if (sequence > 0) cursor.rewindKeepingLogits({ length: prompt.length, logits: promptLogits });
      const row = new RowRun(model, cursor, params, random, emitFor(sequence), reserve);
      completions.push(await row.run(plan));
    }
    model.prefix.keep(cursor.ids, lane.cache);
    Object.assign(lookahead, cursor.lookaheadStats);
  }
  const now = performance.now();
  return {
    completions,
    promptTokens: prompt.length,
    cachedPromptTokens: prefill.reused,
    timeToFirstTokenMs: (firstTokenAt ?? now) - started,
    totalMs: now - started,
    lookahead,
  };
}

/** Tokens to keep free for the forced text and choices after each segment. */
function reserves(model: PlanModel, plan: PlanSegment[]): number[] {
  const need = plan.map((s) =>
    s.kind === 'text'
      ? model.encode(s.text).length
      : s.kind === 'choice'
        ? Math.max(...s.options.map((o) => model.encode(` ${o}`).length)) + 1
        : 0,
  );
  return plan.map((_, i) => need.slice(i + 1).reduce((a, b) => a + b, 0));
}

class RowRun {
  private text = '';
  /** Characters of the next forced text that a choice already fed (its terminator). */
  private alreadyFed = 0;

  constructor(
    private readonly model: PlanModel,
    private readonly cursor: PlanCursor,
    private readonly params: SamplingParams,
    private readonly random: SeededRandom,
    private readonly emit: (segment: number, text: string, tokenId?: number) => void,
    private readonly reserve: number[],
  ) {}

  async run(plan: PlanSegment[]): Promise<PlanCompletion> {
    const segments = await interpretPlan(plan, {
      text: (i, s) => this.forced(i, s.text),
      free: (i, s) => this.free(i, s),
      choice: (i, s, next) => this.choice(i, s, next),
      assertions: (i, s) => writeAssertions(this.context, i, s),
      wrote: (text) => (this.text += text),
    });
    return {
      text: this.text,
      segments,
      tokenCount: this.cursor.length - this.cursor.promptLength,
    };
  }

  private get context(): RowContext {
    return {
      model: this.model,
      cursor: this.cursor,
      params: this.params,
      random: this.random,
      emit: this.emit,
    };
  }

  private async choice(i: number, s: Choice, next: PlanSegment | undefined): Promise<SegmentResult> {
    const { result, fedOfNext } = await chooseOption(this.context, i, s, next);
    this.alreadyFed = fedOfNext;
    return result;
  }

  private forced(i: number, text: string): SegmentResult {
    this.cursor.queueText(text.slice(this.alreadyFed));
    this.alreadyFed = 0;
    this.emit(i, text);
    return { kind: 'text', text };
  }

  private async free(i: number, s: FreeText): Promise<SegmentResult> {
    await this.cursor.logits();
    const start = this.cursor.fedLength;
    const budget = Math.min(s.maxTokens, this.model.contextWindow - 1 - start - this.reserve[i]);
    const seq = new SequenceText((ids) => this.model.decode(ids), s.stop ?? []);
    let finishReason: SegmentResult['finishReason'] = 'length';
    for (let count = 0; count < budget; count++) {
      const logits = await this.cursor.logits();
      const token = selectToken(this.cursor.history.apply(logits), this.params, this.random);
      if (this.model.eosTokenIds.has(token)) {
        finishReason = 'eos';
        break;
      }
      const pushed = seq.push(token, null);
      this.emit(i, pushed.streamed, token);
      if (pushed.stopped) {
        finishReason = 'stop';
        this.cutAtStop(start, seq);
        break;
      }
      this.cursor.queueToken(token);
    }
    if (finishReason !== 'stop') this.emit(i, seq.flush());
    return { kind: 'free', name: s.name, text: seq.finalText, finishReason };
  }

  /** Takes the stop string back out of the sequence: the tokens before it stay, a partial one is re-fed as text. */
  private cutAtStop(start: number, seq: SequenceText): void {
    const stopAt = seq.finalText.length;
    let chars = 0;
    let kept = 0;
    for (const t of seq.tokens) {
      if (chars + t.text.length > stopAt) break;
      chars += t.text.length;
      kept++;
    }
    // A token that holds only part of a character belongs with the next one.
    while (kept > 0 && seq.tokens[kept - 1].text === '') kept--;
    this.cursor.rewind(start + kept);
    this.cursor.queueText(seq.finalText.slice(chars));
  }
}
