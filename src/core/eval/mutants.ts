/**
 * Known-wrong variants of reference implementations, made by single AST mutations in Python's
 * own parser (python/mutants.py): the yardstick of a generated test suite is the share of them it
 * rejects. The script only parses and unparses the code; nothing it is given is executed.
 */
import { spawn } from 'node:child_process';
import { resourcePath } from '../resources';
import { resolvePython } from '../sandbox/index';

export interface Mutant {
  kind: 'comparison' | 'arithmetic' | 'constant' | 'boolean' | 'logic' | 'negation';
  /** Line of the mutated node in the original code. */
  line: number;
  code: string;
}

/** Up to `limit` mutants per entry of `sources` (id → Python module source). */
export async function pythonMutants(
  sources: Record<string, string>,
  options: { limit?: number; pythonPath?: string; signal?: AbortSignal } = {},
): Promise<Record<string, Mutant[]>> {
  const python = resolvePython(options.pythonPath);
  const script = resourcePath('python', 'mutants.py');
  const child = spawn(python, [script, String(options.limit ?? 8)], {
    stdio: ['pipe', 'pipe', 'pipe'],
    signal: options.signal,
  });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on('data', (b: Buffer) => out.push(b));
  child.stderr.on('data', (b: Buffer) => err.push(b));
  child.stdin.end(JSON.stringify(sources));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', resolve);
  });
  if (code !== 0)
    throw Object.assign(
      new Error(
        `Making mutants with ${python} failed (exit ${code}): ${Buffer.concat(err).toString().slice(0, 500)}`,
      ),
      {
        hint: 'Check that the Python interpreter runs (stepwise.python.interpreterPath or $STEPWISE_PYTHON).',
      },
    );
  return JSON.parse(Buffer.concat(out).toString('utf8')) as Record<string, Mutant[]>;
}
