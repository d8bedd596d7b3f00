/**
 * Whether a backend can run generation plans, asked the same way by every flow (Prove, the tests
 * flow, practice judging), so that each records the same kind of reason when it falls back to free
 * generation.
 */
import type { PlanSupport } from './plan';
import type { ModelBackend } from './types';

/** How the backend runs plans; `none` with the reason when it cannot. Never throws. */
export async function planSupportOf(backend: ModelBackend): Promise<PlanSupport> {
  try {
    return await backend.planSupport();
  } catch (err) {
    return { mode: 'none', reason: `asking the backend for plan support failed: ${(err as Error).message}` };
  }
}

/**
 * The plan support a flow works with: `none` with the reason when the caller turned constraints
 * off, else what the backend says.
 */
export async function resolvePlanSupport(backend: ModelBackend, constrained: boolean): Promise<PlanSupport> {
  if (!constrained) return { mode: 'none', reason: 'constrained generation is turned off' };
  return planSupportOf(backend);
}
