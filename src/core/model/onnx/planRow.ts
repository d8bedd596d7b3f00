/** What a segment runner works with: the model, the sequence's cursor, sampling, and the event stream. */
import type { SamplingParams, SeededRandom } from '../sampling';
import type { ModelInput } from '../types';
import type { CausalLmSession } from './causalLmSession';
import type { PlanCursor } from './planCursor';
import type { PrefixCache } from './prefixCache';

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
  /** The cache's shape, to give each row of a batched plan a copy of the prompt's cache. */
  kvShape: { kvHeads: number; headDim: number };
  /** What fills a batched pass for rows with nothing to feed (masked out). */
  padId: number;
  /** The last request's sequence, to start from (prefixCache.ts). */
  prefix: PrefixCache;
}

export interface RowContext {
  model: PlanModel;
  cursor: PlanCursor;
  params: SamplingParams;
  random: SeededRandom;
  emit: (segment: number, text: string, tokenId?: number) => void;
}
