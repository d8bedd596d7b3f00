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
export {
  LabelRecordSchema,
  LABEL_SCHEMA_VERSION,
  isAutomaticLabel,
  type LabelRecord,
  type LabelSource,
  type Rating,
} from './schema';
export {
  exportableSolutions,
  labelledSolutions,
  toTrlStepwise,
  toPrm800k,
  fromPrm800k,
  type LabelledSolution,
  type SkippedLabels,
  type NeutralAs,
} from './formats';
export { nextToLabel, finalAnswerOf, QueueRunSchema, type QueueItem } from './queue';
export { readRunDocuments } from '../runs/folder';
