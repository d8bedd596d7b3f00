export { runAssertions, type AssertionRequest } from './run';
