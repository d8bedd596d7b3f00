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

/**
 * JavaScript for TypeScript `code`, or why it has none. The compiler recurses once per level of
 * nesting, so generated code nested thousands deep overflows the host's stack: that is a verdict
 * on the code (it cannot be read), never a crash of the run.
 */
function transpile(code: string): { js: string } | { reason: string } {
  const ts = typescriptCompiler();
  if (!ts)
    throw new SandboxError(
      'TypeScript tests cannot run here: the typescript package, which strips the types, is not installed.',
      'Install it next to Stepwise (npm install typescript), or test the JavaScript build of the function.',
    );
  try {
    return {
      js: ts.transpileModule(code, {
        compilerOptions: {
          module: ts.ModuleKind.ESNext,
          target: ts.ScriptTarget.ES2022,
          verbatimModuleSyntax: false,
        },
      }).outputText,
    };
  } catch (e) {
    if (!(e instanceof RangeError)) throw e;
    return { reason: `The TypeScript could not be transpiled: it is nested too deeply (${e.message}).` };
  }
}

const throwing = (reason: string) => `throw new SyntaxError(${JSON.stringify(reason)})`;

/**
 * JavaScript source for `code`: unchanged for JavaScript, types stripped for TypeScript. TypeScript
 * that cannot be transpiled becomes a module that throws why when it loads, and `unreadable` says
 * why, so each of its tests gets that reason as its verdict (uncollectable).
 */
export function transpiled(
  code: string,
  language: 'python' | 'javascript' | 'typescript',
): { js: string; unreadable?: string } {
  if (language !== 'typescript') return { js: code };
  const out = transpile(code);
  return 'js' in out ? out : { js: `${throwing(out.reason)};\n`, unreadable: out.reason };
}

export function runnableJs(code: string, language: 'python' | 'javascript' | 'typescript'): string {
  return transpiled(code, language).js;
}

/** One TypeScript expression as JavaScript (parenthesised so an object literal stays an expression). */
export function runnableExpression(expr: string, language: 'python' | 'javascript' | 'typescript'): string {
  if (language !== 'typescript') return expr;
  const out = transpile(`export const __stepwise_value = (${expr});\n`);
  if (!('js' in out)) return `(() => { ${throwing(out.reason)}; })()`;
  const m = /__stepwise_value\s*=\s*([\s\S]*);\s*$/.exec(out.js.trim());
  return m ? m[1] : expr;
}
