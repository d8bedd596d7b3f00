import { connect, h, injectStyles, loadState, saveState } from '../shared/host';
import baseCss from '../shared/base.css';
import { stageBadgeText, stageBadgeTitle } from '../../src/shared/stageBadge';
import { testsFigures } from '../../src/shared/testsFigures';
import type {
  ExpectationJudgement,
  TestsHost,
  TestsView,
  CodeRunView,
  StageView,
  VerdictView,
} from '../../src/shared/protocols/tests';

injectStyles(baseCss);
injectStyles(`
.stages { display: grid; gap: 8px; }
details.stage { border: 1px solid var(--vscode-panel-border); border-radius: 6px; padding: 6px 12px; background: var(--vscode-sideBar-background); }
details.stage summary { cursor: pointer; display: flex; gap: 10px; align-items: center; }
details.stage summary .name { font-weight: 600; }
.stage-status { font-size: 0.85em; }
.stage-status.done { color: var(--vscode-testing-iconPassed); }
.stage-status.reasoning, .stage-status.writing-tests { color: var(--vscode-progressBar-background); }
.cols { display: grid; grid-template-columns: 1fr 1fr; gap: 10px; }
.cols pre { max-height: 260px; overflow-y: auto; margin: 4px 0; }
@media (max-width: 720px) { .cols { grid-template-columns: 1fr; } details.stage summary { flex-wrap: wrap; } }
.metrics { display: grid; grid-template-columns: repeat(auto-fill, minmax(170px, 1fr)); gap: 10px; }
.metric { border: 1px solid var(--vscode-panel-border); border-radius: 6px; padding: 8px 12px; }
.metric .value { font-size: 1.6em; font-weight: 600; }
.meter { height: 6px; background: var(--vscode-editorWidget-background); border-radius: 3px; overflow: hidden; margin-top: 4px; }
.meter > div { height: 100%; background: var(--vscode-progressBar-background); }
td.status { font-weight: 600; }
.passed { color: var(--vscode-testing-iconPassed); }
.failed, .error { color: var(--vscode-testing-iconFailed); }
.timeout, .uncollectable, .flaky, .unconfirmed { color: var(--vscode-editorWarning-foreground); }
.fails-confirmed { color: var(--vscode-testing-iconFailed); }
li.expectation { margin: 6px 0; }
li.expectation .evidence { display: block; font-size: 0.9em; }
tr.invalid td.name { text-decoration: line-through; opacity: 0.7; }
button { font: inherit; padding: 4px 14px; border: none; border-radius: 2px; cursor: pointer; color: var(--vscode-button-foreground); background: var(--vscode-button-background); }
button.secondary { color: var(--vscode-button-secondaryForeground); background: var(--vscode-button-secondaryBackground); }
.notice { border-left: 3px solid var(--vscode-editorWarning-foreground); padding: 6px 10px; background: var(--vscode-editorWidget-background); }
`);

const rpc = connect<TestsView, TestsHost>();
const app = document.getElementById('app')!;
let view: CodeRunView | null = loadState<CodeRunView>() ?? null;
const open = new Set<number>();

const STATUS_TEXT: Record<StageView['status'], string> = {
  waiting: 'waiting',
  reasoning: 'reasoning…',
  'writing-tests': 'writing tests…',
  done: '✓ done',
};
const VERDICT_TEXT: Record<string, string> = {
  passed: '✓ passed',
  failed: '✗ failed',
  error: '✗ error',
  timeout: '⏱ timeout',
  uncollectable: '⚠ does not collect',
  flaky: '⚠ flaky',
};

function pct(x: number): string {
  return `${(x * 100).toFixed(0)}%`;
}

function metric(label: string, value: number, note: string, id: string): HTMLElement {
  return h(
    'div',
    { class: 'metric', id },
    h('div', { class: 'muted' }, label),
    h('div', { class: 'value' }, value.toFixed(2)),
    h('div', { class: 'meter' }, h('div')),
    h('div', { class: 'muted' }, note),
  );
}

