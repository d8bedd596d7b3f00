// @vscode/test-cli configuration for contributors with internet access: it downloads VS Code
// and runs the same mocha suite the offline code-server harness runs (npm run test:integration).
import { defineConfig } from '@vscode/test-cli';

export default defineConfig({
  files: 'out/test/suite/**/*.test.js',
  workspaceFolder: './examples',
  mocha: { ui: 'tdd', timeout: 180000 },
  env: { STEPWISE_TEST_RESULTS: 'test-output/results/integration-test-cli.json' },
});
