// Writes package.json's contributes.configuration and docs/settings.md from the one settings schema
// (src/core/settings/schema.ts, compiled to out/ first: `npm run gen:settings` does both).
//   node scripts/gen-settings.mjs [--check]    (--check: exit 1, naming each difference, when either is stale)
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const { configurationFromSchema, configurationDrift, settingsPage } = require(
  path.join(root, 'out', 'src', 'core', 'settings', 'contributes.js'),
);

const packagePath = path.join(root, 'package.json');
const pagePath = path.join(root, 'docs', 'settings.md');
const pkg = JSON.parse(fs.readFileSync(packagePath, 'utf8'));
const config = configurationFromSchema();
const page = settingsPage(config);

if (process.argv.includes('--check')) {
  const drift = configurationDrift(pkg.contributes.configuration, config);
  const pageStale = !fs.existsSync(pagePath) || fs.readFileSync(pagePath, 'utf8') !== page;
  for (const line of drift) console.error(line);
  if (pageStale) console.error('docs/settings.md is out of date');
  if (drift.length || pageStale) {
    console.error('Run npm run gen:settings.');
    process.exit(1);
  }
} else {
  pkg.contributes.configuration = config;
  fs.writeFileSync(packagePath, `${JSON.stringify(pkg, null, 2)}\n`);
  fs.writeFileSync(pagePath, page);
  console.log(`package.json and docs/settings.md: ${Object.keys(config.properties).length} settings`);
}
