export { runSuite, resolvePython } from './run';
export { confinement } from './isolation';
export * from './types';
