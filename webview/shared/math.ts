import katex from 'katex';
import { splitMathText } from '../../src/shared/mathText';

/**
 * Text with LaTeX math ($…$, $$…$$, \(…\), \[…\], \boxed{…}) as DOM nodes: math typeset by the
 * bundled KaTeX (no network), `code` as code, everything else as plain text nodes so model output
 * can never inject markup. Math KaTeX cannot typeset — cut at a token limit, unbalanced, or not
 * valid TeX — is shown as its source in code style, with the reason on hover, never as red errors.
 * `katex.render` builds DOM and sets styles through the CSSOM, which the panels' CSP allows.
 */
export function renderMathText(text: string): DocumentFragment {
  const fragment = document.createDocumentFragment();
  const source = (tex: string, reason: string) => {
    const code = document.createElement('code');
    code.className = 'math-source';
    code.textContent = tex;
    code.title = reason;
    return code;
  };
  for (const segment of splitMathText(text)) {
    if (segment.kind === 'text') fragment.append(document.createTextNode(segment.text));
    else if (segment.kind === 'source') fragment.append(source(segment.text, segment.reason));
    else if (segment.kind === 'code') {
      const code = document.createElement('code');
      code.textContent = segment.text;
      if (segment.block) {
        const pre = document.createElement('pre');
        pre.append(code);
        fragment.append(pre);
      } else fragment.append(code);
    } else {
      const span = document.createElement(segment.display ? 'div' : 'span');
      span.className = segment.display ? 'math display' : 'math';
      try {
        katex.render(segment.tex, span, {
          displayMode: segment.display,
          throwOnError: true,
          output: 'html',
          strict: 'ignore',
          trust: false,
        });
        fragment.append(span);
      } catch (err) {
        fragment.append(source(segment.source, `not valid TeX: ${(err as Error).message}`));
      }
    }
  }
  return fragment;
}
