/**
 * The HTML report of an evaluation: one self-contained page (inline SVG charts, one stylesheet,
 * no scripts, no external resources) rendered from the results document alone. It carries its
 * own Content Security Policy; the editor renders the same page with the webview's nonce.
 */
import { randomBytes } from 'node:crypto';
import { htmlPage } from '../../text/htmlPage';
import type { EvalResult } from '../evaluation';
import { esc } from './parts';
import { proveSections } from './proveReport';
import { testsSections } from './testsReport';
import { prmSections } from './prmReport';
import type { ProveMetrics } from '../proveSummary';
import type { TestsMetrics } from '../testsSummary';
import type { PrmMetrics } from '../prmEval';

export interface ReportOptions {
  /** Nonce of the page's one style element (a fresh one when absent). */
  nonce?: string;
  /** Extra CSP sources for styles (the webview's `cspSource`). */
  styleSource?: string;
}

const KIND_TITLES = {
  prove: 'Prove and self-verify',
  tests: 'Generated tests',
  prm: 'Step scorer (PRM)',
} as const;

export function renderReport(result: EvalResult, options: ReportOptions = {}): string {
  const nonce = options.nonce ?? randomBytes(16).toString('base64');
  const csp = [
    "default-src 'none'",
    `style-src 'nonce-${nonce}'${options.styleSource ? ` ${options.styleSource}` : ''}`,
  ];
  const sections =
    result.kind === 'prove'
      ? proveSections(result.metrics as ProveMetrics)
      : result.kind === 'tests'
        ? testsSections(result.metrics as TestsMetrics)
        : prmSections(result.metrics as PrmMetrics);
  const title = `${KIND_TITLES[result.kind]} — ${baseName(result.dataset.path)}`;
  const body = `<main class="report">
<header>
<h1>Stepwise evaluation: ${esc(title)}</h1>
${summaryLine(result)}
${result.complete ? '' : `<p class="warning">Incomplete: ${result.items.finished} of ${result.items.selected} items finished. Run the command again to continue; finished items are kept.</p>`}
</header>
${sections.join('\n')}
${detailsSection(result)}
<footer><p>Intervals: 95 % Wilson score intervals for proportions; 95 % percentile bootstrap (1000 resamples, seeded) for AUROC.</p></footer>
</main>`;
  return `${htmlPage({
    csp,
    title: `Stepwise evaluation: ${title}`,
    head: `<style nonce="${nonce}">${STYLES}</style>`,
    body,
  })}\n`;
}

function baseName(p: string): string {
  return p.split(/[\\/]/).pop() ?? p;
}

function summaryLine(r: EvalResult): string {
  const cpu = r.timing.cpuSecondsPerItem;
  const per =
    r.timing.secondsPerItem === null
      ? '—'
      : `${r.timing.secondsPerItem.toFixed(1)} s${cpu === null || cpu === undefined ? '' : ` (${cpu.toFixed(1)} s CPU)`}`;
  return `<dl class="facts">
<div><dt>Model</dt><dd>${esc(r.model.name)} (${esc(r.model.backend)}, ${esc(r.model.device)})</dd></div>
<div><dt>Items</dt><dd>${r.items.finished} of ${r.items.selected}${r.items.failed.length ? `, ${r.items.failed.length} failed` : ''}</dd></div>
<div><dt>Time per item</dt><dd>${per} on ${r.timing.machine.cores} cores${r.timing.machine.loadAverage === undefined ? '' : ` (load ${r.timing.machine.loadAverage})`}</dd></div>
<div><dt>Updated</dt><dd>${esc(r.updatedAt.replace('T', ' ').slice(0, 16))} UTC</dd></div>
</dl>`;
}

function detailsSection(r: EvalResult): string {
  const settings = Object.entries(r.settings)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `<tr><th scope="row">${esc(k)}</th><td>${esc(JSON.stringify(v))}</td></tr>`)
    .join('');
  const failed = r.items.failed.length
    ? `<h3>Failed items (retried by the next run)</h3><ul>${r.items.failed
        .slice(0, 20)
        .map((x) => `<li><code>${esc(x.id)}</code>: ${esc(x.message)}</li>`)
        .join('')}</ul>`
    : '';
  return `<section>
<h2>How this was made</h2>
<pre class="command">${esc(r.command)}</pre>
<table class="settings"><tbody>
<tr><th scope="row">data</th><td>${esc(r.dataset.path)} (${esc(r.dataset.format)}, ${r.dataset.selected} of ${r.dataset.available} items${r.dataset.badLines ? `, ${r.dataset.badLines} bad lines skipped` : ''})</td></tr>
${settings}
<tr><th scope="row">machine</th><td>${esc(`${r.timing.machine.cpu}, ${r.timing.machine.cores} cores, ${r.timing.machine.memoryGiB} GiB, Node ${r.timing.machine.node}`)}</td></tr>
</tbody></table>
${failed}
</section>`;
}

