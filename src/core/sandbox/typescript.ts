/**
 * TypeScript in the sandbox runs as JavaScript: types are stripped in the host with the
 * `typescript` package (a pure transformation, nothing executes). Where it is not installed, the
 * sandbox says so instead of running code it cannot read.
 */
import { createRequire } from 'node:module';
import { SandboxError } from './types';

interface TranspileApi {
  transpileModule(
    input: string,
    options: { compilerOptions: Record<string, unknown>; reportDiagnostics?: boolean },
  ): { outputText: string };
  ModuleKind: { ESNext: number; Preserve?: number };
  ScriptTarget: { ES2022: number };
}

let compiler: TranspileApi | null | undefined;

function typescriptCompiler(): TranspileApi | null {
  if (compiler !== undefined) return compiler;
  try {
    // A computed name keeps the bundler from inlining the whole compiler into the extension.
    const name = ['type', 'script'].join('');
    compiler = createRequire(__filename)(name) as TranspileApi;
  } catch {
    compiler = null;
  }
  return compiler;
}

/** JavaScript source for `code`: unchanged for JavaScript, types stripped for TypeScript. */
export function runnableJs(code: string, language: 'python' | 'javascript' | 'typescript'): string {
  if (language !== 'typescript') return code;
  const ts = typescriptCompiler();
  if (!ts)
    throw new SandboxError(
      'TypeScript tests cannot run here: the typescript package, which strips the types, is not installed.',
      'Install it next to Stepwise (npm install typescript), or test the JavaScript build of the function.',
    );
  return ts.transpileModule(code, {
    compilerOptions: {
      module: ts.ModuleKind.ESNext,
      target: ts.ScriptTarget.ES2022,
      verbatimModuleSyntax: false,
    },
  }).outputText;
}

/** One TypeScript expression as JavaScript (parenthesised so an object literal stays an expression). */
export function runnableExpression(expr: string, language: 'python' | 'javascript' | 'typescript'): string {
  if (language !== 'typescript') return expr;
  const js = runnableJs(`export const __stepwise_value = (${expr});\n`, language);
  const m = /__stepwise_value\s*=\s*([\s\S]*);\s*$/.exec(js.trim());
  return m ? m[1] : expr;
}
