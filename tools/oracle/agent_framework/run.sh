#!/usr/bin/env bash
# Regenerate the Agent Framework oracle goldens (fixtures/oracle/agent-framework*/).
# Creates one virtualenv per framework version under /tmp, installs the pinned
# requirements from PyPI, and runs make_goldens.py in each.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
PY="${PYTHON:-}"
if [ -z "$PY" ]; then
  if [ -x "$HOME/.pyenv/versions/3.12.1/bin/python" ]; then PY="$HOME/.pyenv/versions/3.12.1/bin/python"
  elif command -v python3.12 >/dev/null; then PY=python3.12
  else PY=python3; fi
fi
for spec in "1.23:requirements.txt" "1.17:requirements-1.17.txt"; do
  ver="${spec%%:*}"; req="${spec#*:}"
  venv="/tmp/af-venv-$ver"
  if [ ! -x "$venv/bin/python" ]; then
    "$PY" -m venv "$venv"
  fi
  "$venv/bin/pip" install -q -r "$HERE/$req"
  "$venv/bin/python" "$HERE/make_goldens.py"
done
