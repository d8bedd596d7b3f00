/**
 * The figures the "Reason & Generate Tests" panel shows for one run, and what the Test Explorer
 * shows for each test, computed in one place from the run's view: the suite's size (the heading,
 * the stage badges, the validity note and the rewards' support all count the same tests), the
 * valid tests (the ticked rows), each test's verdict on the user's function (the column, the
 * confirmed and unconfirmed lists, the Test Explorer's states). test/unit/tests/
 * panelFigures.test.ts fails when two of them disagree on a real run.
 */
import type { UserVerdict } from '../core/tests/evidence';
import type { CodeRunView, VerdictView } from './protocols/tests';

/** A test's state in the Test Explorer after a run. */
export type ExplorerOutcome = 'passed' | 'failed' | 'errored' | 'skipped';

/**
 * How the Test Explorer shows a test whose run on the user's function ended in `status`: a
 * failure (or a test that does not collect) the evidence does not confirm is skipped (an
 * expectation to review, no red mark); a flaky test is neither pass nor failure.
 */
export function explorerOutcome(status: string, verdict: UserVerdict | undefined): ExplorerOutcome {
  // A test that does not collect is no more proof against the user's function than one that fails:
  // without the implementations' backing it may be the test's own import or the interpreter's fault.
  const failing =
    status === 'failed' || status === 'error' || status === 'timeout' || status === 'uncollectable';
  if (failing && verdict !== undefined && verdict !== 'fails-confirmed') return 'skipped';
  if (status === 'passed') return 'passed';
  if (status === 'failed') return 'failed';
  return 'errored';
}

export interface TestsFigures {
  /**
   * Tests in the accumulated suite, as the stage badges show them (summed over the stages): the
   * heading's count and every "of N".
   */
  total: number;
  /** Tests with a verdict (all of them once the suite ran; none in an untrusted workspace). */
  run: number;
  /** Tests that pass on the reference: the ticked rows, validity's numerator, the support's N. */
  valid: number;
  /** Valid tests the generated code passes: the generator reward's numerator. */
  generatedPassesValid: number;
  /** The rewards, null until the suite ran. */
  validity: number | null;
  generatorReward: number | null;
  testWriterReward: number | null;
  /** Tests by the verdict shown on the user's function ('failed' etc. when no evidence was taken). */
  onYourFunction: Record<string, number>;
  /** The confirmed failures and the unconfirmed expectations, as listed under the rewards. */
  confirmed: VerdictView[];
  unconfirmed: VerdictView[];
  /** Tests the user's function does not pass, listed for review when no evidence was taken. */
  disagreements: number;
  /** The Test Explorer's states of the same tests. */
  explorer: Record<ExplorerOutcome, number>;
}

/** Whether a test counts as valid: it passes on the reference the run chose. */
export function isValid(
  v: Pick<VerdictView, 'onUser' | 'onGenerated'>,
  reference: 'user' | 'generated',
): boolean {
  return (reference === 'user' ? v.onUser : v.onGenerated) === 'passed';
}

export function testsFigures(view: CodeRunView): TestsFigures {
  const verdicts = view.verdicts;
  const valid = verdicts.filter((v) => v.valid);
  const s = view.scores;
  const onYourFunction: Record<string, number> = {};
  for (const v of verdicts)
    onYourFunction[v.verdict ?? v.onUser] = (onYourFunction[v.verdict ?? v.onUser] ?? 0) + 1;
  const explorer: Record<ExplorerOutcome, number> = { passed: 0, failed: 0, errored: 0, skipped: 0 };
  for (const v of verdicts) explorer[explorerOutcome(v.onUser, v.verdict)]++;
  return {
    total: view.stages.reduce((n, st) => n + st.tests.length, 0),
    run: verdicts.length,
    valid: valid.length,
    generatedPassesValid: valid.filter((v) => v.onGenerated === 'passed').length,
    validity: s ? s.validity : null,
    generatorReward: s ? s.generatorReward : null,
    testWriterReward: s ? s.testWriterReward : null,
    onYourFunction,
    confirmed: verdicts.filter((v) => v.verdict === 'fails-confirmed'),
    unconfirmed: verdicts.filter((v) => v.verdict === 'unconfirmed'),
    disagreements: verdicts.filter((v) => v.onUser !== 'passed').length,
    explorer,
  };
}
