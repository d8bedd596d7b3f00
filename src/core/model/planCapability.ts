/**
 * Whether a backend can run generation plans, asked the same way by every flow (Prove, the tests
 * flow, practice judging). A backend object that lacks the plan methods altogether (a wrapper
 * written before plans existed) answers like a backend without support, so that callers fall back
 * to free generation with a reason instead of failing.
 */
import type { PlanOptions, PlanResult, PlanRunner, PlanSegment, PlanSupport } from './plan';
import type { ModelBackend, ModelInput } from './types';

export type PlanCapableBackend = ModelBackend & PlanRunner;

function hasPlanMethods(backend: ModelBackend): backend is PlanCapableBackend {
  const b = backend as Partial<PlanRunner>;
  return typeof b.planSupport === 'function' && typeof b.generatePlan === 'function';
}

/** How the backend runs plans; `none` with the reason when it cannot. Never throws. */
export async function planSupportOf(backend: ModelBackend): Promise<PlanSupport> {
  if (!hasPlanMethods(backend))
    return {
      mode: 'none',
      reason: `the ${backend.info.backend} backend "${backend.info.name}" cannot constrain generation`,
    };
  try {
    return await backend.planSupport();
  } catch (err) {
    return { mode: 'none', reason: `asking the backend for plan support failed: ${(err as Error).message}` };
  }
}

/** Runs a plan on a backend whose `planSupportOf` said it can. */
export function runPlan(
  backend: ModelBackend,
  input: ModelInput,
  plan: PlanSegment[],
  options?: PlanOptions,
): Promise<PlanResult> {
  if (!hasPlanMethods(backend))
    throw new Error(`The ${backend.info.backend} backend cannot run generation plans.`);
  return backend.generatePlan(input, plan, options);
}

/**
 * The plan support a flow works with: `none` with `reason` when the caller turned constraints off,
 * else what the backend says.
 */
export async function resolvePlanSupport(backend: ModelBackend, constrained: boolean): Promise<PlanSupport> {
  if (!constrained) return { mode: 'none', reason: 'constrained generation is turned off' };
  return planSupportOf(backend);
}
