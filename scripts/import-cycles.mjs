// Lists the import loops among the TypeScript sources under src/ (type-only imports included: they
// still tie two modules' designs together). Exit 1 when there is one.
//   node scripts/import-cycles.mjs
import * as path from 'node:path';
import { importGraph, root } from './importGraph.mjs';

const graph = importGraph();
const files = [...graph.keys()];

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
