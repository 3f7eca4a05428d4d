#!/usr/bin/env bash
# Creates a virtualenv under /tmp, installs requirements.txt from PyPI, runs make_goldens.py.
# Usage: tools/oracle/openhands/run.sh [--out DIR] [--only CASE...]
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
VENV="${OH_ORACLE_VENV:-${TMPDIR:-/tmp}/ctxray-oracle-openhands-venv}"
PY="${PYTHON:-}"
if [ -z "$PY" ]; then
  for c in python3.12 python3; do
    if command -v "$c" >/dev/null 2>&1; then PY="$c"; break; fi
  done
fi
if [ ! -x "$VENV/bin/python" ]; then
  "$PY" -m venv "$VENV"
fi
"$VENV/bin/pip" install -q --disable-pip-version-check -r "$HERE/requirements.txt"
# No network needed beyond PyPI: litellm uses its bundled model cost map; the set-valued
# Condensation.forgotten_event_ids is serialized in set order, so fix the hash seed.
export LITELLM_LOCAL_MODEL_COST_MAP=True OPENHANDS_SUPPRESS_BANNER=1 PYTHONHASHSEED=0
exec "$VENV/bin/python" "$HERE/make_goldens.py" "$@"
