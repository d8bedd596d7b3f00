#!/usr/bin/env bash
# Runs the sandbox's unit tests (test/unit/sandbox, and the pipeline on the real sandbox) as an
# unprivileged user, the way most people run Stepwise: no pids cgroup, no root-owned interpreter,
# the confinement built from unprivileged user namespaces alone. Build first (npm run build).
#
# As root (CI), the user ($STEPWISE_UNPRIVILEGED_USER, default nobody) is created when missing,
# and a Python with pytest it can run is installed when there is none (python3-pytest, Debian).
# Run as any other user, the tests run as that user.
# With STEPWISE_UNIT_TAP=FILE, a TAP copy of the results is written there (for test-all.mjs).
set -euo pipefail
cd "$(dirname "$0")/.."

TESTS=(out/test/unit/sandbox/*.test.js out/test/unit/tests/pipelineSandbox.test.js)
if [ ! -e "${TESTS[0]}" ]; then
  echo "run-sandbox-tests-unprivileged: the tests are not built; run npm run build first." >&2
  exit 2
fi
REPORTERS=(--test-reporter=spec --test-reporter-destination=stderr)
[ -n "${STEPWISE_UNIT_TAP:-}" ] && REPORTERS+=(--test-reporter=tap --test-reporter-destination=stdout)
NODE="$(command -v node)"

run_tests() {
  # stdout carries the TAP copy (if asked for); the readable report goes to stderr.
  if [ -n "${STEPWISE_UNIT_TAP:-}" ]; then
    mkdir -p "$(dirname "$STEPWISE_UNIT_TAP")"
    "$@" >"$STEPWISE_UNIT_TAP"
  else
    "$@"
  fi
}

if [ "$(id -u)" -ne 0 ]; then
  run_tests "$NODE" --test --test-concurrency=1 "${REPORTERS[@]}" "${TESTS[@]}"
  exit
fi

USER_NAME="${STEPWISE_UNPRIVILEGED_USER:-nobody}"
if ! id "$USER_NAME" >/dev/null 2>&1; then
  useradd --system --no-create-home --shell /usr/sbin/nologin "$USER_NAME"
fi
USER_ID="$(id -u "$USER_NAME")"
GROUP_ID="$(id -g "$USER_NAME")"
as_user() { setpriv --reuid="$USER_ID" --regid="$GROUP_ID" --clear-groups --reset-env -- "$@"; }

# The project's venv may live under root's home, out of the user's reach: use a Python it can
# run, with pytest (the in-process path needs it; the oracle path does not).
PYTHON="${STEPWISE_UNPRIVILEGED_PYTHON:-/usr/bin/python3}"
if ! as_user "$PYTHON" -c 'import pytest' >/dev/null 2>&1; then
  if [ "$PYTHON" = /usr/bin/python3 ] && command -v apt-get >/dev/null; then
    echo "run-sandbox-tests-unprivileged: installing python3-pytest for $USER_NAME" >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3-pytest >/dev/null
  else
    echo "run-sandbox-tests-unprivileged: $PYTHON has no pytest that $USER_NAME can import." >&2
    exit 2
  fi
fi

HOME_DIR="$(mktemp -d /tmp/stepwise-unprivileged-home-XXXXXX)"
trap 'rm -rf "$HOME_DIR"' EXIT
chown "$USER_ID:$GROUP_ID" "$HOME_DIR"
run_tests as_user env HOME="$HOME_DIR" PATH="$(dirname "$NODE"):/usr/local/bin:/usr/bin:/bin" \
  STEPWISE_PYTHON="$PYTHON" "$NODE" --test --test-concurrency=1 "${REPORTERS[@]}" "${TESTS[@]}"