/** What an empty column means: still to come, or finished with nothing written. */
function placeholder(stage: StageView, column: 'reasoning' | 'tests'): string {
  const running = column === 'reasoning' ? 'reasoning' : 'writing-tests';
  if (stage.status === 'done')
    return column === 'reasoning'
      ? 'The model wrote nothing for this stage.'
      : 'The test writer wrote no assertion this stage could admit.';
  return stage.status === running ? 'Writing…' : 'Waiting…';
}

function stageCard(stage: StageView): HTMLElement {
  const details = h(
    'details',
    { class: 'stage', 'data-stage': String(stage.id) },
    h(
      'summary',
      {},
      h('span', { class: 'name' }, `${stage.id}. ${stage.name}`),
      h('span', { class: `stage-status ${stage.status}` }, STATUS_TEXT[stage.status]),
      h(
        'span',
        { class: 'badge', ...(stage.dropped?.length ? { title: stageBadgeTitle(stage.dropped) } : {}) },
        stageBadgeText(stage.tests.length, stage.dropped ?? []),
      ),
      h('span', { class: 'muted' }, `focus: ${stage.testFocus}`),
    ),
    h(
      'div',
      { class: 'cols' },
      h(
        'div',
        {},
        h('strong', {}, 'Generator'),
        h('pre', { id: `reasoning-${stage.id}` }, stage.reasoning || placeholder(stage, 'reasoning')),
      ),
      h(
        'div',
        {},
        h('strong', {}, 'Test writer'),
        h('pre', { id: `tests-${stage.id}` }, stage.testWriterOutput || placeholder(stage, 'tests')),
      ),
    ),
  );
  if (open.has(stage.id) || stage.status === 'reasoning' || stage.status === 'writing-tests')
    details.open = true;
  details.addEventListener('toggle', () => (details.open ? open.add(stage.id) : open.delete(stage.id)));
  return details;
}

/** The verdict on the user's function: a failure is shown as one only when the evidence confirms it. */
const USER_VERDICT: Record<string, string> = {
  passes: '✓ passes',
  'fails-confirmed': '✗ fails (confirmed)',
  unconfirmed: '? unconfirmed expectation',
  flaky: '⚠ flaky',
  broken: '⚠ test does not run',
};

function userCell(v: VerdictView): HTMLElement {
  if (!v.verdict) return h('td', { class: `status ${v.onUser}` }, VERDICT_TEXT[v.onUser] ?? v.onUser);
  return h(
    'td',
    { class: `status ${v.verdict}`, title: v.evidence ?? '' },
    USER_VERDICT[v.verdict] ?? v.verdict,
  );
}

/** One unconfirmed expectation with its evidence and the two buttons that judge it. */
function expectationItem(v: VerdictView): HTMLElement {
  const judged = h(
    'span',
    { class: 'muted', id: `judged-${v.name}` },
    v.judgement ? ` — you ${v.judgement === 'accept' ? 'accepted' : 'rejected'} it` : '',
  );
  const button = (judgement: ExpectationJudgement, label: string) => {
    const b = h(
      'button',
      { class: 'secondary', 'data-judge': judgement, 'data-test': v.name },
      label,
    ) as HTMLButtonElement;
    b.addEventListener('click', async () => {
      try {
        const r = await rpc.request('judgeExpectation', { name: v.name, judgement }, 30_000);
        v.judgement = judgement;
        judged.textContent = ` — you ${judgement === 'accept' ? 'accepted' : 'rejected'} it (saved in ${r.file})`;
      } catch (err) {
        judged.textContent = ` — not saved: ${(err as Error).message}`;
      }
    });
    return b;
  };
  return h(
    'li',
    { class: 'expectation', title: v.userOutput?.slice(0, 2000) ?? '' },
    h('code', {}, v.source.split('\n').find((l) => l.includes('assert')) ?? v.name),
    h(
      'span',
      { class: 'evidence muted' },
      `Your function: ${VERDICT_TEXT[v.onUser] ?? v.onUser}. Evidence: ${v.evidence ?? 'none'}.`,
    ),
    button('accept', 'Accept: my function is wrong'),
    ' ',
    button('reject', 'Reject: the test is wrong'),
    judged,
  );
}

