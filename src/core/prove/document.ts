/**
 * The problem statement of a proof document: the `## Problem` section of a Markdown proof
 * document, or the whole text when it has no such section (a plain-text problem).
 */
export function problemFromDocument(text: string): { text: string; problems: string[] } {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const start = lines.findIndex((l) => /^[ \t]{0,3}#{1,6}[ \t]+problem[ \t]*:?[ \t]*#*[ \t]*$/i.test(l));
  if (start < 0) {
    const whole = text.trim();
    return { text: whole, problems: whole === '' ? ['the file is empty'] : [] };
  }
  const level = /^[ \t]*(#+)/.exec(lines[start])?.[1].length ?? 2;
  let end = start + 1;
  // The section ends at the next heading of the same or a higher level.
  while (end < lines.length && !new RegExp(`^[ \\t]{0,3}#{1,${level}}[ \\t]`).test(lines[end])) end++;
  const body = lines
    .slice(start + 1, end)
    .join('\n')
    .trim();
  return { text: body, problems: body === '' ? ['the "## Problem" section is empty'] : [] };
}
