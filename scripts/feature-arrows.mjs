// Lists the imports in src/core that point from one feature's folder into another's, past the
// shared floor (ARCHITECTURE.md, "Rules that hold the parts apart"). Exit 1 on an arrow that is
// not allowed below, or on an allowance that no longer matches an import (delete it: the list
// only shrinks).
//   node scripts/feature-arrows.mjs
import * as path from 'node:path';
import { importGraph, root } from './importGraph.mjs';

/** Folders (and files) of src/core that every feature may import; they import only each other. */
const FLOOR = [
  'math',
  'text',
  'steps',
  'store',
  'judgment',
  'model',
  'sandbox',
  'files.ts',
  'resources.ts',
  'designConstants.ts',
  'runs',
];
/** Features: each imports the floor, and another feature only where ALLOWED says why. */
const FEATURES = ['prove', 'tests', 'labels', 'practice', 'trainer'];
/** Composites combine features: each may import every feature and the composites listed after it. */
const COMPOSITES = ['loop', 'trainingData', 'autoLabels', 'eval'];
/** Settings hold every option's default, so they may import any core folder. */
const TOP = ['settings'];

/**
 * Arrows between features that stay, each with why: `from-file -> to-file` (paths under src/core).
 * Empty: a piece two features share moves down to the floor, and code that combines features is a
 * composite. Keep the mechanism so that an exception, if one is ever argued for, says why here.
 */
const ALLOWED = {};

const core = path.join(root, 'src', 'core');
const top = (file) => path.relative(core, file).split(path.sep)[0];
const rank = (folder) =>
  FLOOR.includes(folder)
    ? { layer: 'floor' }
    : FEATURES.includes(folder)
      ? { layer: 'feature' }
      : COMPOSITES.includes(folder)
        ? { layer: 'composite', order: COMPOSITES.indexOf(folder) }
        : TOP.includes(folder)
          ? { layer: 'top' }
          : null;

function allowed(from, to) {
  const a = rank(from);
  const b = rank(to);
  if (!a || !b) return false;
  if (b.layer === 'floor') return true;
  if (a.layer === 'top') return true;
  if (a.layer === 'composite') return b.layer === 'feature' || (b.layer === 'composite' && b.order > a.order);
  return false;
}

const problems = [];
const used = new Set();
for (const [file, imports] of importGraph()) {
  if (!file.startsWith(core + path.sep)) continue;
  const from = top(file);
  if (!rank(from)) problems.push(`unplaced: src/core/${from} is in no layer of scripts/feature-arrows.mjs`);
  for (const target of imports) {
    if (!target.startsWith(core + path.sep)) continue;
    const to = top(target);
    if (to === from || allowed(from, to)) continue;
    const arrow = `${path.relative(core, file)} -> ${path.relative(core, target)}`.split(path.sep).join('/');
    if (arrow in ALLOWED) used.add(arrow);
    else problems.push(`arrow: ${arrow}`);
  }
}
for (const arrow of Object.keys(ALLOWED))
  if (!used.has(arrow)) problems.push(`stale: ${arrow} is allowed but no longer imported; delete it`);
for (const p of [...new Set(problems)]) console.log(p);
console.log(`${used.size} allowed arrow(s) between features, ${new Set(problems).size} problem(s)`);
process.exit(problems.length ? 1 : 0);
