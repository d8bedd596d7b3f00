// How many of the tests a recorded `stepwise eval tests` run found failing on the reference would
// the signature check (src/core/tests/signatureCheck.ts) have rejected before running?
// Needs no model: it re-parses the journal's failing tests against the dataset's signatures.
//   node bench/signature-false-alarms.mjs RUN.json DATA.jsonl[.gz] [--out FILE]
// Run `npx tsc -p tsconfig.json` first (it uses the product's own parsers from out/).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { itemsFileOf, journalItems } from './journal-items.mjs';

const require = createRequire(import.meta.url);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = (p) => require(path.join(root, 'out/src/core', p));
const { readCodeTasks } = out('eval/datasets.js');
const { findFunctions } = out('tests/functions.js');
const { parseAssertionLines } = out('tests/assertions.js');
const { signatureProblems } = out('tests/signatureCheck.js');

const [run, data] = process.argv.slice(2);
const outIdx = process.argv.indexOf('--out');
const outFile = outIdx > 0 ? process.argv[outIdx + 1] : 'bench/results/signature-false-alarms.json';
if (!run || !data) throw new Error('usage: node bench/signature-false-alarms.mjs RUN.json DATA.jsonl[.gz]');

const tasks = new Map(readCodeTasks(data).items.map((t) => [t.id, t]));
let functions = 0;
let withFailing = 0;
let stillFailing = 0;
let failingTests = 0;
let rejectedTests = 0;
const reasons = {};
for (const { result: r } of journalItems(itemsFileOf(run))) {
  // Older journal lines lack the failing tests themselves: they cannot be re-judged.
  if (!r.tests.invalid) continue;
  const task = tasks.get(r.id);
  if (!task) continue;
  functions++;
  const fn = (await findFunctions(task.referenceCode, 'python')).find((f) => f.name === task.entryPoint);
  const lines = r.tests.invalid
    .map((t) => t.test)
    .filter((t) => t.startsWith('assert') || t.startsWith('with'));
  const calls = [];
  for (const line of lines) {
    const parsed = await parseAssertionLines(line, 'python', task.entryPoint);
    calls.push(parsed.tests[0]?.call ?? '');
  }
  const problems = fn ? await signatureProblems(fn, calls) : calls.map(() => undefined);
  const kept = r.tests.invalid.length - problems.filter(Boolean).length;
  failingTests += r.tests.invalid.length;
  rejectedTests += problems.filter(Boolean).length;
  for (const p of problems.filter(Boolean)) {
    const key = p.replace(
      /\b(?!takes|gives|argument|arguments|positional|named|declared|literal|call|passes|required|leaves|out|the|of|but|this|has|no|parameter|is|a|list|number|string|dict|given|twice|by|position|and|keyword)\w+/g,
      'X',
    );
    reasons[key] = (reasons[key] ?? 0) + 1;
  }
  if (r.tests.invalid.length) withFailing++;
  if (kept > 0) stillFailing++;
}
const doc = {
  command: `node bench/signature-false-alarms.mjs ${process.argv.slice(2).join(' ')}`,
  createdAt: new Date().toISOString(),
  functions,
  functionsWithATestFailingOnTheReference: withFailing,
  afterSignatureCheck: stillFailing,
  testsFailingOnTheReference: failingTests,
  rejectedBySignatureCheck: rejectedTests,
  reasons,
};
fs.mkdirSync(path.dirname(outFile), { recursive: true });
fs.writeFileSync(outFile, JSON.stringify(doc, null, 2) + '\n');
console.log(JSON.stringify(doc, null, 2));
