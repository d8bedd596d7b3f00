/**
 * Runs a generation plan on the local engine by steering its own decoding: forced text is fed as
 * if the model had written it, free text is sampled up to a stop string, EOS or its budget, a
 * choice scores every option from the same point and takes one, and assertion lines are sampled
 * under a character grammar that every chosen token must keep. Rows (n > 1) run one after another
 * from one shared prompt prefill.
 */
import { AssertionAutomaton } from '../assertionLines';
import type { AssertionLines, Choice, FreeText, PlanCompletion, PlanSegment, SegmentResult } from '../plan';
import { RepetitionHistory, repetitionSettings } from '../repetition';
import {
  SeededRandom,
  logSumExp,
  randomSeed,
  selectAllowed,
  selectToken,
  type SamplingParams,
} from '../sampling';
import { ModelError, type ModelInput, type RepetitionOptions, type TokenEvent } from '../types';
import type { CausalLmSession } from './causalLmSession';
import { PlanCursor } from './planCursor';
import { SequenceText } from './sequenceText';

/** Plan options as they cross the worker boundary (no callbacks, no AbortSignal). */
export interface EnginePlanOptions {
  temperature?: number;
  topP?: number;
  topK?: number;
  n?: number;
  seed?: number;
  repetition?: RepetitionOptions;
}

export interface EnginePlanResult {
  completions: PlanCompletion[];
  promptTokens: number;
  timeToFirstTokenMs: number;
  totalMs: number;
}

/** What the runner needs from the engine. */
export interface PlanModel {
  session: CausalLmSession;
  name: string;
  contextWindow: number;
  eosTokenIds: ReadonlySet<number>;
  encodeInput(input: ModelInput): number[];
  encode(text: string): number[];
  decode(ids: number[]): string;
  /** Each token's own decoded text, by id (computed once per model). */
  tokenTexts(): string[];
}

export interface PlanHooks {
  onToken?: (event: TokenEvent) => void;
  isAborted?: () => boolean;
}

