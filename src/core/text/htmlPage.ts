/**
 * The shell of every HTML page Stepwise renders (the evaluation report, the editor's panels): one
 * Content Security Policy in a meta tag, the charset and viewport, an escaped title. Callers give
 * the policy's directives and the head and body content; nothing else varies.
 */

/** Text made safe inside HTML or SVG elements and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );
}

export interface HtmlPage {
  /** Content Security Policy directives, joined with "; " (start with "default-src 'none'"). */
  csp: string[];
  /** Plain text; escaped here. */
  title: string;
  /** Markup after the title in <head> (style elements, stylesheet links). */
  head: string;
  /** Attributes of <body>, as markup (e.g. ` data-nonce="…"`), or ''. */
  bodyAttributes?: string;
  /** Markup of the body. */
  body: string;
}

export function htmlPage(page: HtmlPage): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${page.csp.join('; ')}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>${escapeHtml(page.title)}</title>
${page.head}
</head>
<body${page.bodyAttributes ?? ''}>
${page.body}
</body>
</html>`;
}
