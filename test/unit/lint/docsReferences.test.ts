import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { commands as cliCommands } from '../../../src/cli/commands/index';

// out/test/unit/lint → the repository root.
const ROOT = path.resolve(__dirname, '..', '..', '..', '..');

interface Contributes {
  configuration: { properties: Record<string, unknown> };
  commands: { command: string; title: string }[];
  views: Record<string, { id: string }[]>;
  walkthroughs: { id: string }[];
  menus: { commandPalette?: { command: string; when?: string }[] };
}
const contributes = (
  JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { contributes: Contributes }
).contributes;

/** Every id a reader can type or look up: settings, commands, views and walkthroughs. */
const ids = new Set([
  ...Object.keys(contributes.configuration.properties),
  ...contributes.commands.map((c) => c.command),
  ...Object.values(contributes.views).flatMap((views) => views.map((v) => v.id)),
  ...contributes.walkthroughs.map((w) => w.id),
]);
/** The titles a person finds in the Command Palette: those hidden there (`when: false`) are for buttons and automation. */
const hidden = new Set(
  (contributes.menus.commandPalette ?? []).filter((m) => m.when === 'false').map((m) => m.command),
);
const paletteTitles = contributes.commands.filter((c) => !hidden.has(c.command)).map((c) => c.title);

/** The pages a person reads: the README, docs/, the walkthrough and every area's README. */
function pages(): string[] {
  let tracked: string[] = [];
  try {
    tracked = execFileSync('git', ['ls-files', '*.md'], { cwd: ROOT, encoding: 'utf8', stdio: 'pipe' })
      .split('\n')
      .filter(Boolean);
  } catch {
    // outside a git checkout: the folders below
  }
  const listed = ['docs', path.join('media', 'walkthrough')].flatMap((dir) =>
    fs.existsSync(path.join(ROOT, dir))
      ? fs.readdirSync(path.join(ROOT, dir)).map((f) => path.join(dir, f))
      : [],
  );
  return [...new Set(['README.md', ...tracked, ...listed])].filter(
    (f) =>
      f.endsWith('.md') &&
      // Prompts and examples are model input and sample documents, not documentation.
      !/^(examples|prompts|bench\/prompts)\//.test(f) &&
      fs.existsSync(path.join(ROOT, f)),
  );
}

/** Strings of the sources: a versioned file's schema name (`stepwise.learned-scorer`) is one. */
function sourceText(): string {
  const walk = (dir: string): string[] =>
    fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
      const file = path.join(dir, e.name);
      return e.isDirectory() ? walk(file) : /\.(ts|py)$/.test(e.name) ? [fs.readFileSync(file, 'utf8')] : [];
    });
  return ['src', 'trainer', 'python']
    .filter((d) => fs.existsSync(path.join(ROOT, d)))
    .flatMap((d) => walk(path.join(ROOT, d)))
    .join('\n');
}

test('every stepwise.* setting, command, view or file schema the docs name exists', () => {
  const sources = sourceText();
  const wrong: string[] = [];
  for (const page of pages()) {
    const text = fs.readFileSync(path.join(ROOT, page), 'utf8');
    // Not part of a path or a file name (bin/stepwise.js), and not the extension's id.
    for (const m of text.matchAll(/(?<![\w/.@-])stepwise\.[A-Za-z][\w.-]*\w/g)) {
      const id = m[0];
      const known =
        ids.has(id) ||
        // A section or a command group (`stepwise.prove`, ARCHITECTURE.md's prefixes).
        [...ids].some((k) => k.startsWith(`${id}.`)) ||
        // A file schema: a string the code writes and checks.
        (id.includes('-') && (sources.includes(`'${id}'`) || sources.includes(`"${id}"`)));
      if (!known) wrong.push(`${page}: ${id}`);
    }
  }
  assert.deepEqual(wrong, [], 'named in the docs, not contributed by package.json (renamed or removed?)');
});

