#!/usr/bin/env bash
# How long a new user waits: clones this repository's HEAD into a temporary folder and runs the
# README's main command, `bash scripts/start.sh`, with an empty home folder (so no npm cache, no
# model and no code-server from an earlier run), until it prints its URL; then stops the editor and
# writes bench/results/first-start.json with the seconds to the URL and to each set-up step.
# Debian packages are what this machine has: the JSON lists which of them were already installed.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
WORK=$(mktemp -d)
PORT=${STEPWISE_PORT:-8199}
trap 'pkill -f "bind-addr 127.0.0.1:$PORT" 2>/dev/null || true; rm -rf "$WORK"' EXIT
git clone -q "$ROOT" "$WORK/clone"
mkdir -p "$WORK/home"
LOG=$WORK/start.log
started=$(date +%s.%N)
# Each line of start.sh's output with the seconds since the start; stops at the URL line.
(cd "$WORK/clone" && HOME=$WORK/home STEPWISE_PORT=$PORT bash scripts/start.sh 2>&1) |
  while IFS= read -r line; do
    awk -v now="$(date +%s.%N)" -v t0="$started" -v line="$line" 'BEGIN { printf "%.1f\t%s\n", now - t0, line }' >>"$LOG"
    case "$line" in "Stepwise is running in VS Code at:"*)
      pkill -f "bind-addr 127.0.0.1:$PORT" || true
      break
      ;;
    esac
  done || true
packages=$(for p in bubblewrap libkrb5-dev python3-pytest; do dpkg -s "$p" >/dev/null 2>&1 && echo "$p"; done | paste -sd, -)
node - "$LOG" "$packages" "$(git rev-parse --short HEAD)" <<'JS'
const fs = require('fs');
const os = require('os');
const [log, packages, commit] = process.argv.slice(2);
const lines = fs.readFileSync(log, 'utf8').split('\n').filter(Boolean).map((l) => {
  const [t, ...rest] = l.split('\t');
  return { t: Number(t), text: rest.join('\t').replace(/\x1b\[[0-9;]*m/g, '') };
});
const url = lines.find((l) => l.text.startsWith('Stepwise is running in VS Code at:'));
const steps = lines.filter((l) => l.text.startsWith('==> ')).map((l) => ({ step: l.text.slice(4), startedAtS: l.t }));
const result = {
  benchmark: 'first-start',
  description:
    "Seconds from `bash scripts/start.sh` in a fresh clone, with an empty home folder (no npm cache, model or code-server), to the line that prints the editor's URL; startedAtS: when each set-up step began.",
  command: 'bash bench/first-start.sh',
  commit,
  date: new Date().toISOString(),
  machine: { cpus: os.cpus().length, cpu: os.cpus()[0]?.model ?? 'unknown', platform: `${os.platform()} ${os.arch()}` },
  debianPackagesAlreadyInstalled: packages ? packages.split(',') : [],
  secondsToUrl: url ? url.t : null,
  steps,
};
fs.writeFileSync('bench/results/first-start.json', JSON.stringify(result, null, 2) + '\n');
console.error(url ? `URL after ${url.t.toFixed(0)} s` : 'start.sh did not print its URL; see the steps in bench/results/first-start.json');
if (!url) process.exitCode = 1;
JS
