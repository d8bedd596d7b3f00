export {
  downloadModel,
  type DownloadOptions,
  type DownloadProgress,
  type DownloadResult,
  type DownloadedFile,
} from './download';
export {
  listRepoFiles,
  selectVariantFiles,
  ONNX_VARIANTS,
  type OnnxVariant,
  type RepoFile,
  type HubLocation,
} from './hubFiles';
export {
  fetchVerifiedFile,
  isVerifiedCopy,
  type ExpectedFile,
  type FetchFileOptions,
  type FetchedFile,
} from './fetchFile';
