#!/usr/bin/env bash
# Records real Cline task histories (api_conversation_history.json) by running the Cline CLI,
# pinned below, headless against tools/oracle/scripted_model.py, and copies them into
# fixtures/cline/<case>.json. One case per script here: <case>.turns.json (the model's turns),
# <case>.model (the model id, which picks Cline's prompt variant: an id Cline does not know gets
# text/XML tool calls, `gpt-5` gets native tool calls) and <case>.prompt (the task).
#
# Usage: tools/oracle/cline/run.sh [CASE...]     (default: every *.turns.json here)
#
# The tool's cwd is $PRIVATE/project (recorded in the history's environment_details), so the
# run takes a private mount namespace with a tmpfs of its own over CLINE_ORACLE_PRIVATE
# (default /tmp, where the committed goldens were recorded; needs root, or `unshare -r`):
# other processes using that directory at the same time are not disturbed and do not disturb
# it. npm installs into CLINE_ORACLE_PREFIX (default target/oracle/cline in the repository);
# HOME and the Cline config live in the private directory, so nothing of this machine's home
# is read or written.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../../.." && pwd)"
VERSION=2.18.0
PREFIX="${CLINE_ORACLE_PREFIX:-$ROOT/target/oracle/cline}"
PRIVATE="${CLINE_ORACLE_PRIVATE:-/tmp}"

if [ "${CLINE_ORACLE_INSIDE:-}" != 1 ]; then
  if [ ! -f "$PREFIX/node_modules/cline/package.json" ] ||
    ! grep -q "\"version\": \"$VERSION\"" "$PREFIX/node_modules/cline/package.json"; then
    mkdir -p "$PREFIX"
    npm install --prefix "$PREFIX" --no-audit --no-fund --ignore-scripts "cline@$VERSION" >&2
  fi
  export CLINE_ORACLE_INSIDE=1
  if [ "$(id -u)" = 0 ]; then
    exec unshare -m --propagation private "$0" "$@"
  fi
  exec unshare -m -r --propagation private "$0" "$@"
fi

mkdir -p "$PRIVATE"
mount -t tmpfs tmpfs "$PRIVATE"
CLI="$PREFIX/node_modules/cline/dist/cli.mjs"
cases=("$@")
if [ ${#cases[@]} -eq 0 ]; then
  for f in "$HERE"/*.turns.json; do cases+=("$(basename "$f" .turns.json)"); done
fi
mkdir -p "$ROOT/fixtures/cline"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
for case in "${cases[@]}"; do
  rm -rf "$PRIVATE/project" "$PRIVATE/requests"
  home="$PRIVATE/home-$case"
  mkdir -p "$PRIVATE/project" "$home"
  printf 'def add(a, b):\n    return a + b\n' >"$PRIVATE/project/calc.py"
  printf '# Demo\n\nA tiny project with one function.\n' >"$PRIVATE/project/README.md"
  model="$(cat "$HERE/$case.model")"
  python3 "$ROOT/tools/oracle/scripted_model.py" --port "$port" --model "$model" \
    --script "$HERE/$case.turns.json" --log-dir "$PRIVATE/requests" >"$PRIVATE/model.log" 2>&1 &
  server=$!
  sleep 1
  (
    cd "$PRIVATE/project"
    export HOME="$home"
    node "$CLI" auth -p openai -k sk-scripted -m "$model" -b "http://127.0.0.1:$port/v1" >/dev/null
    node "$CLI" task -y --json --timeout 120 "$(cat "$HERE/$case.prompt")" >"$PRIVATE/cli.log" 2>&1 || true
  )
  kill "$server"
  wait "$server" 2>/dev/null || true
  found=("$home"/.cline/data/tasks/*/api_conversation_history.json)
  if [ ${#found[@]} -ne 1 ] || [ ! -f "${found[0]}" ]; then
    echo "$case: expected one task history, found: ${found[*]}" >&2
    tail -n 20 "$PRIVATE/cli.log" >&2
    exit 1
  fi
  cp "${found[0]}" "$ROOT/fixtures/cline/$case.json"
  if [ -n "${CLINE_ORACLE_KEEP:-}" ]; then
    mkdir -p "$CLINE_ORACLE_KEEP/$case"
    cp -r "$PRIVATE/requests" "$PRIVATE/cli.log" "$(dirname "${found[0]}")" "$CLINE_ORACLE_KEEP/$case/"
  fi
  echo "$case: fixtures/cline/$case.json ($(wc -c <"$ROOT/fixtures/cline/$case.json") bytes)"
done
