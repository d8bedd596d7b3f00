/**
 * The badge of a Reason & Generate Tests stage: how many tests it shows, and what the test writer
 * wrote that was dropped and why ("3 shown · 2 duplicates dropped · 1 non-test line dropped"), so that a
 * stage with three assertion lines in its output and fewer tests shown explains itself.
 */

export interface DroppedLine {
  line: string;
  reason: string;
}

/** Short names of the reasons, in the order the badge lists them; the last catches the rest. */
const KINDS: [test: (reason: string) => boolean, one: string, many: string][] = [
  [(r) => r.startsWith('duplicate'), 'duplicate', 'duplicates'],
  [(r) => r.startsWith('over the stage'), 'over the budget', 'over the budget'],
  [(r) => r.startsWith('does not match the signature'), 'wrong signature', 'wrong signatures'],
  [() => true, 'non-test line', 'non-test lines'],
];

export function stageBadgeText(shown: number, dropped: readonly DroppedLine[]): string {
  const parts = [`${shown} shown`];
  const counts = KINDS.map(() => 0);
  for (const d of dropped) counts[KINDS.findIndex(([test]) => test(d.reason))]++;
  KINDS.forEach(([, one, many], i) => {
    if (counts[i]) parts.push(`${counts[i]} ${counts[i] === 1 ? one : many} dropped`);
  });
  return parts.join(' · ');
}

/** The badge's hover: each dropped line with its reason. */
export function stageBadgeTitle(dropped: readonly DroppedLine[]): string {
  return dropped.map((d) => `dropped: ${d.line.trim()} — ${d.reason}`).join('\n');
}
