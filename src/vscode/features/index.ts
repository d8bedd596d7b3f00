import type { StepwiseContext } from '../context';
import { registerWelcome } from './welcome';
import { registerModelCommands } from './model';
import { registerPlayground } from './playground';
import { registerDownload } from './download';
import { registerLadder } from './ladder';
import { registerPractice } from './practice';
import { registerTraining } from './train';
import { registerProve } from './prove';
import { registerTests } from './tests/index';
import { registerLabels } from './labels/index';
import { registerStepScores } from './scoreSteps';
import { EvalReportPanels, registerShowReport } from './evalReport';
import { registerRunEvaluation } from './evalRun';
import { registerImproveModel } from './loop';
import type { PanelLabelling } from './prove';

// The Prove panel labels steps through the labelling feature when it started.
let labelling: PanelLabelling | undefined;

/** Every feature registers its commands, views and providers here, in one place. */
export const features: { name: string; register(ctx: StepwiseContext): void }[] = [
  { name: 'welcome', register: registerWelcome },
  { name: 'model', register: registerModelCommands },
  { name: 'playground', register: registerPlayground },
  { name: 'download', register: registerDownload },
  { name: 'ladder', register: registerLadder },
  {
    name: 'labels',
    register: (ctx) => {
      labelling = registerLabels(ctx);
    },
  },
  { name: 'prove', register: (ctx) => registerProve(ctx, () => labelling) },
  { name: 'step scores', register: registerStepScores },
  { name: 'tests', register: registerTests },
  { name: 'practice', register: registerPractice },
  { name: 'training', register: registerTraining },
  {
    name: 'evaluation',
    register: (ctx) => {
      const panels = new EvalReportPanels(ctx);
      registerShowReport(ctx, panels);
      registerRunEvaluation(ctx, panels);
      registerImproveModel(ctx, panels);
    },
  },
];
