#!/usr/bin/env bash
# Regenerate the Agent Framework oracle goldens (fixtures/oracle/agent-framework*/).
# Creates one virtualenv per framework version under $AF_ORACLE_VENVS (default: the temp
# directory), installs the pinned requirements from PyPI, and runs make_goldens.py in each.
# The interpreter is $PYTHON, else python3.12, else python3.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
PY="${PYTHON:-}"
if [ -z "$PY" ]; then
  if command -v python3.12 >/dev/null; then PY=python3.12
  else PY=python3; fi
fi
VENVS="${AF_ORACLE_VENVS:-${TMPDIR:-/tmp}}"
for spec in "1.23:requirements.txt" "1.17:requirements-1.17.txt"; do
  ver="${spec%%:*}"; req="${spec#*:}"
  venv="$VENVS/af-venv-$ver"
  if [ ! -x "$venv/bin/python" ]; then
    "$PY" -m venv "$venv"
  fi
  "$venv/bin/pip" install -q -r "$HERE/$req"
  "$venv/bin/python" "$HERE/make_goldens.py"
done