/** Checks a plan before any work: the errors name the segment and the rule it breaks. */
export function checkPlan(plan: PlanSegment[]): void {
  const bad = (i: number, why: string) =>
    new ModelError(`Plan segment ${i + 1} ${why}.`, 'internal', 'Fix the plan the caller builds.');
  if (plan.length === 0)
    throw new ModelError('The plan is empty.', 'internal', 'Give it at least one segment.');
  plan.forEach((s, i) => {
    if (s.kind === 'free' && !(s.maxTokens > 0)) throw bad(i, 'needs a token budget above 0');
    if (s.kind === 'choice') {
      if (s.options.length === 0) throw bad(i, 'is a choice without options');
      if (s.options.some((o) => o === '')) throw bad(i, 'has an empty option');
      if (new Set(s.options).size !== s.options.length) throw bad(i, 'repeats an option');
    }
    if (s.kind === 'assertions') {
      if (!(s.maxLines >= 1 && s.maxTokensPerLine >= 1))
        throw bad(i, 'needs maxLines and maxTokensPerLine of at least 1');
      if (!/^[A-Za-z_$][\w$.]*$/.test(s.functionName))
        throw bad(i, `names no function ("${s.functionName}")`);
    }
  });
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
  const prefill = await model.session.forward({
    ids: prompt,
    batch: 1,
    seq: prompt.length,
    mask: prompt.map(() => 1),
    positions: prompt.map((_, i) => i),
    past: undefined,
  });
  const promptLogits = prefill.logits.slice(
    (prompt.length - 1) * prefill.vocab,
    prompt.length * prefill.vocab,
  );
  const cursor = new PlanCursor(
    {
      session: model.session,
      encode: model.encode,
      contextWindow: model.contextWindow,
      modelName: model.name,
      isAborted,
    },
    prompt.length,
    prompt,
    prefill.present,
    promptLogits,
    new RepetitionHistory(repetitionSettings(options.repetition)),
  );
  const params: SamplingParams = {
    temperature: options.temperature ?? 1,
    topK: options.topK,
    topP: options.topP,
  };
  const random = new SeededRandom(options.seed ?? randomSeed());
  const reserve = reserves(model, plan);

  const completions: PlanCompletion[] = [];
  const n = Math.max(1, Math.floor(options.n ?? 1));
  for (let sequence = 0; sequence < n; sequence++) {
    if (sequence > 0) cursor.rewindKeepingLogits({ length: prompt.length, logits: promptLogits });
    const emit = (segment: number, text: string, tokenId?: number) => {
      if (text === '' && tokenId === undefined) return;
      firstTokenAt ??= performance.now();
      hooks.onToken?.({ sequence, segment, text, tokenId });
    };
    const row = new RowRun(model, cursor, params, random, emit, reserve);
    completions.push(await row.run(plan));
  }
  const now = performance.now();
  return {
    completions,
    promptTokens: prompt.length,
    timeToFirstTokenMs: (firstTokenAt ?? now) - started,
    totalMs: now - started,
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
  private readonly segments: SegmentResult[] = [];
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
    for (let i = 0; i < plan.length; i++) {
      const s = plan[i];
      const result =
        s.kind === 'text'
          ? this.forced(i, s.text)
          : s.kind === 'free'
            ? await this.free(i, s)
            : s.kind === 'choice'
              ? await this.choice(i, s, plan[i + 1])
              : await this.assertions(i, s);
      this.segments.push(result);
      this.text += result.text;
    }
    return {
      text: this.text,
      segments: this.segments,
      tokenCount: this.cursor.length - this.cursor.promptLength,
    };
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

  private async choice(i: number, s: Choice, next: PlanSegment | undefined): Promise<SegmentResult> {
    const space = this.cursor.takeTrailingSpace();
    const logits = await this.cursor.logits();
    const point = this.cursor.mark();
    const follow = next?.kind === 'text' ? next.text : '';
    const ambiguous = s.options.some((a) => s.options.some((b) => b !== a && b.startsWith(a)));
    const terminator = ambiguous && follow ? follow[0] : '';
    const seqs = s.options.map((o) => this.model.encode(space + o + terminator));
    const extends_ = (long: number[], short: number[]) =>
      long.length > short.length && short.every((t, k) => long[k] === t);
    const lse0 = logSumExp(logits);
    const logprobs: number[] = [];
    let inCache = -1;
    for (let k = 0; k < seqs.length; k++) {
      const ids = seqs[k];
      const longer = seqs.filter((other) => extends_(other, ids));
      let lp = logits[ids[0]] - lse0;
      if (ids.length > 1 || longer.length > 0) {
        this.cursor.rewindKeepingLogits(point);
        const rows = await this.cursor.feed(ids);
        inCache = k;
        for (let j = 1; j < ids.length; j++) lp += rows[j - 1][ids[j]] - logSumExp(rows[j - 1]);
        const last = rows[rows.length - 1];
        if (longer.length > 0) {
          // The option means exactly its text: the mass of going on into a longer option is not its own.
          const lse = logSumExp(last);
          const branch = new Set(longer.map((other) => other[ids.length]));
          let away = 0;
          for (const t of branch) away += Math.exp(last[t] - lse);
          lp += Math.log1p(-Math.min(away, 1 - 1e-12));
        }
      }
      logprobs.push(lp);
    }
    const total = logSumExp(logprobs);
    const distribution = s.options.map((option, k) => ({
      option,
      probability: Math.exp(logprobs[k] - total),
    }));
    const chosen = this.pick(distribution.map((d) => d.probability));
    // The cache holds the option scored last; any other is fed again from the choice point.
    if (inCache !== chosen) {
      this.cursor.rewindKeepingLogits(point);
      for (const id of seqs[chosen]) this.cursor.queueToken(id);
    }
    this.alreadyFed = terminator.length;
    this.emit(i, s.options[chosen]);
    return {
      kind: 'choice',
      name: s.name,
      text: s.options[chosen],
      distribution,
      optionMass: Math.exp(total),
    };
  }

  /** Greedy: the most probable option; sampling: drawn from the options' distribution. */
  private pick(probabilities: number[]): number {
    let best = 0;
    for (let k = 1; k < probabilities.length; k++) if (probabilities[k] > probabilities[best]) best = k;
    if (!(this.params.temperature > 0)) return best;
    let u = this.random.next();
    for (let k = 0; k < probabilities.length; k++) {
      u -= probabilities[k];
      if (u < 0) return k;
    }
    return best;
  }

  private async assertions(i: number, s: AssertionLines): Promise<SegmentResult> {
    const texts = this.model.tokenTexts();
    const eos = this.model.eosTokenIds;
    const auto = new AssertionAutomaton(s);
    await this.cursor.logits();
    /** Where each fed token of the segment ends, in cursor tokens and in characters of `auto.text`. */
    const marks = [{ length: this.cursor.fedLength, end: 0 }];
    let emitted = 0;
    let dropped = 0;
    let repeats = 0;
    let finishReason: SegmentResult['finishReason'] = 'stop';
    const dropLine = () => {
      const at = auto.lineStart;
      while (marks.length > 1 && marks[marks.length - 1].end > at) marks.pop();
      const mark = marks[marks.length - 1];
      this.cursor.rewind(mark.length);
      this.cursor.queueText(auto.text.slice(mark.end, at));
      auto.dropLine();
      marks.push({ length: this.cursor.length, end: at });
      dropped++;
    };
    const accepts = (id: number) => {
      if (eos.has(id)) return auto.canEnd();
      const t = texts[id];
      if (!t || t.includes('\uFFFD')) return false;
      return auto.clone().feed(t) !== 'reject';
    };
    for (;;) {
      const logits = await this.cursor.logits();
      const steered = this.cursor.history.apply(logits);
      let token = selectAllowed(steered, this.params, this.random, accepts);
      // The repetition ban must not leave the grammar without a way on.
      if (token === undefined && steered !== logits)
        token = selectAllowed(logits, this.params, this.random, accepts);
      if (token === undefined) {
        if (auto.line !== '') dropLine();
        break;
      }
      if (eos.has(token)) {
        auto.end();
        finishReason = 'eos';
        break;
      }
      if (auto.feed(texts[token]) === 'duplicate') {
        // A repeated line is dropped; a second one means the model has nothing new to say.
        dropLine();
        if (++repeats >= 2) break;
        continue;
      }
      this.cursor.queueToken(token);
      marks.push({ length: this.cursor.length, end: auto.text.length });
      if (auto.lineStart > emitted) {
        this.emit(i, auto.text.slice(emitted, auto.lineStart), token);
        emitted = auto.lineStart;
      }
      if (auto.ended) break;
      const lineTokens = marks.filter((m) => m.end > auto.lineStart).length;
      if (lineTokens >= s.maxTokensPerLine) {
        dropLine();
        finishReason = 'length';
        break;
      }
    }
    this.emit(i, auto.text.slice(emitted));
    return {
      kind: 'assertions',
      name: s.name,
      text: auto.text,
      lines: auto.lines,
      dropped,
      finishReason,
    };
  }
}
