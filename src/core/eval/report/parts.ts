/** Pieces of the report page: figures with intervals, tables, sections, headline tiles. */
import type { Proportion } from '../../math/stats';
import { escapeHtml } from '../../text/htmlPage';
import { smallSampleWarning } from '../../math/sampleSize';

export const esc = escapeHtml;

/**
 * "few items" beside a figure computed from fewer than SMALL_SAMPLE items, the panels' warning on
 * hover; nothing for a large enough sample.
 */
export function smallSampleMark(n: number, what = 'figures'): string {
  const warning = smallSampleWarning(n, what);
  return warning ? ` <span class="small-sample" title="${esc(warning)}">few items</span>` : '';
}

/** The panels' small-sample warning as a paragraph, for a section whose figures share one n. */
export function smallSampleNote(n: number, what = 'figures'): string {
  const warning = smallSampleWarning(n, what);
  return warning ? `<p class="small-sample">${esc(warning)}</p>` : '';
}

/** "0.42 [0.33, 0.52] (21/50)": a proportion with its interval and counts. */
export function pct(p: Proportion): string {
  if (p.value === null) return '—';
  return `${p.value.toFixed(2)} <span class="ci">[${p.low!.toFixed(2)}, ${p.high!.toFixed(2)}]</span> <span class="n">(${p.k}/${p.n})</span>${smallSampleMark(p.n, 'rates')}`;
}

export function num(x: number | null | undefined, digits = 2): string {
  return x === null || x === undefined || !Number.isFinite(x) ? '—' : x.toFixed(digits);
}

/** A table with a header row; cells are HTML (callers escape what they put in). */
export function table(head: string[], rows: string[][], caption?: string): string {
  return `<table>${caption ? `<caption>${esc(caption)}</caption>` : ''}<thead><tr>${head.map((h) => `<th scope="col">${esc(h)}</th>`).join('')}</tr></thead><tbody>${rows
    .map(
      (r) =>
        `<tr>${r.map((c, i) => (i === 0 ? `<th scope="row">${c}</th>` : `<td>${c}</td>`)).join('')}</tr>`,
    )
    .join('')}</tbody></table>`;
}

export function section(title: string, intro: string, ...content: string[]): string {
  return `<section><h2>${esc(title)}</h2>${intro ? `<p class="intro">${intro}</p>` : ''}${content.join('\n')}</section>`;
}

export function charts(...svgs: string[]): string {
  return `<div class="charts">${svgs.join('\n')}</div>`;
}

/** A row of headline figures. */
export function tiles(items: { label: string; value: string; detail?: string }[]): string {
  return `<div class="headline">${items
    .map(
      (t) =>
        `<div class="tile"><div class="label">${esc(t.label)}</div><div class="value">${t.value}</div>${t.detail ? `<div class="n">${t.detail}</div>` : ''}</div>`,
    )
    .join('')}</div>`;
}

/** Two sections side by side where the page is wide enough (one above the other where not). */
export function pair(a: string, b: string): string {
  return `<div class="pair">${a}${b}</div>`;
}
