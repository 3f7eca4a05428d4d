#!/usr/bin/env bash
# Regenerate fixtures/oracle/hermes/* from the real hermes-agent 0.19.0 ContextCompressor.
# Creates a virtualenv under /tmp (override with HERMES_ORACLE_VENV), installs requirements.txt
# from PyPI, runs make_goldens.py. Extra args are case function names (e.g. c_unicode).
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
exec "$VENV/bin/python" "$HERE/make_goldens.py" "$@"
