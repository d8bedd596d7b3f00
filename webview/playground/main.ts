import { connect, h, injectStyles, loadState, saveState } from '../shared/host';
import baseCss from '../shared/base.css';
import type { PlaygroundHost, PlaygroundView } from '../../src/shared/protocols/playground';

injectStyles(baseCss);
injectStyles(`
textarea { width: 100%; min-height: 80px; font: inherit; color: var(--vscode-input-foreground); background: var(--vscode-input-background);
  border: 1px solid var(--vscode-input-border, var(--vscode-panel-border)); border-radius: 4px; padding: 6px; box-sizing: border-box; }
button { font: inherit; padding: 4px 14px; border: none; border-radius: 2px; cursor: pointer;
  color: var(--vscode-button-foreground); background: var(--vscode-button-background); }
button.secondary { color: var(--vscode-button-secondaryForeground); background: var(--vscode-button-secondaryBackground); }
button:disabled { opacity: 0.5; cursor: default; }
#output { min-height: 120px; }
`);

interface State {
  prompt: string;
  output: string;
}
const state: State = loadState<State>() ?? {
  prompt: 'Explain in two sentences why the square root of 2 is irrational.',
  output: '',
};
const rpc = connect<PlaygroundView, PlaygroundHost>();
const app = document.getElementById('app')!;

const prompt = h('textarea', { id: 'prompt', 'aria-label': 'Prompt' });
prompt.value = state.prompt;
const output = h('pre', { id: 'output', 'aria-label': 'Model output' }, state.output);
const stats = h('p', { id: 'stats', class: 'muted' });
const modelLine = h('p', { id: 'model', class: 'muted' }, 'The model loads on the first run.');
const run = h('button', { id: 'run' }, 'Generate');
const stop = h('button', { id: 'stop', class: 'secondary' }, 'Stop');
stop.disabled = true;

app.replaceChildren(
  h('h1', {}, 'Playground — Try the Model'),
  modelLine,
  prompt,
  h('div', { class: 'row' }, run, stop),
  h('h2', {}, 'Output'),
  output,
  stats,
);

rpc.on('model', (m) => (modelLine.textContent = `${m.name} on ${m.device.toUpperCase()} (${m.backend})`));
rpc.on('token', (t) => {
  output.textContent += t.text;
});

run.addEventListener('click', async () => {
  output.textContent = '';
  stats.textContent = 'Generating…';
  run.disabled = true;
  stop.disabled = false;
  try {
    const r = await rpc.request(
      'generate',
      { prompt: prompt.value, maxTokens: 128, temperature: 0 },
      600_000,
    );
    output.textContent = r.text;
    stats.textContent = `${r.tokens} tokens · first token after ${r.timeToFirstTokenMs.toFixed(0)} ms · ${r.tokensPerSecond.toFixed(1)} tokens/s`;
  } catch (err) {
    stats.textContent = '';
    output.append(h('span', { class: 'error' }, `\n${(err as Error).message}`));
  } finally {
    run.disabled = false;
    stop.disabled = true;
    saveState<State>({ prompt: prompt.value, output: output.textContent ?? '' });
  }
});
stop.addEventListener('click', () => void rpc.request('cancel', null));
