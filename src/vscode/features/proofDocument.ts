/**
 * The problem of a proof document around an offset: the text under a "Problem" heading
 * (Markdown) or in a `problem` environment (LaTeX), nearest before the cursor.
 */
export function problemAt(text: string, offset: number): string | null {
  const candidates: { start: number; body: string }[] = [];
  const heading = /^#{1,6}\s*Problem\b[^\n]*\n([\s\S]*?)(?=^#{1,6}\s|(?![\s\S]))/gm;
  for (const m of text.matchAll(heading)) candidates.push({ start: m.index!, body: m[1] });
  const env = /\\begin\{problem\}([\s\S]*?)\\end\{problem\}/g;
  for (const m of text.matchAll(env)) candidates.push({ start: m.index!, body: m[1] });
  const before =
    candidates.filter((c) => c.start <= offset).sort((a, b) => b.start - a.start)[0] ??
    candidates.sort((a, b) => a.start - b.start)[0];
  const body = before?.body.replace(/<!--[\s\S]*?-->/g, '').trim();
  return body || null;
}
