/**
 * Reasoning models write their deliberation inside `<think>…</think>` before the answer. It must
 * never be parsed as the answer, so it is split off and kept separately. Model output is untrusted:
 * this never throws and handles an unclosed block (generation cut by max tokens) and a closing tag
 * without an opening one (chat templates that put `<think>` into the prompt).
 */

export interface SplitReasoning {
  answer: string;
  /** Undefined when the text had no reasoning block. */
  reasoning?: string;
}

const OPEN = '<think>';
const CLOSE = '</think>';

export function splitReasoning(text: string): SplitReasoning {
  const reasoningParts: string[] = [];
  let answer = '';
  let rest = text;

  const firstOpen = rest.indexOf(OPEN);
  const firstClose = rest.indexOf(CLOSE);
  if (firstClose !== -1 && (firstOpen === -1 || firstClose < firstOpen)) {
    // The opening tag was in the prompt: everything up to the first closing tag is reasoning.
    reasoningParts.push(rest.slice(0, firstClose));
    rest = rest.slice(firstClose + CLOSE.length);
  }

  for (;;) {
    const open = rest.indexOf(OPEN);
    if (open === -1) {
      answer += rest;
      break;
    }
    answer += rest.slice(0, open);
    const afterOpen = rest.slice(open + OPEN.length);
    const close = afterOpen.indexOf(CLOSE);
    if (close === -1) {
      // Unclosed: the model was cut off while still thinking; no answer follows.
      reasoningParts.push(afterOpen);
      break;
    }
    reasoningParts.push(afterOpen.slice(0, close));
    rest = afterOpen.slice(close + CLOSE.length);
  }

  if (reasoningParts.length === 0) return { answer: text };
  return { answer: answer.trim(), reasoning: reasoningParts.map((p) => p.trim()).join('\n\n') };
}
