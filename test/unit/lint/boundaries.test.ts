import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { test } from 'node:test';
import { ESLint } from 'eslint';

// out/test/unit/lint → the repository root.
const ROOT = path.resolve(__dirname, '..', '..', '..', '..');

// The project's own lint configuration, applied to deliberately wrong imports placed (virtually) in
// each layer: the boundary rules must fail them, and the allowed arrows must pass.
const eslint = new ESLint({ cwd: ROOT });

async function boundaryErrors(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(ROOT, file) });
  return result.messages
    .filter(
      (m) => m.ruleId === 'no-restricted-imports' || m.ruleId === '@typescript-eslint/no-restricted-imports',
    )
    .map((m) => m.message);
}

test('the core imports neither the editor glue, the CLI, the panel protocols nor vscode', async () => {
  const wrong = [
    "import { readSettings } from '../vscode/settings';",
    "import { COMMANDS } from '../../cli/commands/index';",
    "import type { ProveView } from '../../shared/protocols/prove';",
    "import * as vscode from 'vscode';",
  ];
  for (const line of wrong) {
    const errors = await boundaryErrors('src/core/prove/example.ts', `${line}\nexport const x = 1;\n`);
    assert.equal(errors.length, 1, `${line} must fail the lint`);
  }
  assert.deepEqual(
    await boundaryErrors(
      'src/core/prove/example.ts',
      "import { readScore } from './score';\nexport const x = readScore;\n",
    ),
    [],
  );
});

test('webviews take core types only through their protocol', async () => {
  const errors = await boundaryErrors(
    'webview/prove/example.ts',
    "import type { ProveRun } from '../../src/core/prove/runSchema';\nexport type X = ProveRun;\n",
  );
  assert.equal(errors.length, 1);
  assert.match(errors[0], /only their protocol/);
  assert.deepEqual(
    await boundaryErrors(
      'webview/prove/example.ts',
      "import type { ProveRun } from '../../src/shared/protocols/prove';\nexport type X = ProveRun;\n",
    ),
    [],
  );
});

test('panel protocols may name core types but not import core code; the CLI stays off the glue', async () => {
  assert.deepEqual(
    await boundaryErrors(
      'src/shared/protocols/example.ts',
      "import type { ProveRun } from '../../core/prove/runSchema';\nexport type X = ProveRun;\n",
    ),
    [],
  );
  const value = await boundaryErrors(
    'src/shared/protocols/example.ts',
    "import { parseProveRun } from '../../core/prove/runSchema';\nexport const x = parseProveRun;\n",
  );
  assert.equal(value.length, 1, 'a value import from the core fails');
  const cli = await boundaryErrors(
    'src/cli/commands/example.ts',
    "import { readSettings } from '../../vscode/settings';\nexport const x = readSettings;\n",
  );
  assert.equal(cli.length, 1);
});

test('a panel and the CLI share the judgment words from one core module, which stays type-only', async () => {
  assert.deepEqual(
    await boundaryErrors(
      'webview/prove/example.ts',
      "import { judgmentText } from '../../src/core/judgment/verdictText';\nexport const x = judgmentText;\n",
    ),
    [],
  );
  assert.equal(
    (
      await boundaryErrors(
        'webview/prove/example.ts',
        "import { judge } from '../../src/core/judgment/judge';\nexport const x = judge;\n",
      )
    ).length,
    1,
    'the rest of core/judgment stays out of panels',
  );
  const value = await boundaryErrors(
    'src/core/judgment/verdictText.ts',
    "import { FEATURE_NAMES } from './featureNames';\nexport const x = FEATURE_NAMES;\n",
  );
  assert.equal(value.length, 1, 'a value import would drag core code into the panel');
});
