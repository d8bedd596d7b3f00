#!/usr/bin/env bash
# Builds dist/stepwise-linux-x64.vsix: production bundles plus only the run-time files of the
# external dependencies, linux-x64 binaries only (see .vscodeignore). The README links docs/ by
# relative path, which vsce would otherwise refuse to package without a repository URL.
set -euo pipefail
cd "$(dirname "$0")/.."
node esbuild.mjs --production 2>/dev/null >/dev/null || node esbuild.mjs --production
out=dist/stepwise-linux-x64.vsix
rm -f "$out"
npx vsce package --target linux-x64 --out "$out" --skip-license --allow-missing-repository --no-rewrite-relative-links 2>&1 | grep -v "nodedir" >&2
size=$(du -h "$out" | cut -f1)
echo "VSIX: $out ($size)" >&2
# The development bundles (with source maps) come back for tests and debugging.
node esbuild.mjs 2>/dev/null >/dev/null || node esbuild.mjs
