export { OpenAIBackend, type OpenAIBackendOptions } from './backend';
export { normaliseBaseUrl, parseBaseUrl } from './url';
export { splitReasoning, type SplitReasoning } from './think';
export { SseParser, type SseEvent } from './sse';
export { estimateTokens } from './context';
