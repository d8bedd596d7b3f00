import * as fs from 'node:fs';
import { mulberry32 } from '../../../src/core/math/stats';

/** PRM800K lines: `count` solutions of 2–6 steps, some with an error, from a seeded generator. */
export function writeLabels(file: string, count: number): void {
  const random = mulberry32(42);
  const lines: string[] = [];
  for (let s = 0; s < count; s++) {
    const n = 2 + Math.floor(random() * 5);
    const errorAt = random() < 0.5 ? Math.floor(random() * n) : -1;
    const steps = Array.from({ length: errorAt >= 0 ? errorAt + 1 : n }, (_, i) => ({
      completions: [
        {
          text: `Step ${i + 1} of solution ${s}: ${Math.floor(random() * 1000)} + ${i} = ${Math.floor(random() * 1000)}.`,
          rating: i === errorAt ? -1 : random() < 0.2 ? 0 : 1,
        },
      ],
      chosen_completion: 0,
    }));
    lines.push(
      JSON.stringify({
        question: { problem: `Problem ${s % 37}: compute the sum.` },
        label: { steps, finish_reason: errorAt >= 0 ? 'found_error' : 'solution' },
      }),
    );
  }
  fs.writeFileSync(file, lines.join('\n') + '\n');
}
