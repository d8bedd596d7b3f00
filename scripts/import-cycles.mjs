// Lists the import loops among the TypeScript sources under src/ (type-only imports included: they
// still tie two modules' designs together). Exit 1 when there is one.
//   node scripts/import-cycles.mjs
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

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

const files = [...sources(path.join(root, 'src')), ...sources(path.join(root, 'webview'))];
const graph = new Map(
  files.map((f) => {
    const text = fs.readFileSync(f, 'utf8');
    const specs = [...text.matchAll(/(?:import|export)[\s\S]*?from\s+'([^']+)'/g)].map((m) => m[1]);
    return [f, [...new Set(specs.map((s) => resolve(f, s)).filter(Boolean))]];
  }),
);

// Tarjan's strongly connected components: every component of more than one file is a loop.
let index = 0;
const idx = new Map(),
  low = new Map(),
  stack = [],
  on = new Set(),
  loops = [];
function visit(v) {
  idx.set(v, index);
  low.set(v, index++);
  stack.push(v);
  on.add(v);
  for (const w of graph.get(v) ?? []) {
    if (!idx.has(w)) {
      visit(w);
      low.set(v, Math.min(low.get(v), low.get(w)));
    } else if (on.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
  }
  if (low.get(v) === idx.get(v)) {
    const scc = [];
    let w;
    do {
      w = stack.pop();
      on.delete(w);
      scc.push(path.relative(root, w));
    } while (w !== v);
    if (scc.length > 1) loops.push(scc.sort());
  }
}
for (const f of graph.keys()) if (!idx.has(f)) visit(f);
for (const loop of loops) console.log(`loop: ${loop.join(' ↔ ')}`);
console.log(`${loops.length} import loop(s) among ${files.length} files`);
process.exit(loops.length ? 1 : 0);
