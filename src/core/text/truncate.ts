/** `s` cut to its first `max` characters, with an ellipsis when anything was cut. */
export function truncate(s: string, max: number): string {
  return s.length > max ? `${s.slice(0, max)}…` : s;
}
