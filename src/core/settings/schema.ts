/**
 * Every Stepwise setting, in one schema: its type, default, bounds, enum and description. This is
 * the one source: package.json's `contributes.configuration` and docs/settings.md are generated
 * from it (`npm run gen:settings`), and a unit test fails when they drift. Defaults that a core
 * flow also applies on its own (Prove's options, the sandbox's limits, the design constants) are
 * taken from that flow, so the editor, the CLI and the benchmarks share them.
 */
import { z } from 'zod';
import { DESIGN_CONSTANTS } from '../designConstants';
import { ProveOptionsSchema } from '../prove/runSchema';
import { DEFAULT_AGREEMENT_SAMPLES } from '../tests/rewards';
import { DEFAULT_CONFIRM_THRESHOLD, DEFAULT_EVIDENCE_SAMPLES } from '../tests/evidence';
import { SANDBOX_DEFAULTS } from '../sandbox/limits';
import { DEFAULT_ENDPOINT_TIMEOUT_MS } from '../model/lengths';
import { DEFAULT_CALL_RUNS } from '../sandbox/oracle/run';
import { DEFAULT_STAGE_MAX_TOKENS } from '../tests/pipeline';

/** Where a setting may be set (VS Code's configuration scopes). */
export type SettingScope = 'machine-overridable' | 'resource';

/** What each setting carries besides its value type: shown in the Settings editor. */
export interface SettingMeta {
  scope: SettingScope;
  description?: string;
  markdownDescription?: string;
  enumDescriptions?: string[];
}

const meta = (m: SettingMeta): Record<string, unknown> => ({ ...m });
const prove = ProveOptionsSchema.shape;
/** The question reward's default weights (R_cons, R_sep, R_stab); the CLI's practice uses them too. */
export const PRACTICE_WEIGHTS = { cons: 0.4, sep: 0.3, stab: 0.3 };
const weights = (d: { cons: number; sep: number; stab: number }) =>
  z.object({ cons: z.number(), sep: z.number(), stab: z.number() }).default(d);

