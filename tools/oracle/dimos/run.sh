#!/usr/bin/env bash
# Regenerate fixtures/oracle/dimos/* from dimos' real compact_history.
# Usage: tools/oracle/dimos/run.sh --module PATH/TO/dimos/agents/compaction.py [case ...]
#        (or DIMOS_COMPACTION_PY=PATH tools/oracle/dimos/run.sh [case ...]); see README.md.
# The virtualenv goes to $DIMOS_ORACLE_VENV (default: a cache directory under $HOME).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
VENV="${DIMOS_ORACLE_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/ctxray-dimos-oracle-venv}"
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
exec "$VENV/bin/python" "$HERE/make_goldens.py" "$@"
