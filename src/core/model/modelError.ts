/** Errors a person can act on: `message` says what happened, `hint` what to do about it. */
export class ModelError extends Error {
  constructor(
    message: string,
    readonly code:
      | 'model-folder'
      | 'model-shape'
      | 'load'
      | 'aborted'
      | 'endpoint-auth'
      | 'endpoint-not-found'
      | 'endpoint-rate-limit'
      | 'endpoint-server'
      | 'endpoint-unreachable'
      | 'endpoint-malformed'
      | 'endpoint-unsupported'
      | 'context-overflow'
      | 'download-integrity'
      | 'internal',
    readonly hint?: string,
  ) {
    super(message);
    this.name = 'ModelError';
  }
}