test('every "Stepwise: Title" the docs tell a reader to run is a command of the palette', () => {
  const wrong: string[] = [];
  for (const page of pages()) {
    const text = fs.readFileSync(path.join(ROOT, page), 'utf8');
    for (const m of text.matchAll(/(\*\*|\*|")Stepwise: ([^*"\n]+?)\1/g)) {
      const named = m[2].replace(/\s+/g, ' ');
      // A title may be shortened before its parenthesis: "Accept Generated Test (My Function Is Wrong)".
      if (!paletteTitles.some((t) => t === named || t.startsWith(`${named} (`)))
        wrong.push(`${page}: ${m[0]}`);
    }
  }
  assert.deepEqual(wrong, []);
});

test('every repository path the docs name in code style exists, and every pattern matches a file', () => {
  let tracked: string[] = [];
  try {
    tracked = execFileSync('git', ['ls-files'], { cwd: ROOT, encoding: 'utf8', stdio: 'pipe' }).split('\n');
  } catch {
    // outside a git checkout: patterns are not checked
  }
  const missing: string[] = [];
  for (const page of pages()) {
    const text = fs.readFileSync(path.join(ROOT, page), 'utf8');
    const code = [...text.matchAll(/```[\s\S]*?```|`[^`\n]+`/g)].map((m) => m[0]);
    for (const span of code)
      for (const m of span.matchAll(
        /(?<![\w./~-])((?:src|webview|scripts|bench|trainer|test|media|docs|python|prompts|examples)\/[\w./*<>-]*[\w/*>])/g,
      )) {
        const named = m[1];
        // Placeholders (bench/NAME.ts, runs/<name>/) and what a run writes (test-output/) are not files here.
        if (/[A-Z]{3,}|<|\.\.\./.test(named) || named.includes('test-output/')) continue;
        if (named.includes('*')) {
          const pattern = new RegExp(
            `^${named
              .replace(/[.+?^${}()|[\]\\]/g, '\\$&')
              .split('**/')
              .map((part) => part.replace(/\*/g, '[^/]*'))
              .join('(?:.*/)?')}`,
          );
          if (tracked.length && !tracked.some((f) => pattern.test(f))) missing.push(`${page}: ${named}`);
          continue;
        }
        const relative = path.join(path.dirname(page), named);
        if (!fs.existsSync(path.join(ROOT, named)) && !fs.existsSync(path.join(ROOT, relative)))
          missing.push(`${page}: ${named}`);
      }
  }
  assert.deepEqual(missing, []);
});

test('every stepwise command the docs show exists, with only the options its help lists', () => {
  const usage = new Map(cliCommands.map((c) => [c.name, c.usage]));
  const wrong: string[] = [];
  for (const page of pages()) {
    const text = fs.readFileSync(path.join(ROOT, page), 'utf8');
    // Command lines: code blocks (a trailing backslash continues a line; # starts a comment) and code spans.
    const blocks = [...text.matchAll(/```[\s\S]*?```/g)].map((m) =>
      m[0]
        .replace(/\\\n/g, ' ')
        .split('\n')
        .map((line) => line.replace(/\s#.*$/, '')),
    );
    const spans = [...text.replace(/```[\s\S]*?```/g, '').matchAll(/`([^`\n]+)`/g)].map((m) => m[1]);
    for (const line of [...blocks.flat(), ...spans]) {
      const m = /(?:^|\s)(?:npx )?stepwise ([a-z][\w-]*)(.*)$/.exec(line);
      if (!m) continue;
      const help = usage.get(m[1]);
      if (help === undefined) {
        wrong.push(`${page}: stepwise ${m[1]} (no such command)`);
        continue;
      }
      for (const flag of m[2].matchAll(/(?<![\w-])--[a-z][\w-]*/g))
        if (!new RegExp(`${flag[0]}(?![\\w-])`).test(help))
          wrong.push(`${page}: stepwise ${m[1]} ${flag[0]}`);
    }
  }
  assert.deepEqual(wrong, []);
});
