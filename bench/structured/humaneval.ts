/**
 * HumanEval through one test-writing stage (stage 1's prompt, written from the specification),
 * free and constrained side by side. Per function: the tests admitted after parsing, whether each
 * is valid Python on its own (checked by Python's own parser, independently of the tree-sitter
 * parse that admitted it), whether each passes on the canonical solution (in the sandbox), and
 * whether the writer ran into its token limit.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as zlib from 'node:zlib';
import { specOf } from '../../src/core/tests/pipeline';
import { createSandboxSuiteRunner } from '../../src/core/tests/sandboxRunner';
import { loadStageChain, StageConversation } from '../../src/core/tests/stages';
import { writeStageTests } from '../../src/core/tests/testWriter';
import type { FoundFunction } from '../../src/core/tests/functions';
import { findFunctions } from '../../src/core/tests/functions';
import { SANDBOX_DEFAULTS } from '../../src/core/sandbox/limits';
import type { ModelBackend } from '../../src/core/model/types';
import { resolvePython } from '../../src/core/sandbox/index';
import { mean, progress, share, type ItemRecord, type Mode, type Results } from './results';

export interface HumanEvalProblem {
  task_id: string;
  prompt: string;
  canonical_solution: string;
  entry_point: string;
}

export function loadHumanEval(file: string, limit: number): HumanEvalProblem[] {
  const raw = fs.readFileSync(file);
  const text = file.endsWith('.gz') ? zlib.gunzipSync(raw).toString('utf8') : raw.toString('utf8');
  return text
    .split('\n')
    .filter((l) => l.trim())
    .slice(0, limit)
    .map((l) => JSON.parse(l) as HumanEvalProblem);
}

export interface TestSettings {
  maxTests: number;
  maxTokensPerLine: number;
  freeMaxTokens: number;
}

/** Which lines Python itself parses (`ast.parse`), in one interpreter call. */
function pythonParses(lines: string[]): boolean[] {
  if (!lines.length) return [];
  const script =
    'import ast, json, sys\nout = []\nfor line in json.load(sys.stdin):\n    try:\n        ast.parse(line)\n        out.append(True)\n    except SyntaxError:\n        out.append(False)\nprint(json.dumps(out))\n';
  const r = spawnSync(resolvePython(), ['-c', script], { input: JSON.stringify(lines), encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`python could not check the tests: ${r.stderr}`);
  return JSON.parse(r.stdout) as boolean[];
}

async function targetOf(p: HumanEvalProblem): Promise<FoundFunction> {
  const fns = await findFunctions(p.prompt + p.canonical_solution, 'python');
  const fn = fns.find((f) => f.name === p.entry_point);
  if (!fn) throw new Error(`${p.task_id}: ${p.entry_point} not found in its prompt`);
  return fn;
}

export async function runHumanEval(
  problems: HumanEvalProblem[],
  model: ModelBackend,
  modes: Mode[],
  settings: TestSettings,
  results: Results,
): Promise<void> {
  const chain = loadStageChain();
  // The stage-1 test writer with no reasoning before it: tests from the specification alone.
  const stage = { ...chain.stages[0], testBudget: settings.maxTests };
  const runner = createSandboxSuiteRunner({
    perTestTimeoutMs: SANDBOX_DEFAULTS.perTestTimeoutMs,
    suiteTimeoutMs: SANDBOX_DEFAULTS.suiteTimeoutMs,
    memoryMb: SANDBOX_DEFAULTS.memoryMb,
  });
  for (const mode of modes) {
    for (const [i, p] of problems.entries()) {
      if (results.has({ part: 'humaneval', mode, id: p.task_id })) continue;
      const started = performance.now();
      const target = await targetOf(p);
      const messages = new StageConversation(chain, {
        spec: specOf(target),
        language: 'Python',
        framework: 'pytest',
        function_name: p.entry_point,
        assertion_form: `\`assert ${p.entry_point}(...) == expected\``,
      }).testWriter([], stage);
      const writing = await writeStageTests({
        model,
        messages,
        target,
        stage: 1,
        budget: settings.maxTests,
        constrained: mode === 'constrained',
        maxTokens: settings.freeMaxTokens,
        maxTokensPerLine: settings.maxTokensPerLine,
        temperature: 0,
        seen: new Set(),
        taken: new Set(),
      });
      const lines = writing.tests.map((t) => t.assertion?.line ?? t.source);
      const valid = pythonParses(lines);
      const verdicts = writing.tests.length
        ? (await runner({ language: 'python', code: p.prompt + p.canonical_solution, tests: writing.tests }))
            .verdicts
        : [];
      const passed = new Set(verdicts.filter((v) => v.status === 'passed').map((v) => v.name));
      const item: ItemRecord = {
        part: 'humaneval',
        mode,
        id: p.task_id,
        ms: performance.now() - started,
        constrained: writing.constrained,
        finishReason: writing.finishReason,
        repeatsDropped: writing.repeatsDropped,
        admitted: writing.tests.length,
        syntacticallyValid: valid.filter(Boolean).length,
        passCanonical: writing.tests.filter((t) => passed.has(t.name)).length,
        rejected: writing.rejected.length,
        rejectedReasons: writing.rejected.slice(0, 5).map((r) => r.reason),
        tests: lines,
      };
      results.add(item);
      progress(
        'humaneval',
        mode,
        i + 1,
        problems.length,
        `${(item.ms / 1000).toFixed(1)} s, ${item.admitted} admitted, ${item.passCanonical} pass the canonical solution, finish ${item.finishReason}`,
      );
    }
  }
}

export function summariseHumanEval(results: Results, mode: Mode): Record<string, unknown> {
  const items = results.items('humaneval', mode);
  const sum = (f: string) => items.reduce((s, i) => s + ((i[f] as number) ?? 0), 0);
  const admitted = sum('admitted');
  return {
    functions: items.length,
    admittedTests: admitted,
    functionsWithTests: items.filter((i) => (i.admitted as number) > 0).length,
    shareAdmittedSyntacticallyValid: admitted ? sum('syntacticallyValid') / admitted : null,
    shareAdmittedPassingCanonical: admitted ? sum('passCanonical') / admitted : null,
    shareGenerationsHitTokenLimit: share(items.map((i) => i.finishReason === 'length')),
    repeatsDroppedByPlan: sum('repeatsDropped'),
    rejectedLines: sum('rejected'),
    secondsPerFunction: mean(items.map((i) => i.ms / 1000)),
  };
}
