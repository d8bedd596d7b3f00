export { LabelStore, currentLabels, labelStates, parseStoreText, type NewLabel, type StoreContents, type CorruptLine } from './store';
export { LabelRecordSchema, LABEL_SCHEMA_VERSION, type LabelRecord, type Rating } from './schema';
export { labelledSolutions, toTrlStepwise, toPrm800k, fromPrm800k, type LabelledSolution, type NeutralAs } from './formats';
export { nextToLabel, type QueueItem } from './queue';
