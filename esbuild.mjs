// Bundles the extension host code (node) and every panel's webview code (browser).
// Usage: node esbuild.mjs [--watch] [--production]
import * as esbuild from 'esbuild';
import { readdirSync, existsSync, mkdirSync, cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const watch = process.argv.includes('--watch');
const production = process.argv.includes('--production');

// Native and worker-loaded modules stay outside the bundles; the VSIX ships them in node_modules.
const nodeExternals = ['vscode', 'onnxruntime-node', 'web-tree-sitter'];

const nodeCommon = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: !production,
  minify: production,
  external: nodeExternals,
  logLevel: 'info',
};

const nodeEntries = [
  { in: 'src/vscode/extension.ts', out: 'extension' },
  { in: 'src/cli/main.ts', out: 'cli' },
  { in: 'src/core/model/onnx/worker.ts', out: 'modelWorker' },
  { in: 'src/core/model/ladder/installWorker.ts', out: 'ladderWorker' },
].filter((e) => existsSync(e.in));

const webviewEntries = existsSync('webview')
  ? readdirSync('webview', { withFileTypes: true })
      .filter((d) => d.isDirectory() && existsSync(join('webview', d.name, 'main.ts')))
      .map((d) => ({ in: join('webview', d.name, 'main.ts'), out: d.name }))
  : [];

function copyWebviewAssets() {
  // KaTeX's stylesheet and fonts are served from the bundle so no panel reaches the network.
  const dest = 'dist/webview/katex';
  mkdirSync(dest, { recursive: true });
  // KaTeX blocks text until its fonts load ("font-display: block"): a panel drawn in that moment
  // shows √ without its radicand. "swap" draws the fallback font first, then the KaTeX one.
  const css = readFileSync('node_modules/katex/dist/katex.min.css', 'utf8');
  writeFileSync(join(dest, 'katex.min.css'), css.replaceAll('font-display:block', 'font-display:swap'));
  cpSync('node_modules/katex/dist/fonts', join(dest, 'fonts'), { recursive: true });
}

const builds = [
  { ...nodeCommon, entryPoints: nodeEntries, outdir: 'dist' },
  {
    bundle: true,
    platform: 'browser',
    target: 'es2022',
    format: 'iife',
    sourcemap: !production,
    minify: production,
    entryPoints: webviewEntries,
    outdir: 'dist/webview',
    loader: { '.css': 'text' },
    logLevel: 'info',
  },
];

copyWebviewAssets();
if (watch) {
  for (const b of builds) (await esbuild.context(b)).watch();
} else {
  await Promise.all(builds.map((b) => esbuild.build(b)));
}
