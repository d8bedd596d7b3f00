/**
 * Command ids renamed so that each feature has one name (ARCHITECTURE.md, "One name per feature").
 * A command id is user data (keybindings.json, tasks, other extensions' calls), so each old id
 * stays registered and runs the new one; only the new ids are contributed to the palette.
 * Plain data, so that a unit test can check it against package.json.
 */
export const RENAMED_COMMANDS: Readonly<Record<string, string>> = {
  'stepwise.showWelcome': 'stepwise.welcome.show',
  'stepwise.showLog': 'stepwise.log.show',
  'stepwise.selectModel': 'stepwise.model.select',
  'stepwise.downloadModel': 'stepwise.model.download',
  'stepwise.installLargerModel': 'stepwise.model.installLarger',
  'stepwise.installLadderModel': 'stepwise.model.installFromLadder',
  'stepwise.setApiKey': 'stepwise.model.setApiKey',
  'stepwise.tryModel': 'stepwise.playground.open',
  'stepwise.showCalibration': 'stepwise.calibration.show',
  'stepwise.reasonAndGenerateTests': 'stepwise.tests.generate',
  'stepwise.insertTests': 'stepwise.tests.insert',
  'stepwise.acceptExpectation': 'stepwise.tests.accept',
  'stepwise.rejectExpectation': 'stepwise.tests.reject',
  'stepwise.label.positive': 'stepwise.labels.positive',
  'stepwise.label.neutral': 'stepwise.labels.neutral',
  'stepwise.label.negative': 'stepwise.labels.negative',
  'stepwise.label.undo': 'stepwise.labels.undo',
  'stepwise.label.toggleStopAtFirstError': 'stepwise.labels.toggleStopAtFirstError',
  'stepwise.nextSolutionToLabel': 'stepwise.labels.nextSolution',
  'stepwise.improveFromAnnotations': 'stepwise.loop.run',
  'stepwise.runEvaluation': 'stepwise.eval.run',
  'stepwise.showEvalReport': 'stepwise.eval.showReport',
  'stepwise.generatePracticeSet': 'stepwise.practice.generate',
  'stepwise.trainFromAnnotations': 'stepwise.train.run',
  'stepwise.scoreSteps': 'stepwise.scoreSteps.run',
  'stepwise.checkProof': 'stepwise.check',
};