function verdictRow(v: VerdictView): HTMLElement {
  const check = h('input', { type: 'checkbox', 'data-test': v.name, 'aria-label': `Accept ${v.name}` });
  check.checked = v.valid;
  return h(
    'tr',
    {
      class: v.valid ? 'valid' : 'invalid',
      title: [v.userOutput, v.generatedOutput].filter(Boolean).join('\n---\n').slice(0, 2000),
    },
    h('td', {}, check),
    h('td', { class: 'name' }, v.name),
    h('td', {}, `stage ${v.stage}`),
    userCell(v),
    h('td', { class: `status ${v.onGenerated}` }, VERDICT_TEXT[v.onGenerated] ?? v.onGenerated),
  );
}

function render(): void {
  if (!view) {
    app.replaceChildren(
      h('p', { class: 'loading' }, 'Click "Reason & generate tests" above a function to start.'),
    );
    return;
  }
  const v = view;
  // Every count below comes from here, so no two places of the panel disagree.
  const f = testsFigures(v);
  const parts: HTMLElement[] = [
    h('h1', {}, `Reason & generate tests: ${v.functionName}`),
    h('p', { class: 'muted', id: 'phase' }, `${v.file} · ${v.language} · ${v.model} · ${phaseText(v)}`),
  ];
  if (v.message) parts.push(h('p', { class: v.phase === 'error' ? 'error' : 'notice' }, v.message));
  if (v.phase === 'reasoning' || v.phase === 'running-tests') {
    const cancel = h('button', { class: 'secondary', id: 'cancel' }, 'Cancel');
    cancel.addEventListener('click', () => void rpc.request('cancel', null));
    parts.push(cancel);
  }
  parts.push(h('h2', {}, 'Five stages'), h('div', { class: 'stages' }, ...v.stages.map(stageCard)));
  if (v.scores) {
    const s = v.scores;
    const metrics = h(
      'div',
      { class: 'metrics' },
      metric(
        'Test validity',
        s.validity,
        `${f.valid} of ${f.total} tests pass on the reference`,
        'metric-validity',
      ),
      metric(
        'Generator reward',
        s.generatorReward,
        s.support ?? 'pass rate of the generated code on valid tests',
        'metric-generator',
      ),
      metric('Test-writer reward', s.testWriterReward, '(1 − pass rate) · validity', 'metric-test-writer'),
    );
    metrics.querySelectorAll<HTMLElement>('.metric').forEach((m, i) => {
      const bar = m.querySelector<HTMLElement>('.meter > div')!;
      bar.style.width = pct([s.validity, s.generatorReward, s.testWriterReward][i]);
    });
    parts.push(h('h2', {}, 'Validity and rewards'), metrics, h('p', { class: 'muted' }, s.referenceReason));
    const { confirmed, unconfirmed } = f;
    const examples = v.failedExamples ?? [];
    if (examples.length)
      parts.push(
        h(
          'div',
          { class: 'notice', id: 'failed-examples' },
          h('p', {}, `Your function fails ${examples.length} example(s) of its own docstring:`),
          h(
            'ul',
            {},
            ...examples.map((x) =>
              h(
                'li',
                { title: x.output?.slice(0, 2000) ?? '' },
                `${x.example}${x.output ? `: ${x.output.split('\n')[0]}` : ''}`,
              ),
            ),
          ),
        ),
      );
    if (confirmed.length)
      parts.push(
        h(
          'div',
          { class: 'notice', id: 'confirmed-failures' },
          h(
            'p',
            {},
            `Your function fails ${confirmed.length} test(s) that the generated implementations agree on:`,
          ),
          h(
            'ul',
            {},
            ...confirmed.map((x) =>
              h('li', { title: x.userOutput?.slice(0, 2000) ?? '' }, `${x.name}: ${x.evidence ?? ''}`),
            ),
          ),
        ),
      );
    if (unconfirmed.length)
      parts.push(
        h(
          'div',
          { class: 'notice', id: 'unconfirmed' },
          h(
            'p',
            {},
            `${unconfirmed.length} unconfirmed expectation(s) to review: your function does not do what these tests expect, but the generated implementations do not back them strongly enough to call it a failure. Accept one if your function is wrong, reject it if the test is.`,
          ),
          h('ul', {}, ...unconfirmed.map(expectationItem)),
        ),
      );
    if (!v.verdicts.some((x) => x.verdict) && f.disagreements) {
      parts.push(
        h(
          'div',
          { class: 'notice', id: 'disagreements' },
          h(
            'p',
            {},
            `${f.disagreements} test(s) disagree with your function. Review each: the test may be wrong, or your function may be.`,
          ),
          h(
            'ul',
            {},
            ...s.disagreements.map((d) =>
              h(
                'li',
                { title: d.userOutput?.slice(0, 2000) ?? '' },
                `${d.input}: your function ${VERDICT_TEXT[d.onUser] ?? d.onUser}; ${d.samplesPassing} of ${d.samples} independently generated implementation(s) pass it`,
              ),
            ),
          ),
        ),
      );
    }
  }
  if (v.verdicts.length) {
    const table = h(
      'table',
      { id: 'verdicts' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          h('th', {}, ''),
          h('th', {}, 'Test'),
          h('th', {}, 'Origin'),
          h('th', {}, 'Your function'),
          h('th', {}, 'Generated code'),
        ),
      ),
      h('tbody', {}, ...v.verdicts.map(verdictRow)),
    );
    const insert = h('button', { id: 'insert' }, 'Insert accepted tests…');
    insert.addEventListener('click', async () => {
      const names = [...table.querySelectorAll<HTMLInputElement>('input[type=checkbox]')]
        .filter((c) => c.checked)
        .map((c) => c.dataset.test!);
      try {
        const r = await rpc.request('insertTests', { names }, 120_000);
        insert.textContent = r.inserted ? `Inserted ${r.inserted} into ${r.file}` : 'Nothing inserted';
      } catch (err) {
        parts.push(h('p', { class: 'error' }, (err as Error).message));
        render();
      }
    });
    parts.push(
      h('h2', {}, `Accumulated suite (${f.total} tests)`),
      table,
      h('div', { class: 'row' }, insert),
    );
  }
  if (v.generatedCode)
    parts.push(h('h2', {}, 'Generated code (stage 5)'), h('pre', { id: 'generated-code' }, v.generatedCode));
  if (v.testWriting)
    parts.push(h('p', { class: 'muted', id: 'test-writing' }, `Test writer: ${v.testWriting}`));
  if (v.isolation) parts.push(h('p', { class: 'muted', id: 'isolation' }, `Sandbox: ${v.isolation}`));
  app.replaceChildren(...parts);
}

function phaseText(v: CodeRunView): string {
  switch (v.phase) {
    case 'reasoning':
      return 'reasoning…';
    case 'running-tests':
      return 'running the accumulated suite in the sandbox…';
    case 'done':
      return `done in ${((v.totalMs ?? 0) / 1000).toFixed(1)} s`;
    case 'not-executed':
      return 'tests generated, not executed';
    case 'cancelled':
      return 'cancelled';
    case 'error':
      return 'failed';
  }
}

rpc.on('update', (next) => {
  view = next;
  saveState(view);
  render();
});
rpc.on('token', (t) => {
  if (!view) return;
  const stage = view.stages.find((s) => s.id === t.stage);
  if (!stage) return;
  if (t.role === 'generator') stage.reasoning += t.text;
  else stage.testWriterOutput += t.text;
  const pre = document.getElementById(`${t.role === 'generator' ? 'reasoning' : 'tests'}-${t.stage}`);
  if (pre) pre.textContent = t.role === 'generator' ? stage.reasoning : stage.testWriterOutput;
});
render();
rpc.request('state', null).then(
  (s) => {
    if (s) {
      view = s;
      render();
    }
  },
  () => undefined,
);