// Colours fall back to a light theme; inside VS Code the webview's theme variables win.
const STYLES = `
:root { color-scheme: light dark;
  --fg: var(--vscode-editor-foreground, #1f2328); --bg: var(--vscode-editor-background, #ffffff);
  --muted: var(--vscode-descriptionForeground, #59636e); --grid: var(--vscode-editorWidget-border, #d8dee4);
  --panel: var(--vscode-editorWidget-background, #f6f8fa); --warn: var(--vscode-editorWarning-foreground, #9a6700);
  --s0: #2f81f7; --s1: #d1242f; --s2: #1a7f37; --s3: #8250df; --s4: #bf8700; }
@media (prefers-color-scheme: dark) { :root { --fg: var(--vscode-editor-foreground, #e6edf3); --bg: var(--vscode-editor-background, #0d1117);
  --muted: var(--vscode-descriptionForeground, #9198a1); --grid: var(--vscode-editorWidget-border, #30363d); --panel: var(--vscode-editorWidget-background, #161b22); } }
body { margin: 0; background: var(--bg); color: var(--fg); font: 14px/1.5 var(--vscode-font-family, system-ui, sans-serif); }
.report { max-width: 1100px; margin: 0 auto; padding: 16px 24px 40px; }
h1 { font-size: 1.5em; margin: 0.2em 0 0.4em; } h2 { font-size: 1.2em; margin-top: 1.6em; border-bottom: 1px solid var(--grid); padding-bottom: 4px; }
h3 { font-size: 1em; } .intro, footer, .n, .ci { color: var(--muted); } .ci, .n { font-size: 0.92em; }
.facts { display: flex; flex-wrap: wrap; gap: 8px 28px; margin: 0; } .facts dt { color: var(--muted); font-size: 0.85em; } .facts dd { margin: 0; font-weight: 600; }
.warning { color: var(--warn); font-weight: 600; } .small-sample { color: var(--warn); font-size: 0.92em; }
span.small-sample { border: 1px solid var(--warn); border-radius: 8px; padding: 0 6px; margin-left: 4px; white-space: nowrap; cursor: help; }
.headline { display: flex; flex-wrap: wrap; gap: 12px; margin: 12px 0; }
.headline .tile { background: var(--panel); border: 1px solid var(--grid); border-radius: 6px; padding: 8px 14px; min-width: 150px; }
.tile .label { color: var(--muted); font-size: 0.85em; } .tile .value { font-size: 1.6em; font-weight: 600; }
table { border-collapse: collapse; margin: 10px 0; } caption { text-align: left; color: var(--muted); padding-bottom: 4px; }
th, td { border-bottom: 1px solid var(--grid); padding: 4px 12px 4px 0; text-align: left; vertical-align: top; } thead th { font-size: 0.9em; color: var(--muted); }
.settings td { font-family: var(--vscode-editor-font-family, monospace); font-size: 0.9em; word-break: break-all; }
pre.command { background: var(--panel); border: 1px solid var(--grid); padding: 8px 10px; white-space: pre-wrap; word-break: break-all; }
.charts { display: flex; flex-wrap: wrap; gap: 12px; }
.pair { display: grid; grid-template-columns: repeat(auto-fit, minmax(450px, 1fr)); gap: 0 28px; }
.chart { background: var(--panel); border: 1px solid var(--grid); border-radius: 6px; max-width: 100%; height: auto; }
.chart text { fill: var(--fg); font-size: 11px; } .chart .chart-title { font-size: 13px; font-weight: 600; } .chart .tick, .chart .axis-label { fill: var(--muted); }
.chart .grid { stroke: var(--grid); stroke-width: 0.6; } .chart .axis { stroke: var(--muted); stroke-width: 1; }
.chart .diagonal { stroke: var(--muted); stroke-dasharray: 4 4; stroke-width: 1; }
.chart .line { fill: none; stroke-width: 2; } .chart .whisker { stroke: var(--fg); stroke-width: 1.2; opacity: 0.7; }
.chart .marker { stroke: var(--bg); stroke-width: 1; } .chart .bar { opacity: 0.85; } .chart .note { font-size: 10.5px; }
.s0 { stroke: var(--s0); fill: var(--s0); } .s1 { stroke: var(--s1); fill: var(--s1); } .s2 { stroke: var(--s2); fill: var(--s2); }
.s3 { stroke: var(--s3); fill: var(--s3); } .s4 { stroke: var(--s4); fill: var(--s4); }
.chart .line.s0, .chart .line.s1, .chart .line.s2, .chart .line.s3, .chart .line.s4 { fill: none; }
.chart .whisker.s0 { stroke: var(--s0); } .chart .whisker.s1 { stroke: var(--s1); } .chart .whisker.s2 { stroke: var(--s2); }
`;
