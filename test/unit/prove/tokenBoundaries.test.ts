/**
 * Forced text must end where the model's own tokens would end. A plan that forces "\boxed{" makes
 * the model continue after a lone "{" token, yet Qwen writes "{\" as one token before "\frac": the
 * model then reads the forced "{" as "no LaTeX command follows" and boxes digits ("1" for
 * \frac{14}{3} on MATH-500). A forced trailing space does the same to words, which carry their own
 * leading space. (A continuation that would merge with the forced text's last character, such as
 * a newline after a colon, can still be steered; only token healing in the sampler would remove
 * that.) These tests tokenize each forced text before a free segment together with the
 * continuations the model writes there, with the real tokenizers of the default and test models.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Tokenizer } from '@huggingface/tokenizers';
import { DEFAULT_MODEL_ID } from '../../../src/core/model/ladder/catalog';
import { ladderModelDir } from '../../../src/core/model/defaults';
import type { PlanSegment } from '../../../src/core/model/plan';
import { generatorPlan } from '../../../src/core/prove/generate';
import { judgePlan } from '../../../src/core/prove/verify';
import { testModelDir } from '../../testModel';

const MODELS = [
  { name: 'default model (Qwen2.5-Coder-0.5B)', dir: ladderModelDir(DEFAULT_MODEL_ID) },
  { name: 'test model (SmolLM2-135M)', dir: testModelDir() },
];

/** What models write right after each forced text that opens a free segment. */
const CONTINUATIONS: Record<string, string[]> = {
  answer: ['{\\frac{14}{3}}$', '{(3, \\frac{\\pi}{2})}$', '{42}$', '{\\text{Evelyn}}$', '{-\\sqrt{2}}$'],
  proof: ['To convert the point, we use', 'Let $n = 2k + 1$.', 'First, we calculate $f(-2)$:'],
  default: [' The proof is correct.', ' Step 2 divides by zero.', ' 3 is right.', ' $x = 2$ holds.'],
};

/** Each forced text that a free segment follows, with the segment's name. */
function forcedBeforeFree(plan: PlanSegment[]): { forced: string; free: string }[] {
  const out: { forced: string; free: string }[] = [];
  plan.forEach((s, i) => {
    const next = plan[i + 1];
    if (s.kind === 'text' && next?.kind === 'free') out.push({ forced: s.text, free: next.name });
  });
  return out;
}

const PLANS: [string, PlanSegment[]][] = [
  ['generator, with a final answer', generatorPlan(512, 128, true)],
  ['generator, a proof', generatorPlan(512, 128, false)],
  ['verifier', judgePlan('Here is my evaluation of the solution:', 128, 'unit')],
  ['meta-verifier', judgePlan('Here is my analysis of the self-evaluation:', 128, 'unit')],
];

for (const model of MODELS) {
  const file = join(model.dir, 'tokenizer.json');
  test(
    `forced text in Prove's plans ends on a token boundary of the ${model.name}`,
    { skip: !existsSync(file) && `no tokenizer at ${file} (bash scripts/setup.sh installs it)` },
    () => {
      const config = join(model.dir, 'tokenizer_config.json');
      const tokenizer = new Tokenizer(
        JSON.parse(readFileSync(file, 'utf8')),
        existsSync(config) ? JSON.parse(readFileSync(config, 'utf8')) : {},
      );
      const tokens = (s: string) => tokenizer.encode(s).ids.map((id: number) => tokenizer.decode([id]));
      let checked = 0;
      for (const [planName, plan] of PLANS) {
        for (const { forced, free } of forcedBeforeFree(plan)) {
          const own = tokens(forced);
          for (const rest of CONTINUATIONS[free] ?? CONTINUATIONS.default) {
            const joined = tokens(forced + rest);
            assert.deepEqual(
              joined.slice(0, own.length),
              own,
              `${planName}: the forced ${JSON.stringify(forced)} is not how the model would start ${JSON.stringify(forced + rest)}`,
            );
            checked++;
          }
        }
      }
      assert.ok(checked >= 20, `checked ${checked} continuations`);
    },
  );
}