/** Keys below `stepwise.`, in the order the Settings editor shows them. */
export const SETTINGS_SCHEMA = {
  'model.backend': z
    .enum(['onnx', 'openai'])
    .default('onnx')
    .meta(
      meta({
        scope: 'machine-overridable',
        description: 'Where the model runs.',
        enumDescriptions: [
          'A local ONNX model folder run by onnxruntime-node (offline).',
          'An OpenAI-compatible HTTP endpoint (llama.cpp server, vLLM, Ollama, ...).',
        ],
      }),
    ),
  'model.onnx.path': z
    .string()
    .default('')
    .meta(
      meta({
        scope: 'machine-overridable',
        description:
          'Folder of an onnx-community-style model (config.json, tokenizer.json, onnx/model*.onnx). Empty: the embedded default, Qwen2.5-Coder-0.5B-Instruct (install it by picking it in Stepwise: Select Model, or with `stepwise models install qwen2.5-coder-0.5b-instruct`).',
      }),
    ),
  'model.onnx.variant': z
    .enum(['fp32', 'q8', 'q4'])
    .default('q4')
    .meta(
      meta({
        scope: 'machine-overridable',
        description:
          "Which ONNX weights file to load. Models of Stepwise's ladder come only as q4: their GGUF's 4-bit blocks carried over exactly.",
        enumDescriptions: [
          'onnx/model.onnx: full precision.',
          'onnx/model_quantized.onnx: 8-bit weights.',
          "onnx/model_q4.onnx: 4-bit weights, fastest on CPU (the ladder's models: exactly the GGUF's weights).",
        ],
      }),
    ),
  'model.onnx.device': z
    .enum(['auto', 'cpu', 'cuda'])
    .default('auto')
    .meta(
      meta({
        scope: 'machine-overridable',
        description: 'Execution device for the ONNX model.',
        enumDescriptions: [
          'CUDA when available, otherwise CPU.',
          'Always CPU.',
          'CUDA only (fails when it is unavailable).',
        ],
      }),
    ),
  'model.onnx.threads': z
    .int()
    .min(0)
    .default(0)
    .meta(
      meta({ scope: 'machine-overridable', description: 'Threads for CPU inference (0: as many as cores).' }),
    ),
  'model.openai.baseUrl': z
    .string()
    .default('http://127.0.0.1:8080/v1')
    .meta(
      meta({
        scope: 'machine-overridable',
        description:
          'Base URL of the OpenAI-compatible endpoint, with or without /v1. The API key is kept in SecretStorage: run "Stepwise: Set Model Endpoint API Key".',
      }),
    ),
  'model.openai.model': z
    .string()
    .default('')
    .meta(meta({ scope: 'machine-overridable', description: 'Model name sent to the endpoint.' })),
  'model.openai.headers': z
    .record(z.string(), z.string())
    .default({})
    .meta(
      meta({
        scope: 'machine-overridable',
        description: 'Extra HTTP headers sent to the endpoint (never put secrets here).',
      }),
    ),
  'model.openai.tokenizerPath': z
    .string()
    .default('')
    .meta(
      meta({
        scope: 'machine-overridable',
        description:
          "Folder with the served model's tokenizer.json and tokenizer_config.json (its Hugging Face folder). Needed for constrained generation over chat on servers that do not expose their chat template (llama-cpp-python); also gives exact token counts.",
      }),
    ),
  'model.openai.assertionGrammar': z
    .enum(['auto', 'expressions', 'lines'])
    .default('auto')
    .meta(
      meta({
        scope: 'machine-overridable',
        markdownDescription:
          "How much of each generated test line the endpoint's grammar describes. llama-cpp-python checks a grammar against the whole vocabulary at every token, so the full expression grammar slows its test writing several-fold. Lines that do not parse are dropped either way.",
        enumDescriptions: [
          "By server: the whole expression grammar for llama.cpp's server and vLLM, the line grammar for other servers that take a grammar (llama-cpp-python).",
          'The server holds every test line to an expression that parses.',
          'The server holds each test line to its opening (assert and the function call); the rest is checked when the text comes back. Several times faster on llama-cpp-python.',
        ],
      }),
    ),
  'model.openai.timeoutMs': z
    .int()
    .min(1000)
    .default(DEFAULT_ENDPOINT_TIMEOUT_MS)
    .meta(
      meta({
        scope: 'machine-overridable',
        description: 'Milliseconds to wait for the endpoint before giving up.',
      }),
    ),
  'model.contextWindow': z
    .int()
    .min(0)
    .default(0)
    .meta(
      meta({
        scope: 'machine-overridable',
        description:
          "Context window of an endpoint's model in tokens. 0: ask the server (llama.cpp /props, vLLM /v1/models); a server that does not say is assumed to read 2048, with a warning in the log. Prompts that would not fit are refused with a message instead of being cut silently.",
      }),
    ),
  'model.maxOutputTokens': prove.maxTokens.meta(
    meta({ scope: 'resource', description: 'Most tokens one generation may produce.' }),
  ),
  'verifier.modelPath': z
    .string()
    .default('')
    .meta(
      meta({
        scope: 'machine-overridable',
        description: 'ONNX model folder for the verifier. Empty: the generator model verifies too.',
      }),
    ),
  'verifier.passes': prove.verifierPasses.meta(
    meta({ scope: 'resource', description: 'Verifier passes averaged into the verifier score (k).' }),
  ),
  'prm.modelPath': z
    .string()
    .default('')
    .meta(
      meta({
        scope: 'machine-overridable',
        description:
          'Process reward model folder exported by the trainer (its prm job, then export). Used by Prove and by "Score Steps with the Process Reward Model". Empty: steps are scored by the verifier model.',
      }),
    ),
  'prm.stepHeadPath': z
    .string()
    .default('')
    .meta(
      meta({
        scope: 'machine-overridable',
        description:
          'Learned step head (a JSON file from `stepwise judgment train-steps`): Prove, Check My Proof and "Score Steps" score each step from the generator\'s own token log-probabilities, one pass per Solution. Used when no process reward model folder is set; a head fitted on another model is refused. Empty: steps are scored by the verifier model.',
      }),
    ),
  'prove.maxIterations': prove.maxIterations.meta(
    meta({ scope: 'resource', description: 'Most refinement iterations of one proof.' }),
  ),
  'prove.candidates': prove.candidates.meta(
    meta({ scope: 'resource', description: 'Candidates generated for best-of-N (1 turns it off).' }),
  ),
  'prove.rerankBy': prove.rerankBy.meta(
    meta({
      scope: 'resource',
      description: 'How best-of-N candidates are ranked.',
      enumDescriptions: [
        'Calibrated P(correct) from the judging calibrator (the verifier score where a candidate has none).',
        'Process reward model solution score.',
        'Verifier (outcome) score.',
        "The generator's own self-score.",
      ],
    }),
  ),
  'prove.stopProbability': prove.stopProbability.meta(
    meta({
      scope: 'resource',
      description:
        "Refinement stops once the chosen candidate's calibrated P(correct) reaches this; without a judgment, once its self-evaluation boxes 1. A Solution cut at its token limit is never done.",
    }),
  ),
  'prove.stepAggregate': prove.stepAggregate.meta(
    meta({
      scope: 'resource',
      description: 'How step scores combine into a solution score.',
      enumDescriptions: ['Product of the step probabilities.', 'The weakest step.'],
    }),
  ),
  'prove.constrained': prove.constrained.meta(
    meta({
      scope: 'resource',
      description:
        "Constrain the model's answers with generation plans: the proof always has its Solution and Self Evaluation sections and one boxed self-score, and every score is a probability distribution. Off, or where the model cannot be constrained, answers are generated freely and parsed (the panel says which).",
    }),
  ),
  'prove.selfEvaluationMaxTokens': prove.selfEvalMaxTokens.meta(
    meta({
      scope: 'resource',
      description: "Most tokens of the self-evaluation's analysis when answers are constrained.",
    }),
  ),
  'prove.verifierMaxTokens': prove.verifierMaxTokens.meta(
    meta({
      scope: 'resource',
      description:
        'Most tokens of one verifier or meta-verifier answer (never more than stepwise.model.maxOutputTokens).',
    }),
  ),
  'rewards.alpha': prove.alpha.meta(
    meta({
      scope: 'resource',
      description: 'Weight α of the proof score R_Y in R = R_format·(α·R_Y + β·R_Z).',
    }),
  ),
  'rewards.beta': prove.beta.meta(
    meta({
      scope: 'resource',
      description: 'Weight β of the self-evaluation reward R_Z in R = R_format·(α·R_Y + β·R_Z).',
    }),
  ),
  'tests.stageMaxTokens': z
    .int()
    .min(16)
    .default(DEFAULT_STAGE_MAX_TOKENS)
    .meta(
      meta({
        scope: 'resource',
        description:
          'Most tokens of one stage of reasoning about a function (never more than stepwise.model.maxOutputTokens).',
      }),
    ),
  'tests.perTestTimeoutMs': z
    .int()
    .min(100)
    .default(SANDBOX_DEFAULTS.perTestTimeoutMs)
    .meta(
      meta({ scope: 'resource', description: 'Milliseconds one generated test may run in the sandbox.' }),
    ),
  'tests.suiteTimeoutMs': z
    .int()
    .min(1000)
    .default(SANDBOX_DEFAULTS.suiteTimeoutMs)
    .meta(meta({ scope: 'resource', description: 'Milliseconds the whole accumulated suite may run.' })),
  'tests.memoryMb': z
    .int()
    .min(64)
    .default(SANDBOX_DEFAULTS.memoryMb)
    .meta(
      meta({
        scope: 'resource',
        description: 'Memory cap of the whole sandbox (all processes of a test run together), in MiB.',
      }),
    ),
  'tests.reference': z
    .enum(['user', 'agreement'])
    .default('user')
    .meta(
      meta({
        scope: 'resource',
        description: 'Which implementation decides whether a generated test is valid.',
        enumDescriptions: [
          'Your function is the reference; tests that fail on it are shown as disagreements to review.',
          'A generated implementation becomes the reference only when several independently sampled ones agree (stepwise.tests.agreementSamples).',
        ],
      }),
    ),
  'tests.agreementSamples': z
    .int()
    .min(2)
    .max(10)
    .default(DEFAULT_AGREEMENT_SAMPLES)
    .meta(
      meta({
        scope: 'resource',
        description:
          'In agreement mode, how many independently generated implementations must pass the same tests before one replaces your function as the reference.',
      }),
    ),
  'tests.evidenceSamples': z
    .int()
    .min(0)
    .max(8)
    .default(DEFAULT_EVIDENCE_SAMPLES)
    .meta(
      meta({
        scope: 'resource',
        description:
          "How many implementations Stepwise samples from the function's specification alone (one batch, each with a short plan), besides the stage-5 code, as evidence for each generated test. A test your function fails is shown as a failure only when these implementations back it (see stepwise.tests.confirmThreshold). More samples give stronger evidence and cost time; 0 leaves only the stage-5 code.",
      }),
    ),
  'tests.confirmThreshold': z
    .number()
    .min(0)
    .max(1.01)
    .default(DEFAULT_CONFIRM_THRESHOLD)
    .meta(
      meta({
        scope: 'resource',
        description:
          "How much agreement a generated test needs before your function failing it is shown as a failure (a red mark and a failed test). Below it the test is an unconfirmed expectation to review. The confidence is the share of the generated implementations' consensus (implementations × tests they pass, grouped by identical results) that passes the test. The default was fitted on a training slice of HumanEval (docs/test-verdicts.md).",
      }),
    ),
  'tests.runs': z
    .int()
    .min(1)
    .max(5)
    .default(DEFAULT_CALL_RUNS)
    .meta(
      meta({
        scope: 'resource',
        description:
          "How many times the code under test evaluates each assertion test's call, each time in a fresh sandbox. A test that passes in one run and fails in another is shown as flaky and counts neither as a pass nor as valid. 1 turns the check off.",
      }),
    ),
  'sandbox.diskMb': z
    .int()
    .min(16)
    .default(SANDBOX_DEFAULTS.diskMb)
    .meta(
      meta({
        scope: 'machine-overridable',
        description: 'Size in MiB of the one folder sandboxed code may write (a private, size-capped tmpfs).',
      }),
    ),
  'python.interpreterPath': z
    .string()
    .default('')
    .meta(
      meta({
        scope: 'machine-overridable',
        description:
          "Python interpreter for running generated tests (needs pytest). Empty: the Python extension's interpreter, then python3 on PATH.",
      }),
    ),
  'labels.stopAtFirstError': z
    .boolean()
    .default(false)
    .meta(
      meta({
        scope: 'resource',
        description:
          'Label steps only up to the first negative (−1) step, as in the second labelling phase of "Let\'s Verify Step by Step".',
      }),
    ),
  'practice.judgePasses': z
    .int()
    .min(1)
    .max(16)
    .default(3)
    .meta(
      meta({ scope: 'resource', description: 'Judge passes per answer (k) for the reliability metrics.' }),
    ),
  'practice.questions': z
    .int()
    .min(1)
    .max(64)
    .default(4)
    .meta(meta({ scope: 'resource', description: 'Questions proposed per practice set.' })),
  'practice.rounds': z
    .int()
    .min(1)
    .max(16)
    .default(1)
    .meta(
      meta({
        scope: 'resource',
        description:
          "Rounds of the practice loop: each round's kept questions are shown to the next round's question generator as examples.",
      }),
    ),
  'practice.weakModelPath': z
    .string()
    .default('')
    .meta(
      meta({
        scope: 'machine-overridable',
        description:
          "ONNX model folder of a weaker solver (a smaller model or an earlier checkpoint): adds the weak-model regime, so R_sep compares the strong answers with a weaker model's. Empty: the high-temperature regime is the only weak one.",
      }),
    ),
  'practice.weights': weights(PRACTICE_WEIGHTS).meta(
    meta({
      scope: 'resource',
      description: 'Weights of R_cons, R_sep and R_stab in the question reward R_G.',
    }),
  ),
  'practice.thresholds': weights(DESIGN_CONSTANTS.practice.thresholds).meta(
    meta({
      scope: 'resource',
      description: 'A question is kept only when R_cons, R_sep and R_stab all reach these values.',
    }),
  ),
  'trainer.pythonPath': z
    .string()
    .default('')
    .meta(
      meta({
        scope: 'machine-overridable',
        description:
          "Python interpreter of the trainer environment. Empty: the Python extension's interpreter, then the environment Stepwise sets up.",
      }),
    ),
} as const;

export type SettingKey = keyof typeof SETTINGS_SCHEMA;
export const SETTING_KEYS = Object.keys(SETTINGS_SCHEMA) as SettingKey[];

/** The default of one setting, as the schema declares it. */
export function settingDefault<K extends SettingKey>(key: K): z.output<(typeof SETTINGS_SCHEMA)[K]> {
  return SETTINGS_SCHEMA[key].parse(undefined) as z.output<(typeof SETTINGS_SCHEMA)[K]>;
}
