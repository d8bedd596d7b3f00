export {
  convertGgufToOnnx,
  ConversionAbortedError,
  CONVERTED_MODEL_FILE,
  type ConversionOptions,
  type ConversionProgress,
  type ConversionReport,
} from './convert';
export { GgufFormatError, readGgufFile } from './ggufFile';
export { UnsupportedModelError } from './hyperparameters';
