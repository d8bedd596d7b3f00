/**
 * A small reader for the JUnit XML that pytest and node's test runner write. The report comes from
 * inside the process under test, so it is hostile input: the reader works by substring search in
 * one pass (no pattern that rescans the rest of the report for every unclosed tag) and never throws.
 */
import { closedSpans } from '../text/spans';

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
    if (e[0] === '#') {
      const code = e[1].toLowerCase() === 'x' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
      return Number.isInteger(code) && code >= 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[e] ?? whole;
  });
}

function attr(tag: string, name: string): string | undefined {
  const m = new RegExp(`\\s${name}="([^"]*)"`).exec(tag);
  return m ? unescapeXml(m[1]) : undefined;
}

function body(xml: string): string {
  const cdata = closedSpans(xml, '<![CDATA[', ']]>')[0];
  return cdata ? cdata.inner : unescapeXml(xml);
}

const isNameChar = (c: string | undefined) => !!c && /[\w-]/.test(c);

/** The first `<name …/>` or `<name …>…</name>` among `names` in `xml`. */
function firstElement(
  xml: string,
  names: string[],
): { name: string; tag: string; inner?: string } | undefined {
  let best: { name: string; tag: string; inner?: string; at: number } | undefined;
  for (const name of names) {
    let from = 0;
    for (;;) {
      const at = xml.indexOf(`<${name}`, from);
      if (at < 0 || (best && at > best.at)) break;
      from = at + 1;
      if (isNameChar(xml[at + name.length + 1])) continue;
      const close = xml.indexOf('>', at);
      if (close < 0) break;
      const tag = xml.slice(at, close + 1);
      if (tag.endsWith('/>')) best = { name, tag, at };
      else {
        const end = xml.indexOf(`</${name}>`, close + 1);
        if (end < 0) break;
        best = { name, tag, inner: xml.slice(close + 1, end), at };
      }
      break;
    }
  }
  return best;
}

export function parseJunit(xml: string): JunitCase[] {
  const cases: JunitCase[] = [];
  let from = 0;
  // Once no `</testcase>` follows some position, none follows any later one either.
  let noCloseAfter = Infinity;
  for (;;) {
    const at = xml.indexOf('<testcase', from);
    if (at < 0) break;
    from = at + 1;
    if (isNameChar(xml[at + 9])) continue;
    const openEnd = xml.indexOf('>', at);
    if (openEnd < 0) break;
    const open = xml.slice(at, openEnd + 1);
    let inner = '';
    if (!open.endsWith('/>')) {
      const close = openEnd + 1 >= noCloseAfter ? -1 : xml.indexOf('</testcase>', openEnd + 1);
      if (close < 0) {
        noCloseAfter = Math.min(noCloseAfter, openEnd + 1);
        continue;
      }
      inner = xml.slice(openEnd + 1, close);
      from = close;
    }
    const child = firstElement(inner, ['failure', 'error', 'skipped']);
    const out = firstElement(inner, ['system-out']);
    const err = firstElement(inner, ['system-err']);
    cases.push({
      name: attr(open, 'name') ?? '',
      classname: attr(open, 'classname') ?? '',
      file: attr(open, 'file'),
      timeSeconds: Number(attr(open, 'time') ?? 0) || 0,
      outcome: child ? (child.name as 'failure' | 'error' | 'skipped') : 'passed',
      message: child ? (attr(child.tag, 'message') ?? '') : '',
      details: child?.inner ? body(child.inner) : '',
      output: [out?.inner ? body(out.inner) : '', err?.inner ? body(err.inner) : '']
        .filter(Boolean)
        .join('\n'),
    });
  }
  return cases;
}

const BANNER = /^-{3,} Captured \w+ -{3,}$/;

/** Drops pytest's empty "Captured Log/Out/Err" banners, which only add noise to a verdict. */
export function dropEmptyCaptures(text: string): string {
  const lines = text.split('\n');
  const kept: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!BANNER.test(lines[i].trim())) {
      kept.push(lines[i]);
      continue;
    }
    let j = i + 1;
    while (j < lines.length && lines[j].trim() === '') j++;
    // A banner followed only by blank lines up to the next banner or the end is empty.
    if (j === lines.length || BANNER.test(lines[j].trim())) i = j - 1;
    else kept.push(lines[i]);
  }
  return kept.join('\n').trim();
}
