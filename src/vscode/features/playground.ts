import { performance } from 'node:perf_hooks';
import type { StepwiseContext } from '../context';
import { singletonPanel } from '../panels/panelHost';
import type { PlaygroundHost, PlaygroundView } from '../../shared/protocols/playground';

const PLAYGROUND = 'stepwise.playground';

/** The playground ("Try the Model"): a prompt to the loaded model, its answer streamed back. */
export function registerPlayground(ctx: StepwiseContext): void {
  let running: AbortController | undefined;
  const playground = singletonPanel<PlaygroundHost, PlaygroundView>(ctx, {
    viewType: PLAYGROUND,
    bundle: 'playground',
    title: 'Stepwise: Playground',
    handlers: (panel) => ({
      cancel: () => {
        running?.abort();
        return null;
      },
      generate: async ({ prompt, maxTokens, temperature }) => {
        running?.abort();
        const controller = new AbortController();
        running = controller;
        return ctx.model.use('generating', async (model) => {
          panel.rpc.emit('model', {
            name: model.info.name,
            device: model.info.device,
            backend: model.info.backend,
          });
          const started = performance.now();
          const result = await model.generate([{ role: 'user', content: prompt }], {
            maxTokens,
            temperature,
            signal: controller.signal,
            onToken: (t) => panel.rpc.emit('token', { text: t.text }),
          });
          const completion = result.completions[0];
          const decodeMs = Math.max(1, performance.now() - started - result.timeToFirstTokenMs);
          return {
            text: completion?.text ?? '',
            tokens: completion?.tokens.length ?? 0,
            tokensPerSecond: ((completion?.tokens.length ?? 1) - 1) / (decodeMs / 1000),
            timeToFirstTokenMs: result.timeToFirstTokenMs,
          };
        });
      },
    }),
    // Closing the playground stops its generation.
    onOpen: () => ({ dispose: () => running?.abort() }),
  });
  ctx.command('stepwise.playground.open', () => void playground.show());
}
