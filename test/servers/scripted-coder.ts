/**
 * A scripted OpenAI-compatible endpoint (a real HTTP server on 127.0.0.1) that answers the
 * five-stage pipeline on `merge_intervals` the way the issue found a model answering it: stage 1's
 * test writer expects `[(1, 5)]` for the non-overlapping `[(1, 3), (4, 5)]` (a wrong expectation),
 * stage 2's calls the function with two lists (a signature it does not have), the stage-5 code and
 * the independent samples are correct. It scripts only what the model says; the extension's
 * backend, the signature check, the sandbox, the evidence and the verdicts all run for real.
 * The suites' small model cannot be made to write this scenario on demand.
 */
import type { ServerResponse } from 'node:http';
import { sendJson, startHttpServer, startSse, type TestHttpServer } from './http-server';

export const SCRIPTED_MODEL = 'scripted-coder';

const CORRECT = [
  'def merge_intervals(intervals):',
  '    merged = []',
  '    for start, end in sorted(intervals):',
  '        if merged and start <= merged[-1][1]:',
  '            merged[-1][1] = max(merged[-1][1], end)',
  '        else:',
  '            merged.append([start, end])',
  '    return merged',
].join('\n');

/** The assertion lines each stage's test writer answers, by the stage's focus. */
const TESTS_BY_FOCUS: [RegExp, string[]][] = [
  [
    /basic behaviour/,
    [
      'assert merge_intervals([[1, 3], [2, 4]]) == [[1, 4]]',
      // Wrong: the intervals do not overlap, so the correct answer keeps them apart.
      'assert merge_intervals([(1, 3), (4, 5)]) == [(1, 5)]',
      'assert merge_intervals([]) == []',
    ],
  ],
  [/edge cases/, ['assert merge_intervals([1, 3], [2, 4]) == [[1, 4]]']],
  [/algorithmic corner cases/, ['assert merge_intervals([[1, 2], [2, 3]]) == [[1, 3]]']],
];

/** What the scripted model answers to a conversation (the last user message decides). */
export function scriptedAnswer(messages: { role: string; content: string }[]): string {
  const last = [...messages].reverse().find((m) => m.role === 'user')?.content ?? '';
  if (/from its specification alone/.test(last))
    return `Sort by start, then extend the last merged interval or start a new one.\n\n\`\`\`python\n${CORRECT}\n\`\`\`\n`;
  if (/Now write tests for/.test(last)) {
    const lines = TESTS_BY_FOCUS.find(([focus]) => focus.test(last))?.[1] ?? [];
    return `\`\`\`python\n${lines.map((l) => `${l}\n`).join('')}\`\`\`\n`;
  }
  if (/complete \w+ implementation/.test(last)) return `\`\`\`python\n${CORRECT}\n\`\`\`\n`;
  return 'Sort the intervals by start; an interval that starts before the last merged one ends extends it.';
}

function streamAnswer(res: ServerResponse, text: string): void {
  startSse(res);
  const frame = (delta: object, finish: string | null) =>
    `data: ${JSON.stringify({ id: 'scripted', object: 'chat.completion.chunk', model: SCRIPTED_MODEL, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  res.write(frame({ role: 'assistant', content: text }, null));
  res.write(frame({}, 'stop'));
  res.end('data: [DONE]\n\n');
}

/** Starts the endpoint; the base URL to give Stepwise is `${origin}/v1`. */
export async function startScriptedCoder(): Promise<TestHttpServer> {
  return startHttpServer((req, res) => {
    if (req.method === 'GET' && req.path === '/v1/models')
      return sendJson(res, 200, {
        object: 'list',
        data: [{ id: SCRIPTED_MODEL, object: 'model', max_model_len: 32768 }],
      });
    if (req.method === 'POST' && req.path === '/v1/chat/completions') {
      const body = JSON.parse(req.body) as {
        messages: { role: string; content: string }[];
        stream?: boolean;
      };
      const text = scriptedAnswer(body.messages);
      if (body.stream) return streamAnswer(res, text);
      return sendJson(res, 200, {
        id: 'scripted',
        object: 'chat.completion',
        model: SCRIPTED_MODEL,
        choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
      });
    }
    // No raw completions, grammars or llama.cpp routes: the tests are written as free text.
    sendJson(res, 404, { error: { message: `not scripted: ${req.method} ${req.path}` } });
  });
}
