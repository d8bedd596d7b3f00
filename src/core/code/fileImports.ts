/**
 * Generated code is run on its own, apart from the file it was written for, so a function that
 * uses a name the file imports (`List` from typing, `math`) would fail to load and every test on it
 * would count against the generator for a missing line it was never asked to repeat. The file's
 * own top-level imports are put in front of the generated code when it lacks them.
 */
import type { CodeLanguage } from './functions';

// One-line imports at the top level: `import a, b as c`, `from x import (y, z)`, `from x import *`
// for Python; `import … from '…';` and `const … = require('…');` for JavaScript and TypeScript.
const IMPORT_LINE: Record<'python' | 'script', RegExp> = {
  python:
    /^(?:import\s+[\w.]+(?:\s+as\s+\w+)?(?:\s*,\s*[\w.]+(?:\s+as\s+\w+)?)*|from\s+[\w.]+\s+import\s+(?:\*|\([^)\n]*\)|[\w, ]+))\s*$/,
  script:
    /^(?:import\s+(?:type\s+)?[^;'"]*\s+from\s+['"][^'"\n]+['"]|import\s+['"][^'"\n]+['"]|(?:const|let|var)\s+[^=]+=\s*require\(\s*['"][^'"\n]+['"]\s*\));?\s*$/,
};

export function withFileImports(generated: string, fileSource: string, language: CodeLanguage): string {
  if (!generated.trim()) return generated;
  const pattern = IMPORT_LINE[language === 'python' ? 'python' : 'script'];
  const present = new Set(generated.split('\n').map((line) => line.trim()));
  const missing = fileSource.split('\n').filter((line) => pattern.test(line) && !present.has(line.trim()));
  return missing.length ? `${[...new Set(missing)].join('\n')}\n\n${generated}` : generated;
}
