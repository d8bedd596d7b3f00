/** The content of the last \boxed{…} of a solution (its final answer), with nested braces. */
export function lastBoxedAnswer(text: string): string | null {
  const at = text.lastIndexOf('\\boxed{');
  if (at < 0) return null;
  let depth = 0;
  for (let i = at + 6; i < text.length; i++) {
    if (text[i] === '{') depth++;
    else if (text[i] === '}' && --depth === 0) return text.slice(at + 7, i).trim();
  }
  return null;
}
