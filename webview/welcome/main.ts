import { connect, h, injectStyles } from '../shared/host';
import baseCss from '../shared/base.css';
import type { WelcomeHost, WelcomeStatus, WelcomeView } from '../../src/shared/protocols/welcome';

injectStyles(baseCss);
injectStyles(`
.actions { display: grid; grid-template-columns: repeat(auto-fill, minmax(240px, 1fr)); gap: 12px; margin-top: 12px; }
.action { text-align: left; cursor: pointer; border: 1px solid var(--vscode-panel-border); border-radius: 6px; padding: 12px 14px;
  background: var(--vscode-sideBar-background); color: var(--vscode-foreground); font: inherit; }
.action:hover, .action:focus { border-color: var(--vscode-focusBorder); outline: none; }
.action strong { display: block; margin-bottom: 4px; }
`);

const rpc = connect<WelcomeView, WelcomeHost>();
const app = document.getElementById('app')!;

const actions: { command: string; title: string; text: string }[] = [
  {
    command: 'stepwise.prove',
    title: 'Prove and Self-Verify',
    text: 'Write a proof with a self-evaluation, verify it, refine it, and see each step scored.',
  },
  {
    command: 'stepwise.playground.open',
    title: 'Try the Model in the Playground',
    text: 'Stream a completion from the local model to check it works.',
  },
  {
    command: 'stepwise.labels.nextSolution',
    title: 'Label Steps',
    text: 'Mark each step +1, 0 or −1; labels become training data.',
  },
  {
    command: 'stepwise.practice.generate',
    title: 'Generate a Practice Set',
    text: 'Self-generated problems, kept only when they can be judged reliably.',
  },
  {
    command: 'stepwise.train.run',
    title: 'Train from Annotations',
    text: 'Fine-tune a process reward model or the generator on your labels.',
  },
  {
    command: 'stepwise.model.select',
    title: 'Select Model',
    text: 'The embedded default, another ONNX folder, or an OpenAI-compatible endpoint.',
  },
];

function render(status: WelcomeStatus): void {
  const grid = h('div', { class: 'actions' });
  for (const a of actions) {
    const button = h(
      'button',
      { class: 'action', 'data-command': a.command },
      h('strong', {}, a.title),
      h('span', { class: 'muted' }, a.text),
    );
    button.addEventListener('click', () => void rpc.request('run', { command: a.command }).catch(showError));
    grid.append(button);
  }
  const parts = [
    h('h1', {}, 'Welcome to Stepwise'),
    h(
      'p',
      { class: 'muted' },
      `Version ${status.version}. Proof and code reasoning with a model that runs on your machine.`,
    ),
    h(
      'div',
      { class: 'card', id: 'model-status' },
      h('strong', {}, 'Model: '),
      h('span', { class: 'badge' }, status.modelState),
      ' ',
      h('span', { class: 'muted' }, status.modelDetail),
    ),
    status.workspaceTrusted
      ? null
      : h(
          'div',
          { class: 'card error' },
          'This workspace is not trusted: Stepwise will not run generated code here. Proving and labelling still work.',
        ),
    h('h2', {}, 'Start here'),
    grid,
    h(
      'p',
      { class: 'muted' },
      'Tip: the walkthrough "Get started with Stepwise" (Help → Welcome) takes you through a first proof, test run and label.',
    ),
  ].filter((n) => n !== null) as HTMLElement[];
  app.replaceChildren(...parts);
}

function showError(err: Error): void {
  app.append(h('p', { class: 'error' }, err.message));
}

rpc.on('status', render);
rpc.request('status', null).then(render, showError);
