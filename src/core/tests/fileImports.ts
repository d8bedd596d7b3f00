/**
 * Generated code is run on its own, apart from the file it was written for, so a function that
 * uses a name the file imports (`List` from typing, `math`) would fail to load and every test on it
 * would count against the generator for a line it was never asked to repeat. The file's own
 * top-level imports of names the generated code uses are put in front of it. An import the code
 * does not use is left out: it could only add a failure (a module the sandbox lacks).
 */
import type { CodeLanguage } from './functions';

/** The names one top-level import line binds, or null when the line is not such an import. */
function boundNames(line: string, language: CodeLanguage): string[] | null {
  if (language === 'python') {
    const plain = /^import\s+([\w.]+(?:\s+as\s+\w+)?(?:\s*,\s*[\w.]+(?:\s+as\s+\w+)?)*)\s*$/.exec(line);
    if (plain)
      return plain[1].split(',').map((part) => {
        const [module, alias] = part.trim().split(/\s+as\s+/);
        return alias ?? module.split('.')[0];
      });
    const from = /^from\s+[\w.]+\s+import\s+\(?([\w, ]+(?:\s+as\s+\w+)?[\w, ]*)\)?\s*$/.exec(line);
    if (from)
      return from[1]
        .split(',')
        .map((part) => part.trim())
        .filter(Boolean)
        .map((part) => part.split(/\s+as\s+/).pop()!);
    return null;
  }
  const esm = /^import\s+(?:type\s+)?(.+?)\s+from\s+['"][^'"\n]+['"];?\s*$/.exec(line);
  const cjs = /^(?:const|let|var)\s+(.+?)\s*=\s*require\(\s*['"][^'"\n]+['"]\s*\);?\s*$/.exec(line);
  const clause = esm?.[1] ?? cjs?.[1];
  if (clause === undefined) return null;
  return clause
    .replace(/[{}]/g, ',')
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) =>
      part
        .split(/\s+as\s+|\s*:\s*/)
        .pop()!
        .replace(/^\*\s*/, ''),
    );
}

export function withFileImports(generated: string, fileSource: string, language: CodeLanguage): string {
  if (!generated.trim()) return generated;
  const present = new Set(generated.split('\n').map((line) => line.trim()));
  const uses = (name: string) =>
    new RegExp(`(?<![\\w$.])${name.replace(/\$/g, '\\$')}(?![\\w$])`).test(generated);
  const needed = fileSource.split('\n').filter((line) => {
    if (present.has(line.trim())) return false;
    const names = boundNames(line, language);
    return names !== null && names.some(uses);
  });
  return needed.length ? `${[...new Set(needed)].join('\n')}\n\n${generated}` : generated;
}
