import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withFileImports } from '../../../src/core/tests/fileImports';
import { runSuite } from '../../../src/core/sandbox/index';

const FILE = [
  'from typing import List, Tuple',
  'import math',
  '',
  'def spread(numbers: List[float]) -> float:',
  '    import os  # not top level: left alone',
  '    return max(numbers) - min(numbers)',
].join('\n');

test("the file's top-level imports of names the generated code uses go in front of it", () => {
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
});

test('an import the generated code does not use is left out (the sandbox may lack the module)', () => {
  const file =
    'import numpy as np\nimport requests\nfrom os import path as p\n\ndef f(x):\n    return np.sum(x)';
  const generated = 'def f(x):\n    return np.sum(x) + len(p.sep)';
  assert.equal(
    withFileImports(generated, file, 'python'),
    `import numpy as np\nfrom os import path as p\n\n${generated}`,
  );
  const script =
    "import { x } from './x';\nimport * as fs from 'fs';\nconst { join } = require('path');\nexport const f = () => 2;";
  assert.equal(
    withFileImports('export const f = () => join(x, "a");', script, 'typescript'),
    "import { x } from './x';\nconst { join } = require('path');\n\nexport const f = () => join(x, \"a\");",
  );
  assert.equal(
    withFileImports('export const f = () => fs.readFileSync;', script, 'javascript'),
    "import * as fs from 'fs';\n\nexport const f = () => fs.readFileSync;",
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
