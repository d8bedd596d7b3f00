/** The local ONNX backend: onnxruntime-node in a worker thread. */
export { OnnxBackend, resolveWorkerPath, type OnnxLoadOptions } from './backend';
export { VARIANT_FILES, type OnnxVariant } from './modelFolder';
