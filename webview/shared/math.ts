import katex from 'katex';

/**
 * Text with LaTeX math ($…$, $$…$$, \(…\), \[…\]) as DOM nodes: math rendered by the bundled KaTeX
 * (no network), everything else as plain text nodes so model output can never inject markup.
 * `katex.render` builds DOM and sets styles through the CSSOM, which the panels' CSP allows.
 */
export function renderMathText(text: string): DocumentFragment {
  const fragment = document.createDocumentFragment();
  const pattern =
    /\$\$([\s\S]+?)\$\$|\\\[([\s\S]+?)\\\]|\\\(([\s\S]+?)\\\)|\$([^$\n]+?)\$|(\\boxed\{(?:[^{}]|\{[^{}]*\})*\})/g;
  let last = 0;
  for (const m of text.matchAll(pattern)) {
    if (m.index! > last) fragment.append(document.createTextNode(text.slice(last, m.index)));
    const display = m[1] !== undefined || m[2] !== undefined;
    const tex = m[1] ?? m[2] ?? m[3] ?? m[4] ?? m[5] ?? '';
    const span = document.createElement(display ? 'div' : 'span');
    span.className = display ? 'math display' : 'math';
    try {
      katex.render(tex, span, {
        displayMode: display,
        throwOnError: false,
        output: 'html',
        strict: 'ignore',
        trust: false,
      });
    } catch {
      span.textContent = m[0];
    }
    fragment.append(span);
    last = m.index! + m[0].length;
  }
  if (last < text.length) fragment.append(document.createTextNode(text.slice(last)));
  return fragment;
}
