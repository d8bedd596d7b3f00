export {
  LabelStore,
  currentLabels,
  labelStates,
  placeLabels,
  parseStoreText,
  type PlacedLabels,
  type NewLabel,
  type StoreContents,
  type CorruptLine,
} from './store';
export { LabelRecordSchema, LABEL_SCHEMA_VERSION, type LabelRecord, type Rating } from './schema';
export {
  labelledSolutions,
  toTrlStepwise,
  toPrm800k,
  fromPrm800k,
  type LabelledSolution,
  type NeutralAs,
} from './formats';
export { nextToLabel, readRunFiles, finalAnswerOf, QueueRunSchema, type QueueItem } from './queue';
