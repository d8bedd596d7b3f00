import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { answerSpan, confidenceOf, proofConfidence } from '../../../src/core/judgment/confidence';
import { parseLearnedScorer } from '../../../src/core/judgment/learnedScorer';
import { splitOf } from '../../../src/core/judgment/split';
import { trainLearnedJudgment } from '../../../src/core/eval/learnedJudgment';
import { candidateOutcome, type ProveItemResult } from '../../../src/core/eval/proveEval';
import type { CandidateRecord } from '../../../src/core/prove/runSchema';
import { OnnxBackend } from '../../../src/core/model/onnx/index';
import type { ChatMessage } from '../../../src/core/model/types';
import { tinyModelDir } from '../model/tinyModel';
import { scoreLearned } from '../../../src/core/prove/judgeRound';
import { requireScorerModel } from '../../../src/cli/learnedScorerFlag';

let model: OnnxBackend;
before(async () => {
  model = await OnnxBackend.load({ modelDir: tinyModelDir(), variant: 'fp32', device: 'auto', threads: 1 });
});
after(async () => {
  await model?.dispose();
});

test('confidence pools the boxed answer apart from the rest, floors impossible tokens, skips missing ones', () => {
  const tokens = [
    { text: 'So x = 4, ', logprob: -0.1 },
    { text: 'hence \\boxed{', logprob: -0.2 },
    { text: '4', logprob: -3 },
    { text: '}.', logprob: -Infinity },
    { text: ' done', logprob: null },
  ];
  const c = confidenceOf(tokens);
  assert.equal(c.answerLogprob, -3);
  assert.equal(c.answerMinLogprob, -3);
  assert.equal(c.meanLogprob, (-0.1 - 0.2 - 3) / 3);
  assert.equal(c.unsureShare, 1 / 3);
  assert.equal(c.logTokens, Math.log(4));
  assert.deepEqual(answerSpan('a \\boxed{\\frac{1}{2}} b'), { start: 9, end: 20 });
  assert.equal(answerSpan('no answer'), null);
  // Without a box, the last tokens stand for the answer; no tokens give zeros, never NaN.
  assert.equal(confidenceOf([{ text: 'x', logprob: -2 }]).answerLogprob, -2);
  assert.ok(Object.values(confidenceOf([])).every((v) => v === 0));
});

test('a learned scorer file that is not one, or is malformed, is refused with the reason', () => {
  assert.match((parseLearnedScorer({ schema: 'x' }) as { error: string }).error, /not a learned scorer/);
  assert.match(
    (parseLearnedScorer({ schema: 'stepwise.learned-scorer', version: 9 }) as { error: string }).error,
    /version 9/,
  );
  const broken = { schema: 'stepwise.learned-scorer', version: 1, kind: 'token-confidence', model: 'm' };
  assert.match(
    (
      parseLearnedScorer({
        ...broken,
        features: ['meanLogprob'],
        mean: [0],
        scale: [1],
        weights: [],
        bias: 0,
      }) as {
        error: string;
      }
    ).error,
    /malformed/,
  );
});

/**
 * A synthetic MATH-format task on the tiny model where confidence really tells right from wrong:
 * right candidates are the model's own greedy text, wrong ones its text sampled hot (improbable
 * under it), each ending in a boxed answer checked against the reference as `eval prove` does.
 * Agreement carries no signal here (every wrong candidate boxes the same wrong answer).
 */
async function syntheticItems(problems: number): Promise<ProveItemResult[]> {
  const items: ProveItemResult[] = [];
  for (let p = 0; p < problems; p++) {
    const [a, b] = [3 + p, 11 + 2 * p];
    const prompt: ChatMessage[] = [{ role: 'user', content: `What is ${a} + ${b}?` }];
    const right = await model.generate(prompt, { maxTokens: 16, temperature: 0, n: 1 });
    const wrong = await model.generate(prompt, { maxTokens: 16, temperature: 2.5, topP: 1, n: 2, seed: p });
    const texts = [
      ...right.completions.map((c) => `${c.text} \\boxed{${a + b}}`),
      ...right.completions.map((c) => `${c.text} So \\boxed{${a + b}}`),
      ...wrong.completions.map((c) => `${c.text} \\boxed{${a + b + 1}}`),
    ];
    const candidates = texts.map((proof) =>
      candidateOutcome(
        {
          parsed: { proof, selfAnalysis: '', selfScore: null, formatReward: 1, problems: [] },
          finishReason: 'eos',
          verifier: null,
          meta: null,
          stepScores: null,
        } as unknown as CandidateRecord,
        String(a + b),
        true,
      ),
    );
    items.push({
      id: `synthetic/${p}`,
      reference: String(a + b),
      status: 'completed',
      stopReason: 'max-iterations',
      error: null,
      rounds: [{ kind: 'initial', chosen: 0, candidates }],
      final: null,
      stepScorer: { kind: 'verifier-logprob', name: 'tiny-llama' },
      ms: 0,
    } as ProveItemResult);
  }
  return items;
}

