// The relative imports among the TypeScript sources under src/ and webview/ (type-only imports
// included: they still tie two modules' designs together), for the house-rule scripts beside this.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function sources(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? sources(p) : /\.ts$/.test(e.name) && !/\.d\.ts$/.test(e.name) ? [p] : [];
  });
}

function resolve(from, spec) {
  if (!spec.startsWith('.')) return null;
  const base = path.resolve(path.dirname(from), spec);
  for (const c of [base, `${base}.ts`, path.join(base, 'index.ts')])
    if (fs.existsSync(c) && fs.statSync(c).isFile()) return c;
  return null;
}

/** Every source file (absolute path) → the source files it imports (absolute paths). */
export function importGraph() {
  const files = [...sources(path.join(root, 'src')), ...sources(path.join(root, 'webview'))];
  return new Map(
    files.map((f) => {
      const text = fs.readFileSync(f, 'utf8');
      const specs = [...text.matchAll(/(?:import|export)[\s\S]*?from\s+'([^']+)'/g)].map((m) => m[1]);
      return [f, [...new Set(specs.map((s) => resolve(f, s)).filter(Boolean))]];
    }),
  );
}
