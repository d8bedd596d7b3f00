/** What a segment runner works with: the model, the sequence's cursor, sampling, and the event stream. */
import type { SamplingParams, SeededRandom } from '../sampling';
import type { PlanModel } from './planRunner';
import type { PlanCursor } from './planCursor';

export interface RowContext {
  model: PlanModel;
  cursor: PlanCursor;
  params: SamplingParams;
  random: SeededRandom;
  emit: (segment: number, text: string, tokenId?: number) => void;
}
