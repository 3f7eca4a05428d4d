#!/usr/bin/env bash
# Regenerate fixtures/copilot-cli/*.jsonl: sessions written by the real GitHub Copilot CLI
# (npm @github/copilot, pinned below), run headless against tools/oracle/scripted_model.py.
#
# The CLI runs offline in its documented bring-your-own-key mode (COPILOT_OFFLINE=true,
# COPILOT_PROVIDER_BASE_URL at the scripted model on loopback, OpenAI Chat Completions): no
# GitHub login, no network. It runs in a mount namespace of its own with a private tmpfs over
# COPILOT_ORACLE_PRIVATE (default /tmp, where the committed goldens were recorded), so the paths
# it records are the same on every machine (the project is $PRIVATE/project, HOME is
# $PRIVATE/home; the model scripts name the project as @PROJECT@) and nothing of this
# machine's home or that directory is read or written. Needs root (unshare -m), node/npm and
# python3; the repository must not live under that directory.
#
# Sessions (each its own script of model turns, *.json here):
#   tools            parallel views, an edit, a bash command, reasoning text
#   failing-compact  a view of a missing file, then a failing bash command and a grep in
#                    parallel; the session is then resumed with `/compact`, so the compaction
#                    events are on record (compact.json: the summary the model returns), and
#                    resumed once more for a question answered after the compaction
#   subagent         a `task` call: an explore sub-agent (its own view call and answer) inside
#                    the main session's file
#
# COPILOT_ORACLE_REQUESTS=DIR (outside the private directory) keeps the request bodies the model
# was sent.
#
# Not run by CI: the goldens are committed. The model's text is canned, so re-running gives
# files of the same shape (ids, timestamps and durations differ).
set -euo pipefail
VERSION=1.0.102
HERE="$(cd "$(dirname "$0")" && pwd)"
REPO="$(cd "$HERE/../../.." && pwd)"
OUT="$REPO/fixtures/copilot-cli"
PRIVATE="${COPILOT_ORACLE_PRIVATE:-/tmp}"
case "$REPO/" in "$PRIVATE"/*) echo "run.sh: the repository must not be under $PRIVATE" >&2; exit 1 ;; esac

if [ -z "${COPILOT_ORACLE_INNER:-}" ]; then
  exec unshare -m --propagation private env COPILOT_ORACLE_INNER=1 bash "$0" "$@"
fi
mkdir -p "$PRIVATE"
mount -t tmpfs tmpfs "$PRIVATE"
[ "$(findmnt -n -o FSTYPE "$PRIVATE")" = tmpfs ] || { echo "run.sh: no private $PRIVATE" >&2; exit 1; }

# Everything the run writes lives under the private tmpfs just mounted, at fixed names: the
# goldens record the project's and the home's paths, so a rerun must give the same ones.
WORK="$PRIVATE/work"
HOME_DIR="$PRIVATE/home"
SERVER=
trap '[ -z "$SERVER" ] || kill "$SERVER" 2>/dev/null || true' EXIT
mkdir -p "$WORK/scripts" "$HOME_DIR" "$PRIVATE/project"
npm_config_cache="$WORK/npm-cache" npm install --silent --no-audit --no-fund \
  --prefix "$WORK/npm" "@github/copilot@$VERSION" >/dev/null
COPILOT="$WORK/npm/node_modules/.bin/copilot"

project() {
  rm -rf "$PRIVATE/project"
  mkdir -p "$PRIVATE/project"
  printf 'def add(a, b):\n    return a + b\n' >"$PRIVATE/project/calc.py"
  printf '# demo\nA tiny calculator.\n' >"$PRIVATE/project/README.md"
}

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# run NAME SCRIPT [copilot args...]: one copilot invocation against a fresh scripted model, its
# script's @PROJECT@ made the project's path.
run() {
  local name="$1" script="$WORK/scripts/$1.json"
  sed "s#@PROJECT@#$PRIVATE/project#g" "$2" >"$script"
  shift 2
  local port
  port="$(free_port)"
  python3 "$REPO/tools/oracle/scripted_model.py" --port "$port" --script "$script" \
    --log-dir "$WORK/requests/$name" &
  SERVER=$!
  sleep 1
  (
    cd "$PRIVATE/project"
    env -i PATH="$PATH" TERM=dumb HOME="$HOME_DIR" XDG_CONFIG_HOME="$HOME_DIR/.config" \
      XDG_CACHE_HOME="$HOME_DIR/.cache" XDG_STATE_HOME="$HOME_DIR/.local/state" \
      COPILOT_AUTO_UPDATE=false COPILOT_OFFLINE=true \
      COPILOT_PROVIDER_BASE_URL="http://127.0.0.1:$port/v1" COPILOT_PROVIDER_API_KEY=scripted \
      COPILOT_MODEL=scripted \
      "$COPILOT" "$@" >"$WORK/$name.out" 2>&1
  )
  kill "$SERVER"
  wait "$SERVER" 2>/dev/null || true
  SERVER=
}

# The session id the CLI printed for NAME's run (`Resume  copilot --resume=<id>`).
session_of() {
  sed -n 's/.*--resume=\([0-9a-f-]*\).*/\1/p' "$WORK/$1.out" | tail -1
}

mkdir -p "$OUT"
project
run tools "$HERE/tools.json" -p "Add a sub(a, b) function to calc.py and check it." --allow-all-tools
id="$(session_of tools)"
cp "$HOME_DIR/.copilot/session-state/$id/events.jsonl" "$OUT/tools.jsonl"

project
run failing "$HERE/failing.json" -p "Read notes.md, run the check and list the functions." --allow-all-tools
id="$(session_of failing)"
run compact "$HERE/compact.json" --resume="$id" -p "/compact" --allow-all-tools
run after "$HERE/after.json" --resume="$id" -p "Which functions does calc.py define?" --allow-all-tools
cp "$HOME_DIR/.copilot/session-state/$id/events.jsonl" "$OUT/failing-compact.jsonl"
project
run subagent "$HERE/subagent.json" -p "Use an explore agent to list the functions in calc.py." --allow-all-tools
id="$(session_of subagent)"
cp "$HOME_DIR/.copilot/session-state/$id/events.jsonl" "$OUT/subagent.jsonl"

# The CLI's system prompts are GitHub's text: each is replaced by a line saying what was there.
python3 "$HERE/redact.py" "$VERSION" "$OUT/tools.jsonl" "$OUT/failing-compact.jsonl" "$OUT/subagent.jsonl"

if [ -n "${COPILOT_ORACLE_REQUESTS:-}" ]; then
  mkdir -p "$COPILOT_ORACLE_REQUESTS"
  cp -r "$WORK/requests/." "$COPILOT_ORACLE_REQUESTS/"
fi
ls -l "$OUT"