test('a scorer trained on the tiny model beats chance on held-out problems of a task with a real signal', async () => {
  const items = await syntheticItems(36);
  const problemText = new Map(items.map((it, p) => [it.id, `What is ${3 + p} + ${11 + 2 * p}?`]));
  const result = await trainLearnedJudgment(
    items,
    (c) => proofConfidence(model, [{ role: 'user', content: problemText.get(c.item.id)! }], c.proof),
    { model: model.info.name },
  );
  const fitCandidates = items.filter((it) => splitOf(it.id) === 'fit').length * 4;
  assert.equal(result.scorer.fit.rows, fitCandidates, 'fitted on the fit side only');
  assert.equal(result.scorer.model, 'tiny-llama');
  assert.ok('scorer' in parseLearnedScorer(JSON.parse(JSON.stringify(result.scorer))), 'its file reads back');
  const learned = result.with.signals.learnedScore;
  assert.ok(learned.count >= 40, `held-out candidates: ${learned.count}`);
  assert.ok(learned.interval && learned.interval.low > 0.5, `held-out AUROC ${JSON.stringify(learned)}`);
  // Without the signal P(correct) has nothing that separates them; with it, it does.
  assert.equal(result.without.signals.learnedScore.count, 0);
  const withP = result.with.signals.pCorrect;
  assert.ok(withP.auroc !== null && withP.auroc > (result.without.signals.pCorrect.auroc ?? 0.5));
});

test('Prove scores a candidate with the learned scorer, and a scorer of another model is refused', async () => {
  const items = await syntheticItems(12);
  const result = await trainLearnedJudgment(
    items,
    (c) => proofConfidence(model, [{ role: 'user', content: `Problem ${c.item.id}` }], c.proof),
    { model: model.info.name },
  );
  const candidate = { parsed: { proof: 'We add: \\boxed{7}' } } as CandidateRecord;
  await scoreLearned(candidate, result.scorer, model, [{ role: 'user', content: 'What is 3 + 4?' }]);
  assert.ok(
    typeof candidate.learnedScore === 'number' && candidate.learnedScore > 0 && candidate.learnedScore < 1,
  );
  assert.doesNotThrow(() => requireScorerModel(result.scorer, model));
  assert.throws(() => requireScorerModel({ ...result.scorer, model: 'Qwen2.5-Coder-0.5B-Instruct' }, model), {
    message: /fitted on Qwen2\.5-Coder-0\.5B-Instruct, but the generator is tiny-llama/,
  });
});

test('judgment train refuses journals without candidate texts, before any model loads', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-learned-'));
  try {
    const data = path.join(dir, 'math.jsonl');
    fs.writeFileSync(data, JSON.stringify({ problem: 'What is 1 + 1?', answer: '2', id: 'p/0' }) + '\n');
    const journal = path.join(dir, 'run.items.jsonl');
    const [item] = await syntheticItems(1);
    for (const c of item.rounds[0].candidates) delete c.proof;
    fs.writeFileSync(
      journal,
      JSON.stringify({ type: 'item', index: 0, id: 'p/0', result: { ...item, id: 'p/0' } }) + '\n',
    );
    const mainModule = path.join(__dirname, '..', '..', '..', 'src', 'cli', 'main.js');
    const script = `require(${JSON.stringify(mainModule)}).main(process.argv.slice(1)).then((c) => { process.exitCode = c; });`;
    const args = ['judgment', 'train', journal, '--data', data, '--out', path.join(dir, 's.json')];
    const r = spawnSync(
      process.execPath,
      ['-e', script, ...args, '--model-dir', path.join(dir, 'no-model')],
      {
        encoding: 'utf8',
        timeout: 60_000,
      },
    );
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /keep no candidate texts: run `stepwise eval prove --keep-texts` first/);
    assert.equal(fs.existsSync(path.join(dir, 's.json')), false);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
