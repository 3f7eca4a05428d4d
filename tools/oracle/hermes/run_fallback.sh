#!/usr/bin/env bash
# Regenerate fixtures/oracle/hermes-fallback/* from the real hermes-agent 0.19.0 ContextCompressor
# with a summarizer that fails as it does when no provider is configured. Same virtualenv and
# requirements as run.sh. Extra args are case function names (e.g. c_long_turns).
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
VENV="${HERMES_ORACLE_VENV:-${TMPDIR:-/tmp}/ctxray-hermes-oracle-venv}"
PY="${PYTHON:-}"
if [ -z "$PY" ]; then
  for c in python3.12 python3; do
    if command -v "$c" >/dev/null 2>&1; then PY="$c"; break; fi
  done
fi
if [ ! -x "$VENV/bin/python" ]; then
  "$PY" -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --upgrade pip
fi
"$VENV/bin/pip" install --quiet -r "$HERE/requirements.txt"
cd "$HERE"
exec "$VENV/bin/python" "$HERE/make_fallback_goldens.py" "$@"
