export { runSuite, resolvePython } from './run';
export { runAssertions, type AssertionRequest } from './oracle/index';
export { confinement } from './isolation';
export { releaseAllSandboxes } from './cleanup';
export * from './types';
