/**
 * The Prove panel's judgment card: "likely wrong (P = 0.12)" in words, the evidence behind it
 * (each signal, its value and how far it moved the odds) and, behind a toggle, what the reward
 * symbols of the other cards mean.
 */
import { h } from '../shared/host';
import type { CandidateRecord } from '../../src/shared/protocols/prove';
import {
  calibratorText,
  evidenceRows,
  judgmentText,
  SIGNAL_LABELS,
  SYMBOL_EXPLANATIONS,
} from '../../src/core/judgment/verdictText';

export const JUDGMENT_CSS = `
.judgment { grid-column: 1 / -1; }
.judgment.likely-wrong { border-color: var(--vscode-testing-iconFailed); }
.judgment.likely-right { border-color: var(--vscode-testing-iconPassed); }
.judgment.uncertain { border-color: var(--vscode-editorWarning-foreground); }
.judgment table td { padding: 0 8px 0 0; vertical-align: top; }
`;

/**
 * `symbols`: explain the reward symbols too (a checked proof has no rewards to explain); `note`:
 * what the reader should know about this judgment in particular.
 */
export function judgmentCard(c: CandidateRecord, symbols = true, note?: string): HTMLElement {
  const j = c.judgment ?? null;
  const evidence = j
    ? h(
        'details',
        { id: 'judgment-evidence' },
        h('summary', {}, 'Evidence'),
        h(
          'table',
          {},
          h(
            'tbody',
            {},
            ...evidenceRows(j).map((r) =>
              h(
                'tr',
                {},
                h('td', {}, r.label),
                h('td', {}, r.value),
                h('td', { title: 'change of the log-odds of being right' }, r.contribution),
                h('td', { class: 'muted' }, r.explanation),
              ),
            ),
          ),
        ),
        j.unused.length
          ? h(
              'div',
              { class: 'muted' },
              `Not used by the calibrator: ${j.unused.map((f) => SIGNAL_LABELS[f]).join(', ')}.`,
            )
          : null,
      )
    : null;
  return h(
    'div',
    { class: `score judgment ${j?.verdict ?? ''}`, id: 'judgment' },
    h('div', { class: 'muted' }, 'Is the final answer right?'),
    h('div', { class: 'value' }, judgmentText(j)),
    j?.calibrator.otherModels
      ? h('div', { class: 'warning', id: 'judgment-calibrator' }, calibratorText(j))
      : h(
          'div',
          { class: 'muted', id: 'judgment-calibrator' },
          j ? calibratorText(j) : 'the calibrator covers none of the signals this candidate has',
        ),
    note ? h('div', { class: 'muted', id: 'judgment-note' }, note) : null,
    evidence,
    symbols ? symbolsToggle() : null,
  );
}

function symbolsToggle(): HTMLElement {
  return h(
    'details',
    { id: 'symbols' },
    h('summary', {}, 'What R_Y, R_Z, R_meta… mean'),
    h(
      'table',
      {},
      h(
        'tbody',
        {},
        ...SYMBOL_EXPLANATIONS.map(([s, m]) => h('tr', {}, h('td', {}, s), h('td', { class: 'muted' }, m))),
      ),
    ),
  );
}
