#!/usr/bin/env node
'use strict';
// The CLI is compiled from src/cli by `npm run build`; this shim only finds it.
const path = require('node:path');
const fs = require('node:fs');
const entry = path.join(__dirname, '..', 'dist', 'cli.js');
if (!fs.existsSync(entry)) {
  process.stderr.write(
    'stepwise: the CLI is not built yet. Run `npm run build` in ' + path.dirname(__dirname) + '\n',
  );
  process.exit(2);
}
// runCli also removes sandbox folders on Ctrl-C and ends quietly when stdout's reader goes away.
require(entry).runCli(process.argv.slice(2));
