import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withFileImports } from '../../../src/core/code/fileImports';
import { runSuite } from '../../../src/core/sandbox/index';

const FILE = [
  'from typing import List, Tuple',
  'import math',
  '',
  'def spread(numbers: List[float]) -> float:',
  '    import os  # not top level: left alone',
  '    return max(numbers) - min(numbers)',
].join('\n');

test("the file's top-level imports go in front of generated code that lacks them", () => {
  const generated =
    'def spread(numbers: List[float]) -> float:\n    return math.fsum([max(numbers), -min(numbers)])';
  assert.equal(
    withFileImports(generated, FILE, 'python'),
    `from typing import List, Tuple\nimport math\n\n${generated}`,
  );
  // Already there: nothing is repeated; nothing generated: nothing added.
  const complete = `import math\n${generated}`;
  assert.equal(withFileImports(complete, FILE, 'python'), `from typing import List, Tuple\n\n${complete}`);
  assert.equal(withFileImports('', FILE, 'python'), '');
  assert.equal(
    withFileImports(
      'export const f = () => 1;',
      "import { x } from './x';\nconst fs = require('fs');\nexport const f = () => 2;",
      'typescript',
    ),
    "import { x } from './x';\nconst fs = require('fs');\n\nexport const f = () => 1;",
  );
});

test('generated code that uses an imported annotation loads and is judged on its behaviour', async () => {
  const generated = 'def spread(numbers: List[float]) -> float:\n    return max(numbers) - min(numbers)';
  const tests = [
    { name: 'test_spread', source: 'def test_spread():\n    assert spread([1.0, 4.0]) == 3.0\n' },
  ];
  const run = (code: string) =>
    runSuite({ language: 'python', code, tests, timeoutMs: 10_000, suiteTimeoutMs: 30_000, memoryMb: 512 });
  assert.equal((await run(generated)).verdicts[0].status, 'uncollectable');
  assert.equal((await run(withFileImports(generated, FILE, 'python'))).verdicts[0].status, 'passed');
});
