#!/usr/bin/env bash
# Build a venv (in the temp directory unless VENV is set), install the pinned framework from PyPI, write the goldens.
# Usage: tools/oracle/pydantic_ai_harness/run.sh [case ...]
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
VENV="${VENV:-${TMPDIR:-/tmp}/ctxray-oracle-pydantic-ai-harness-venv}"
PY="${PYTHON:-}"
if [ -z "$PY" ]; then
  for c in python3.12 python3; do
    if "$c" -c 'import sys; assert sys.version_info >= (3, 10)' >/dev/null 2>&1; then PY="$c"; break; fi
  done
fi
if [ ! -x "$VENV/bin/python" ]; then
  "$PY" -m venv "$VENV"
fi
"$VENV/bin/pip" install -q --disable-pip-version-check -r "$HERE/requirements.txt"
exec "$VENV/bin/python" -W ignore::DeprecationWarning "$HERE/make_goldens.py" "$@"
