/**
 * Verdict quality of generated tests at a confirmation threshold (see evidence.ts): with each
 * dataset reference as the user's function, a function shown failing is a false alarm; with each
 * known-wrong mutant as the user's function, one shown failing is detected. A "fails" verdict is
 * correct when it is on a mutant and the reference passes the same test. The threshold is fitted
 * on training items only (fitConfirmThreshold) and then applied unchanged to held-out items.
 */
import { MIN_AGREEING_IMPLEMENTATIONS, mostSetAside, outsideExamplesRule } from '../tests/evidence';
import { wilson, type Proportion } from '../math/stats';
import type { ExampleFail, FailEvidence, TestsItemResult } from './testsEval';

export interface VerdictMetrics {
  threshold: number;
  /** Implementations that must pass a test before a failure on it is confirmed. */
  minAgreeing: number;
  /** Functions with verdict evidence (journals from before it are left out). */
  functions: number;
  /** References shown failing, of functions. */
  falseAlarms: Proportion;
  /** Known-wrong mutants shown failing, of all known-wrong mutants (pooled). */
  detections: Proportion;
  /** Correct "fails (confirmed)" verdicts, of all such verdicts (per test, per user's function). */
  precision: Proportion;
  /** Tests the user's function failed but left as unconfirmed expectations to review. */
  unconfirmed: number;
}

/** What a failure is judged under, besides the threshold (see `confirmed`). */
interface FailRule {
  threshold: number;
  minAgreeing: number;
  /** Implementations that counted as evidence, where the journal says (Infinity: unknown). */
  counted: number;
  /** Most implementations of the item were set aside (mostSetAside). */
  misread: boolean;
  /** The docstring has examples, which decides whether values on inputs unlike them count. */
  hasExamples: boolean;
  /** The precondition rule applies (raises on inputs unlike every example). */
  preconditions: boolean;
  /** Values on inputs unlike every example may still confirm (the rule before outsideExamplesRule). */
  valuesMayConfirm: boolean;
}

/**
 * Whether one failure is confirmed under the rule. Journals from before the count of agreeing
 * implementations was kept bound it by the implementations that counted (those the examples did
 * not set aside), which is exact where fewer than `minAgreeing` counted; without even that, only
 * the threshold counts.
 */
const confirmed = (f: FailEvidence, rule: FailRule) =>
  !rule.misread &&
  // A failure on an input shaped unlike every docstring example is never confirmed (evidence.ts).
  !(rule.preconditions && outsideExamplesRule(f, rule.hasExamples, rule.valuesMayConfirm)) &&
  f.confidence >= rule.threshold &&
  (f.implementationsPassing ?? rule.counted) >= rule.minAgreeing;

/** The implementations that counted as evidence for an item, where its journal says. */
const countedOf = (r: TestsItemResult) =>
  r.verdicts && r.examples ? r.verdicts.implementations - r.examples.setAside : Infinity;

/** Whether the examples set aside more of an item's implementations than they left (evidence.ts). */
const misreadOf = (r: TestsItemResult) =>
  !!r.examples && mostSetAside({ implementations: countedOf(r), setAside: r.examples.setAside });

