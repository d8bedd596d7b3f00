import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { commands as cliCommands } from '../../../src/cli/commands/index';
import { RENAMED_COMMANDS } from '../../../src/vscode/commandAliases';

// out/test/unit/lint → the repository root.
const ROOT = path.resolve(__dirname, '..', '..', '..', '..');

interface FeatureRow {
  name: string;
  uiTitle: string;
  commandPrefix: string | null;
  cli: string[];
  settings: string[];
  core: string[];
  glue: string[];
  webview: string[];
  protocol: string[];
}

/** The cells of a column: the backticked entries, none for `—`. */
const entries = (cell: string): string[] => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]);

/** ARCHITECTURE.md's names table and its line of shared settings sections. */
function namesTable(): { rows: FeatureRow[]; sharedSettings: string[] } {
  const text = fs.readFileSync(path.join(ROOT, 'ARCHITECTURE.md'), 'utf8');
  const section = text.split('\n## One name per feature\n')[1]?.split('\n## ')[0];
  assert.ok(section, 'ARCHITECTURE.md has no "## One name per feature" section');
  const rows = section
    .split('\n')
    .filter((l) => l.startsWith('| ') && !l.startsWith('| feature ') && !l.startsWith('|---'))
    .map((line): FeatureRow => {
      const cells = line
        .split('|')
        .slice(1, -1)
        .map((c) => c.trim());
      assert.equal(cells.length, 9, `a names-table row has 9 cells: ${line}`);
      const [name, uiTitle, prefix, cli, settings, core, glue, webview, protocol] = cells;
      return {
        name,
        uiTitle,
        commandPrefix: entries(prefix)[0] ?? null,
        cli: entries(cli),
        settings: entries(settings),
        core: entries(core),
        glue: entries(glue),
        webview: entries(webview),
        protocol: entries(protocol),
      };
    });
  const shared = /^Shared settings sections:([\s\S]*?)\n\n/m.exec(section);
  assert.ok(shared, 'the section names the shared settings sections');
  return { rows, sharedSettings: entries(shared[1]) };
}

const squash = (s: string): string => s.toLowerCase().replace(/[^a-z0-9]/g, '');
/** Whether `value` (an id, a command, a file or folder name) starts with the feature's name. */
const named = (value: string, feature: string): boolean =>
  squash(value).startsWith(squash(feature).replace(/s$/, ''));

const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  contributes: {
    commands: { command: string; title: string }[];
    configuration: { properties: Record<string, unknown> } | { properties: Record<string, unknown> }[];
    keybindings: { command: string }[];
    menus: Record<string, { command: string }[]>;
  };
};
const contributed = pkg.contributes.commands;
const settingSections = new Set(
  [pkg.contributes.configuration]
    .flat()
    .flatMap((c) => Object.keys(c.properties))
    .map((key) => key.split('.').slice(0, 2).join('.')),
);

test('every command belongs to one feature by its id, and its title carries the feature name', () => {
  const { rows } = namesTable();
  for (const { command, title } of contributed) {
    const owners = rows.filter(
      (r) => r.commandPrefix && (command === r.commandPrefix || command.startsWith(`${r.commandPrefix}.`)),
    );
    assert.equal(owners.length, 1, `${command} must start with exactly one prefix of the names table`);
    const ui = owners[0].uiTitle.toLowerCase();
    assert.ok(
      title.toLowerCase().includes(ui) || title.toLowerCase().includes(ui.replace(/s$/, '')),
      `the title "${title}" of ${command} must contain "${owners[0].uiTitle}"`,
    );
  }
  for (const r of rows.filter((r) => r.commandPrefix)) {
    assert.ok(
      named(r.commandPrefix!.replace(/^stepwise\./, ''), r.name),
      `${r.commandPrefix} names ${r.name}`,
    );
    assert.ok(
      contributed.some((c) => c.command === r.commandPrefix || c.command.startsWith(`${r.commandPrefix}.`)),
      `no command of package.json starts with ${r.commandPrefix}`,
    );
  }
});

test('renamed command ids stay registered as aliases of contributed ones; menus and keys use the new ids', () => {
  const ids = new Set(contributed.map((c) => c.command));
  for (const [old, renamed] of Object.entries(RENAMED_COMMANDS)) {
    assert.ok(ids.has(renamed), `alias ${old} runs ${renamed}, which package.json does not contribute`);
    assert.ok(!ids.has(old), `${old} is renamed; contribute ${renamed} instead`);
  }
  const used = [...pkg.contributes.keybindings, ...Object.values(pkg.contributes.menus).flat()];
  for (const { command } of used)
    assert.ok(ids.has(command), `${command} in keybindings or menus is not a command`);
});

test('the CLI commands are the ones the names table lists, each named after its feature', () => {
  const { rows } = namesTable();
  const listed = rows.flatMap((r) => r.cli);
  assert.deepEqual([...listed].sort(), cliCommands.map((c) => c.name).sort());
  for (const r of rows.filter((r) => r.cli.length))
    assert.ok(named(r.cli[0], r.name), `CLI command ${r.cli[0]} should carry the name ${r.name}`);
});

test('every settings section belongs to one feature or is listed as shared', () => {
  const { rows, sharedSettings } = namesTable();
  const listed = [...rows.flatMap((r) => r.settings), ...sharedSettings];
  assert.deepEqual([...new Set(listed)].sort(), [...settingSections].sort());
  for (const r of rows.filter((r) => r.settings.length))
    assert.ok(named(r.settings[0].replace(/^stepwise\./, ''), r.name), `${r.settings[0]} names ${r.name}`);
});

test("each feature's folders exist under its name", () => {
  const { rows } = namesTable();
  const roots: [keyof FeatureRow, string][] = [
    ['core', 'src/core'],
    ['glue', 'src/vscode'],
    ['webview', 'webview'],
    ['protocol', 'src/shared/protocols'],
  ];
  for (const r of rows)
    for (const [column, root] of roots) {
      const paths = r[column] as string[];
      for (const p of paths)
        assert.ok(fs.existsSync(path.join(ROOT, root, p)), `${root}/${p} (${r.name}) is missing`);
      if (paths.length)
        assert.ok(
          named(path.basename(paths[0]), r.name),
          `${root}/${paths[0]} should carry the name ${r.name}`,
        );
    }
});
