/** Prompt templates with `{{name}}` placeholders (the tests' stage chain, practice prompts). */
/** Fills `{{name}}` placeholders; an unknown placeholder is left as it is so a typo shows. */
export function fillTemplate(template: string, values: Record<string, string>): string {
  return template.replace(/\{\{(\w+)\}\}/g, (whole, key: string) => (key in values ? values[key] : whole));
}
