#!/usr/bin/env bash
# The README's test command: installs whatever a fresh machine lacks, then runs every test layer
# (lint, unit, trainer, integration in the real extension host, UI in a real browser).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
node scripts/test-all.mjs "$@"
