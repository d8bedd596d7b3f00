#!/usr/bin/env bash
# UI layer: packages the VSIX, installs it into a fresh code-server and drives the workbench in
# headless chromium through every out/test/ui/*.spec.js, resetting the workbench before each.
# STEPWISE_TEST_GREP=<part of a name> filters; STEPWISE_TEST_SHUFFLE=<seed|random> runs the tests
# in a seeded random order (printed with the seed, so a failing order can be replayed).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-code-server.sh
npx tsc -p tsconfig.json >/dev/null || echo "tsc reported type errors (see npx tsc --noEmit); running the emitted tests anyway." >&2
bash scripts/package-vsix.sh
exec node out/test/harness/runUi.js "$@"
