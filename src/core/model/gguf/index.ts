export {
  convertGgufToOnnx,
  ConversionAbortedError,
  CONVERTED_MODEL_FILE,
  type ConversionOptions,
  type ConversionProgress,
  type ConversionReport,
} from './convert';
/**
 * Changes whenever the converter's output for the same GGUF changes (graph, tokenizer, configs),
 * so that an installer knows a folder converted earlier must be converted again.
 */
export const GGUF_CONVERTER_VERSION = '5';
export { GgufFormatError, readGgufFile } from './ggufFile';
export { UnsupportedModelError } from './hyperparameters';
