import * as vscode from 'vscode';

/** Every Stepwise setting, typed. Read only through `readSettings` so names live in one place. */
export interface StepwiseSettings {
  model: {
    backend: 'onnx' | 'openai';
    onnx: { path: string; variant: 'fp32' | 'q8' | 'q4'; device: 'auto' | 'cpu' | 'cuda'; threads: number };
    openai: {
      baseUrl: string;
      model: string;
      headers: Record<string, string>;
      timeoutMs: number;
      tokenizerPath: string;
      assertionGrammar: 'auto' | 'expressions' | 'lines';
    };
    /** 0: ask the server. */
    contextWindow: number;
    maxOutputTokens: number;
  };
  verifier: { modelPath: string; passes: number };
  prm: { modelPath: string; stepHeadPath: string };
  prove: {
    maxIterations: number;
    candidates: number;
    rerankBy: 'p-correct' | 'prm' | 'verifier' | 'self';
    /** P(correct) at which refinement stops. */
    stopProbability: number;
    stepAggregate: 'product' | 'min';
    constrained: boolean;
    selfEvaluationMaxTokens: number;
    verifierMaxTokens: number;
  };
  rewards: { alpha: number; beta: number };
  tests: {
    stageMaxTokens: number;
    perTestTimeoutMs: number;
    suiteTimeoutMs: number;
    memoryMb: number;
    reference: 'user' | 'agreement';
    agreementSamples: number;
    /** Implementations sampled from the specification as evidence for each test's verdict. */
    evidenceSamples: number;
    /** Confidence a test needs before a failure of your function is shown as one. */
    confirmThreshold: number;
    /** Runs of the code per assertion test's call; two verdicts make the test flaky. */
    runs: number;
  };
  sandbox: { diskMb: number };
  python: { interpreterPath: string };
  labels: { stopAtFirstError: boolean };
  practice: {
    judgePasses: number;
    questions: number;
    rounds: number;
    weakModelPath: string;
    weights: { cons: number; sep: number; stab: number };
    thresholds: { cons: number; sep: number; stab: number };
  };
  trainer: { pythonPath: string };
}

/** The keys under `stepwise.` that features write (model choice, trained models, toggles). */
export type WritableSetting =
  | 'model.backend'
  | 'model.onnx.path'
  | 'model.onnx.variant'
  | 'model.openai.baseUrl'
  | 'model.openai.model'
  | 'prm.modelPath'
  | 'verifier.modelPath'
  | 'labels.stopAtFirstError';

/** Writes settings one after another, in the order given; like reading, writing names keys here only. */
export async function updateSettings(
  values: Partial<Record<WritableSetting, unknown>>,
  target: vscode.ConfigurationTarget,
): Promise<void> {
  const c = vscode.workspace.getConfiguration('stepwise');
  for (const [key, value] of Object.entries(values)) await c.update(key, value, target);
}

/** Settings whose change only takes effect once the model is reloaded. */
export const MODEL_RELOAD_SETTINGS = [
  'stepwise.model.backend',
  'stepwise.model.onnx.path',
  'stepwise.model.onnx.variant',
  'stepwise.model.onnx.device',
  'stepwise.model.onnx.threads',
  'stepwise.model.openai.baseUrl',
  'stepwise.model.openai.model',
  'stepwise.model.openai.headers',
  'stepwise.model.openai.tokenizerPath',
  'stepwise.model.openai.assertionGrammar',
  'stepwise.model.contextWindow',
];

/** Settings the endpoint backend is built with (the embedded model does not read them). */
export const ENDPOINT_RELOAD_SETTINGS = ['stepwise.model.openai.timeoutMs', 'stepwise.model.maxOutputTokens'];

export function readSettings(scope?: vscode.ConfigurationScope): StepwiseSettings {
  const c = vscode.workspace.getConfiguration('stepwise', scope);
  // `get` falls back to package.json's defaults, generated from src/core/settings/schema.ts.
  const g = <T>(key: string): T => c.get<T>(key) as T;
  return {
    model: {
      backend: g('model.backend'),
      onnx: {
        path: g('model.onnx.path'),
        variant: g('model.onnx.variant'),
        device: g('model.onnx.device'),
        threads: g('model.onnx.threads'),
      },
      openai: {
        baseUrl: g('model.openai.baseUrl'),
        model: g('model.openai.model'),
        headers: g('model.openai.headers'),
        timeoutMs: g('model.openai.timeoutMs'),
        tokenizerPath: g('model.openai.tokenizerPath'),
        assertionGrammar: g('model.openai.assertionGrammar'),
      },
      contextWindow: g('model.contextWindow'),
      maxOutputTokens: g('model.maxOutputTokens'),
    },
    verifier: { modelPath: g('verifier.modelPath'), passes: g('verifier.passes') },
    prm: { modelPath: g('prm.modelPath'), stepHeadPath: g('prm.stepHeadPath') },
    prove: {
      maxIterations: g('prove.maxIterations'),
      candidates: g('prove.candidates'),
      rerankBy: g('prove.rerankBy'),
      stopProbability: g('prove.stopProbability'),
      stepAggregate: g('prove.stepAggregate'),
      constrained: g('prove.constrained'),
      selfEvaluationMaxTokens: g('prove.selfEvaluationMaxTokens'),
      verifierMaxTokens: g('prove.verifierMaxTokens'),
    },
    rewards: { alpha: g('rewards.alpha'), beta: g('rewards.beta') },
    tests: {
      stageMaxTokens: g('tests.stageMaxTokens'),
      perTestTimeoutMs: g('tests.perTestTimeoutMs'),
      suiteTimeoutMs: g('tests.suiteTimeoutMs'),
      memoryMb: g('tests.memoryMb'),
      reference: g('tests.reference'),
      agreementSamples: g('tests.agreementSamples'),
      evidenceSamples: g('tests.evidenceSamples'),
      confirmThreshold: g('tests.confirmThreshold'),
      runs: g('tests.runs'),
    },
    sandbox: { diskMb: g('sandbox.diskMb') },
    python: { interpreterPath: g('python.interpreterPath') },
    labels: { stopAtFirstError: g('labels.stopAtFirstError') },
    practice: {
      judgePasses: g('practice.judgePasses'),
      questions: g('practice.questions'),
      rounds: g('practice.rounds'),
      weakModelPath: g('practice.weakModelPath'),
      weights: g('practice.weights'),
      thresholds: g('practice.thresholds'),
    },
    trainer: { pythonPath: g('trainer.pythonPath') },
  };
}
