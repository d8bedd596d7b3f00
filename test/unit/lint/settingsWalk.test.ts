import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';

// out/test/unit/lint → the repository root.
const ROOT = path.resolve(__dirname, '..', '..', '..', '..');
const SETTINGS_MODULE = path.join(ROOT, 'src', 'vscode', 'settings.ts');

const declared = Object.keys(
  (
    JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
      contributes: { configuration: { properties: Record<string, unknown> } };
    }
  ).contributes.configuration.properties,
).map((key) => key.replace(/^stepwise\./, ''));

function sourcesUnder(dir: string): { file: string; text: string }[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourcesUnder(file);
    return /\.tsx?$/.test(entry.name) ? [{ file, text: fs.readFileSync(file, 'utf8') }] : [];
  });
}

const settingsSource = fs.readFileSync(SETTINGS_MODULE, 'utf8');
const glue = sourcesUnder(path.join(ROOT, 'src', 'vscode')).filter((s) => s.file !== SETTINGS_MODULE);

test('every declared setting is read by readSettings, and readSettings reads no undeclared key', () => {
  const read = [...settingsSource.matchAll(/\bg\('([\w.]+)'\)/g)].map((m) => m[1]);
  assert.deepEqual(
    declared.filter((key) => !read.includes(key)),
    [],
    'declared in package.json, never read',
  );
  assert.deepEqual(
    read.filter((key) => !declared.includes(key)),
    [],
    'read, not declared in package.json',
  );
});

test('no code reads or writes settings around the settings module', () => {
  const around = [...glue, ...sourcesUnder(path.join(ROOT, 'src', 'core'))]
    .filter((s) => /getConfiguration\(/.test(s.text))
    .map((s) => path.relative(ROOT, s.file));
  assert.deepEqual(around, []);
});

test('every setting readSettings returns is used by a feature', () => {
  // readSettings mirrors the keys: `model.onnx.threads` is `settings.model.onnx.threads`. A use is
  // the setting's last two names as a property path (`onnx.threads`), or its last name read from
  // an object bound to its parent (`const s = readSettings().model; … s.contextWindow`).
  const text = glue.map((s) => s.text).join('\n');
  const unused = declared.filter((key) => {
    const names = key.split('.');
    const leaf = names[names.length - 1];
    const parentPath = names.slice(0, -1).join('.');
    if (text.includes(`.${names.slice(-2).join('.')}`)) return false;
    const boundToParent = new RegExp(
      `(\\w+) = readSettings\\(\\)\\.${parentPath.replace(/\./g, '\\.')};`,
      'g',
    );
    return ![...text.matchAll(boundToParent)].some((m) => text.includes(`${m[1]}.${leaf}`));
  });
  assert.deepEqual(unused, []);
});
