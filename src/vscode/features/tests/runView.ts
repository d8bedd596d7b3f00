/**
 * The panel's view of a finished run (no `vscode` here, so the unit tests build exactly what the
 * panel receives and check its figures against each other: test/unit/tests/panelFigures).
 */
import { failedExamples, testWritingText, type FiveStageRun } from '../../../core/tests/pipeline';
import { evidenceText } from '../../../core/tests/evidence';
import { rewardSupportText } from '../../../core/tests/rewards';
import type { CodeRunView } from '../../../shared/protocols/tests';
import { isValid } from '../../../shared/testsFigures';

export function toView(run: FiveStageRun, previous: CodeRunView): CodeRunView {
  const sources = new Map(run.accumulatedSuite.map((t) => [t.name, t.source]));
  const reference = run.scores?.reference ?? 'user';
  return {
    ...previous,
    phase: run.scores ? 'done' : 'not-executed',
    message: run.scores
      ? undefined
      : 'The tests were generated but not executed: generated code runs only in a trusted workspace.',
    stages: run.stages.map((r) => ({
      id: r.stage.id,
      name: r.stage.name,
      purpose: r.stage.purpose,
      testFocus: r.stage.testFocus,
      reasoning: r.reasoning,
      testWriterOutput: r.testWriterOutput,
      tests: r.tests,
      dropped: r.rejected,
      status: 'done',
    })),
    generatedCode: run.generatedCode,
    testWriting:
      run.testWriting.mode === 'constrained'
        ? `${testWritingText(run.testWriting)}: one assertion per line, at most each stage's budget`
        : testWritingText(run.testWriting),
    verdicts: run.verdicts.map((v) => ({
      ...v,
      source: sources.get(v.name) ?? '',
      valid: isValid(v, reference),
      evidence: v.evidence ? evidenceText(v.evidence) : undefined,
    })),
    failedExamples: failedExamples(run),
    scores: run.scores ? { ...run.scores, support: rewardSupportText(run.scores) } : undefined,
    isolation: run.isolation,
    totalMs: run.totalMs,
  };
}
