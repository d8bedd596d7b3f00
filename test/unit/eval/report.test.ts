import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { EvalResult } from '../../../src/core/eval/evaluation';
import { summarizePrm } from '../../../src/core/eval/prmEval';
import type { CandidateOutcome } from '../../../src/core/eval/proveEval';
import { summarizeProve } from '../../../src/core/eval/proveSummary';
import { renderReport } from '../../../src/core/eval/report/html';
import { escapeHtml as escapeXml } from '../../../src/core/text/htmlPage';
import { smallSampleWarning } from '../../../src/core/math/sampleSize';
import { summarizeTests } from '../../../src/core/eval/testsSummary';

const c = (correct: boolean, s: number): CandidateOutcome => ({
  answer: correct ? '1' : '2',
  correct,
  formatReward: 1,
  selfScore: s,
  verifierScore: s,
  stepScore: s,
  finishReason: 'eos',
});

function doc(kind: EvalResult['kind'], metrics: unknown): EvalResult {
  return {
    schema: 'stepwise.eval-result',
    version: 1,
    kind,
    command: 'stepwise eval x --data "<b>"',
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    complete: true,
    dataset: { path: '/data/set.jsonl', format: kind, selected: 2, available: 2, badLines: 0 },
    model: { name: 'model <script>alert(1)</script>', backend: 'onnx', device: 'cpu' },
    settings: { seed: 1 },
    items: { selected: 2, finished: 2, failed: [] },
    timing: {
      secondsPerItem: 1,
      itemSeconds: 2,
      cpuSecondsPerItem: 0.5,
      machine: { cpu: 'c', cores: 2, memoryGiB: 1, node: 'v', platform: 'p', loadAverage: 1.5 },
    },
    metrics,
    files: { journal: 'j', report: 'r' },
  };
}

const prove = summarizeProve(
  [true, false].map((ok, i) => ({
    id: `p${i}`,
    reference: '1',
    status: 'completed' as const,
    stopReason: 'max-iterations' as const,
    error: null,
    rounds: [
      { kind: 'initial' as const, chosen: 0, candidates: [c(ok, 0.5), c(!ok, 1)] },
      { kind: 'refine' as const, chosen: 0, candidates: [c(true, 1), c(false, 0)] },
    ],
    final: { round: 1, candidate: 0, answer: '1', correct: true },
    stepScorer: null,
    ms: 1,
  })),
);
const tests = summarizeTests([
  {
    id: 't',
    format: 'mbpp',
    entryPoint: 'f',
    tests: { admitted: 3, oracle: 3, rejectedLines: 2, valid: 2, validByStage: [1, 1, 0, 0, 0] },
    mutants: {
      generated: 3,
      knownWrong: 2,
      killed: 1,
      score: 0.5,
      byKind: { comparison: { knownWrong: 2, killed: 1 } },
    },
    referencePassesOfficial: true,
    generator: { wroteCode: true, officialStatus: 'failed' },
    rewards: { validity: 0.5, generator: 0.5, testWriter: 0.25 },
    ms: { pipeline: 1, sandbox: 1 },
  },
]);
const prm = summarizePrm(
  [{ id: 'a', ratings: [1, -1], scores: [0.8, 0.3], firstErrorLabel: 1, firstErrorPredicted: 1 }],
  0.5,
);

for (const [kind, metrics, charts, heading] of [
  ['prove', prove, 4, 'Does refinement help?'],
  ['tests', tests, 2, 'Do the generated tests catch bugs?'],
  ['prm', prm, 3, 'Does the scorer find the wrong steps?'],
] as const) {
  test(`the ${kind} report is one self-contained page with ${charts} charts, safe under a strict CSP`, () => {
    const html = renderReport(doc(kind, metrics), { nonce: 'N0nce' });
    assert.equal((html.match(/<svg class="chart"/g) ?? []).length, charts);
    assert.ok(html.includes(heading));
    assert.match(
      html,
      /<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'nonce-N0nce'">/,
    );
    assert.equal((html.match(/<style/g) ?? []).length, 1);
    assert.match(html, /<style nonce="N0nce">/);
    assert.doesNotMatch(html, /<script/i, 'no scripts (the model name is escaped)');
    assert.doesNotMatch(html, /\sstyle=/, 'no style attributes: the CSP would block them');
    assert.doesNotMatch(html, /\b(?:src|href)=|url\(|https?:\/\//, 'no external resources');
    assert.ok(html.includes('&lt;script&gt;alert(1)&lt;/script&gt;'));
    assert.ok(html.includes('stepwise eval x --data &quot;&lt;b&gt;&quot;'), 'the command is shown, escaped');
  });
}

test('an unfinished run says so and how to continue', () => {
  const d = {
    ...doc('prm', prm),
    complete: false,
    items: { selected: 5, finished: 2, failed: [{ id: 'x', message: 'boom' }] },
  };
  const html = renderReport(d);
  assert.match(html, /Incomplete: 2 of 5 items finished\. Run the command again to continue/);
  assert.match(html, /Failed items \(retried by the next run\)/);
});

test('every rate of a small evaluation is marked with the panels’ small-sample warning; a large one is not', () => {
  for (const [kind, metrics, n] of [
    ['prove', prove, 2],
    ['tests', tests, 2],
    ['prm', prm, 1],
  ] as const) {
    const html = renderReport(doc(kind, metrics));
    const warning = escapeXml(smallSampleWarning(n, 'rates')!);
    assert.ok(html.includes(`<span class="small-sample" title="${warning}">few items</span>`), kind);
  }
  // The prove report of two problems: its accuracy tile and its calibration section say so.
  const html = renderReport(doc('prove', prove));
  assert.match(html, /\d\/2 problems <span class="small-sample"/);
  assert.match(html, /<p class="small-sample">Small sample: these ECE and AUROC come from \d+ items/);

  // Forty problems: the accuracy and the calibration over every candidate are no longer marked...
  const many = summarizeProve(
    Array.from({ length: 40 }, (_, i) => ({
      id: `p${i}`,
      reference: '1',
      status: 'completed' as const,
      stopReason: 'max-iterations' as const,
      error: null,
      rounds: [{ kind: 'initial' as const, chosen: 0, candidates: [c(i % 2 === 0, 0.5), c(i % 3 === 0, 1)] }],
      final: { round: 0, candidate: 0, answer: '1', correct: i % 2 === 0 },
      stepScorer: null,
      ms: 1,
    })),
  );
  const large = renderReport(doc('prove', many));
  assert.match(large, /20\/40 problems<\/div>/);
  assert.doesNotMatch(large, /these ECE and AUROC come from/);
  // ...while its held-out half (20 problems) still is.
  assert.match(large, /\(6\/20\)<\/span> <span class="small-sample"/);
});
