import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';

// out/test/unit/lint → the repository root.
const ROOT = path.resolve(__dirname, '..', '..', '..', '..');

/** The pages a reader follows from the README: the front door, docs/, and each area's own README. */
function pages(): string[] {
  // Outside a git checkout (an unpacked source archive) the front door and the areas' READMEs.
  let tracked = ['README.md', 'CONTRIBUTING.md', 'ARCHITECTURE.md', 'bench/README.md', 'trainer/README.md'];
  try {
    tracked = execFileSync('git', ['ls-files', '*.md'], { cwd: ROOT, encoding: 'utf8', stdio: 'pipe' })
      .split('\n')
      .filter(Boolean);
  } catch {
    // keep the fixed list
  }
  const untracked = fs.existsSync(path.join(ROOT, 'docs'))
    ? fs.readdirSync(path.join(ROOT, 'docs')).map((f) => `docs/${f}`)
    : [];
  return [...new Set([...tracked, ...untracked])].filter(
    (f) =>
      f.endsWith('.md') &&
      !/^(examples|prompts|bench\/prompts)\//.test(f) &&
      fs.existsSync(path.join(ROOT, f)),
  );
}

/** Relative link targets of one Markdown page (inline links and images; code spans and fences skipped). */
function relativeLinks(text: string): string[] {
  const prose = text.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  return [...prose.matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)]
    .map((m) => m[1])
    .filter((target) => !/^([a-z]+:|#)/i.test(target));
}

test("every relative link in the README, docs/ and the areas' READMEs points at a file in the repository", () => {
  const dead: string[] = [];
  for (const page of pages()) {
    const text = fs.readFileSync(path.join(ROOT, page), 'utf8');
    for (const target of relativeLinks(text)) {
      const file = path.resolve(path.dirname(path.join(ROOT, page)), decodeURI(target.split('#')[0]));
      if (!fs.existsSync(file)) dead.push(`${page}: ${target}`);
    }
  }
  assert.deepEqual(dead, []);
});

test('the README is a front door: at most 150 lines, linking every page under docs/', () => {
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  assert.ok(readme.split('\n').length <= 151, `README.md has ${readme.split('\n').length} lines`);
  const linked = new Set(relativeLinks(readme).map((t) => path.normalize(t.split('#')[0])));
  const docs = fs.readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md'));
  assert.deepEqual(
    docs.filter((f) => !linked.has(path.join('docs', f))),
    [],
  );
});

test("docs/evaluation.md's table of figures matches the checked-in results files", () => {
  // The script exits 1, saying which page is stale, when the table differs from bench/results/eval-*.json.
  execFileSync(process.execPath, [path.join(ROOT, 'bench', 'eval-figures.mjs'), '--check'], {
    stdio: 'pipe',
  });
});
