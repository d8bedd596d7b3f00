/** A small reader for the JUnit XML that pytest and node's test runner write. */

export interface JunitCase {
  name: string;
  classname: string;
  file?: string;
  timeSeconds: number;
  outcome: 'passed' | 'failure' | 'error' | 'skipped';
  message: string;
  details: string;
  output: string;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

export function unescapeXml(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|\w+);/gi, (whole, e: string) => {
    if (e[0] === '#')
      return String.fromCodePoint(
        e[1].toLowerCase() === 'x' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10),
      );
    return ENTITIES[e] ?? whole;
  });
}

function attr(tag: string, name: string): string | undefined {
  const m = new RegExp(`\\s${name}="([^"]*)"`).exec(tag);
  return m ? unescapeXml(m[1]) : undefined;
}

function body(xml: string): string {
  const cdata = /<!\[CDATA\[([\s\S]*?)\]\]>/.exec(xml);
  return cdata ? cdata[1] : unescapeXml(xml);
}

export function parseJunit(xml: string): JunitCase[] {
  const cases: JunitCase[] = [];
  const re = /<testcase\b([^>]*?)(\/>|>([\s\S]*?)<\/testcase>)/g;
  for (const m of xml.matchAll(re)) {
    const open = `<testcase${m[1]}>`;
    const inner = m[3] ?? '';
    const child = /<(failure|error|skipped)\b([^>]*?)(?:\/>|>([\s\S]*?)<\/\1>)/.exec(inner);
    const out = /<system-out>([\s\S]*?)<\/system-out>/.exec(inner);
    const err = /<system-err>([\s\S]*?)<\/system-err>/.exec(inner);
    cases.push({
      name: attr(open, 'name') ?? '',
      classname: attr(open, 'classname') ?? '',
      file: attr(open, 'file'),
      timeSeconds: Number(attr(open, 'time') ?? 0),
      outcome: child ? (child[1] === 'skipped' ? 'skipped' : (child[1] as 'failure' | 'error')) : 'passed',
      message: child ? (attr(`<x${child[2]}>`, 'message') ?? '') : '',
      details: child?.[3] ? body(child[3]) : '',
      output: [out ? body(out[1]) : '', err ? body(err[1]) : ''].filter(Boolean).join('\n'),
    });
  }
  return cases;
}

/** Drops pytest's empty "Captured Log/Out/Err" banners, which only add noise to a verdict. */
export function dropEmptyCaptures(text: string): string {
  return text.replace(/-{3,} Captured \w+ -{3,}\s*(?=-{3,} Captured \w+ -{3,}|$)/g, '').trim();
}