export function verdictMetrics(
  items: readonly TestsItemResult[],
  threshold: number,
  minAgreeing = MIN_AGREEING_IMPLEMENTATIONS,
  options: {
    examples?: boolean;
    preconditions?: boolean;
    misreadMayConfirm?: boolean;
    valuesOutsideExamplesMayConfirm?: boolean;
  } = {},
): VerdictMetrics {
  // The docstring's examples count unless asked not to: what the generated tests alone achieve.
  const withExamples = options.examples ?? true;
  const exampleFails = (r: TestsItemResult) => (withExamples ? r.verdicts?.exampleFails : undefined);
  // The rules before mostSetAside and before values were held to outsideExamplesRule, for replays.
  const ruleOf = (r: TestsItemResult): FailRule => ({
    threshold,
    minAgreeing,
    counted: countedOf(r),
    misread: !options.misreadMayConfirm && misreadOf(r),
    hasExamples: (r.examples?.tests ?? 0) > 0,
    preconditions: options.preconditions ?? true,
    valuesMayConfirm: options.valuesOutsideExamplesMayConfirm ?? false,
  });
  const shown = (fails: FailEvidence[], examples: readonly ExampleFail[], rule: FailRule) =>
    examples.length > 0 || fails.some((f) => confirmed(f, rule));
  const withEvidence = items.filter((r) => r.verdicts);
  let alarms = 0;
  let detected = 0;
  let mutants = 0;
  let correct = 0;
  let confirmedCount = 0;
  let unconfirmed = 0;
  for (const r of withEvidence) {
    const v = r.verdicts!;
    const ex = exampleFails(r);
    const rule = ruleOf(r);
    if (shown(v.referenceFails, ex?.reference ?? [], rule)) alarms++;
    mutants += r.mutants.knownWrong;
    // Mutants are listed in one order everywhere; one that failed no generated test may still fail an example.
    for (let k = 0; k < Math.max(v.mutantFails.length, ex?.mutants.length ?? 0); k++)
      if (shown(v.mutantFails[k] ?? [], ex?.mutants[k] ?? [], rule)) detected++;
    for (const f of [...v.referenceFails, ...v.mutantFails.flat()]) {
      if (confirmed(f, rule)) {
        confirmedCount++;
        if (f.referencePasses) correct++;
      } else unconfirmed++;
    }
    // A failed docstring example is a "fails" verdict too, right when the reference passes it.
    for (const f of [...(ex?.reference ?? []), ...(ex?.mutants.flat() ?? [])]) {
      confirmedCount++;
      if (f.referencePasses) correct++;
    }
  }
  return {
    threshold,
    minAgreeing,
    functions: withEvidence.length,
    falseAlarms: wilson(alarms, withEvidence.length),
    detections: wilson(detected, mutants),
    precision: wilson(correct, confirmedCount),
    unconfirmed,
  };
}

/** Threshold above every confidence: nothing is ever confirmed. */
export const NEVER_CONFIRM = 1.01;

const GENERATED_ONLY = { examples: false };

/**
 * The threshold with the most detections among those whose false-alarm rate on these (training)
 * items is at most `maxFalseAlarmRate`; ties go to fewer false alarms, then the higher threshold.
 * The candidates are every confidence seen and "never confirm", so the rule is always satisfiable.
 * The docstring examples' failures are left out: they are shown whatever the threshold, so counting
 * them would only let the threshold rise on the functions whose docstrings give examples, at the
 * cost of the functions whose docstrings give none.
 */
export function fitConfirmThreshold(
  items: readonly TestsItemResult[],
  maxFalseAlarmRate = 0.05,
  minAgreeing = MIN_AGREEING_IMPLEMENTATIONS,
): { threshold: number; train: VerdictMetrics; candidates: number } {
  const seen = new Set<number>([NEVER_CONFIRM]);
  for (const r of items)
    for (const f of [...(r.verdicts?.referenceFails ?? []), ...(r.verdicts?.mutantFails.flat() ?? [])])
      seen.add(f.confidence);
  let best: VerdictMetrics | undefined;
  for (const t of [...seen].sort((a, b) => b - a)) {
    const m = verdictMetrics(items, t, minAgreeing, GENERATED_ONLY);
    if ((m.falseAlarms.value ?? 0) > maxFalseAlarmRate) continue;
    const better =
      !best ||
      m.detections.k > best.detections.k ||
      (m.detections.k === best.detections.k && m.falseAlarms.k < best.falseAlarms.k);
    if (better) best = m;
  }
  const train = best ?? verdictMetrics(items, NEVER_CONFIRM, minAgreeing, GENERATED_ONLY);
  return { threshold: train.threshold, train, candidates: seen.size };
}
