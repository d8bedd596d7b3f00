// The problem file of the solved-only loop runs (bench/loop-prm-cpu-solved.sh and
// bench/loop-prm-cpu-union.sh): MATH-500's first 33 level 1-2 problems, then all of level 3 (to
// train on), then the next 100 of level 1-2 (held out, as in bench/loop-prm-cpu.sh). Prints how
// many train.
//   node bench/loop-solved-problems.mjs MATH-500.jsonl OUT.jsonl
import * as fs from 'node:fs';

const [data, out] = process.argv.slice(2);
const rows = fs.readFileSync(data, 'utf8').split('\n').filter(Boolean);
const level = (line) => JSON.parse(line).level;
const easy = rows.filter((l) => level(l) <= 2);
const three = rows.filter((l) => level(l) === 3);
if (easy.length !== 133) throw new Error(`expected 133 level 1-2 problems in ${data}, found ${easy.length}`);
fs.writeFileSync(out, [...easy.slice(0, 33), ...three, ...easy.slice(33)].join('\n') + '\n');
console.log(33 + three.length);
