#!/usr/bin/env bash
# Regenerate fixtures/opencode/* by running the real opencode (npm `opencode-ai`, pinned below)
# headless against tools/oracle/scripted_model.py, so every byte of structure in the session
# files is opencode's own while the model's text is canned. Not run by CI: the goldens are
# committed. Needs root (for a private mount namespace), node/npm (the registry reachable) and
# python3; nothing of $HOME is read or written.
#
#   tools/oracle/opencode/run.sh     # both sessions: short (one tool call) and long
#   tools/oracle/opencode/run.sh db  # the same two with current opencode: its SQLite opencode.db
#   KEEP_WORK=1 tools/oracle/opencode/run.sh   # keeps the temp dir (model requests, logs)
#
# Without an argument, opencode 1.1.65 writes its JSON storage, copied into fixtures/opencode/
# <name>/. With `db`, opencode 1.18.33 writes only opencode.db (in WAL mode); it is copied after
# `PRAGMA wal_checkpoint(TRUNCATE)`, `journal_mode=DELETE` and a `VACUUM` into 1 KiB pages (so
# the one file holds everything, and its ~40 empty tables take little room), into
# fixtures/opencode/db/<name>/opencode.db.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
REPO="$(cd "$HERE/../../.." && pwd)"
MODE="${1:-storage}"
if [ "$MODE" = db ]; then DEFAULT_VERSION=1.18.33; else DEFAULT_VERSION=1.1.65; fi
VERSION="${OPENCODE_VERSION:-$DEFAULT_VERSION}"
WORK="$(mktemp -d)"; echo "work: $WORK"
# The project's path, as the recorded sessions name it: OPENCODE_ORACLE_PROJECT (default
# /tmp/project, where the committed goldens were recorded; a rerun must use it to match them).
PROJECT="${OPENCODE_ORACLE_PROJECT:-/tmp/project}"
OUT="$REPO/fixtures/opencode"
[ "$MODE" = db ] && OUT="$OUT/db"
trap 'kill "${MODEL_PID:-0}" 2>/dev/null || true; [ -n "${KEEP_WORK:-}" ] || rm -rf "$WORK"' EXIT

(cd "$WORK" && npm install --silent --no-audit --no-fund "opencode-ai@$VERSION" >/dev/null)
BIN="$(ls "$WORK"/node_modules/opencode-linux-x64/bin/opencode)"

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# One session: $1 name, $2 script, $3 context limit, $4 prompt.
run() {
  local name="$1" script="$2" context="$3" prompt="$4"
  local home="$WORK/home-$name" port
  port="$(free_port)"
  local project="$WORK/project-$name"
  mkdir -p "$project" "$home/.config/opencode"
  printf 'def add(a, b):\n    return a + b\n' > "$project/calc.py"
  printf '# Demo\n\nA tiny demo project.\n' > "$project/README.md"
  for i in $(seq 1 60); do printf 'Note %02d: the quick brown fox jumps over the lazy dog.\n' "$i"; done > "$project/notes.txt"
  cat > "$home/.config/opencode/opencode.json" <<JSON
{
  "\$schema": "https://opencode.ai/config.json",
  "provider": {
    "scripted": {
      "npm": "@ai-sdk/openai-compatible",
      "name": "Scripted",
      "options": {"baseURL": "http://127.0.0.1:$port/v1", "apiKey": "none"},
      "models": {"scripted": {"name": "Scripted", "limit": {"context": $context, "output": 1000}}}
    }
  },
  "model": "scripted/scripted",
  "small_model": "scripted/scripted",
  "autoupdate": false,
  "share": "disabled"
}
JSON
  python3 "$REPO/tools/oracle/scripted_model.py" --port "$port" --script "$HERE/$script" \
    --log-dir "$WORK/requests-$name" --tools-only --side-text "Scripted summary" &
  MODEL_PID=$!
  sleep 1
  # The project is mounted at $PROJECT in a mount namespace of its own, so the path the
  # session records is the same on every machine and no other $PROJECT is touched.
  mkdir -p "$PROJECT"
  unshare --mount --propagation private sh -c 'mount --bind "$1" "$2" && cd "$2" && shift 2 && exec "$@"' \
    sh "$project" "$PROJECT" env -i PATH="$PATH" HOME="$home" XDG_CONFIG_HOME="$home/.config" \
    XDG_DATA_HOME="$home/.local/share" XDG_CACHE_HOME="$home/.cache" XDG_STATE_HOME="$home/.local/state" \
    OPENCODE_DISABLE_MODELS_FETCH=1 OPENCODE_DISABLE_AUTOUPDATE=1 OPENCODE_DISABLE_LSP_DOWNLOAD=1 \
    OPENCODE_DISABLE_DEFAULT_PLUGINS=1 OPENCODE_DISABLE_CLAUDE_CODE=1 \
    "$BIN" run "$prompt" >"$WORK/$name.out" 2>"$WORK/$name.err"
  kill "$MODEL_PID"; wait "$MODEL_PID" 2>/dev/null || true
  local data="$home/.local/share/opencode"
  rm -rf "$OUT/$name"
  mkdir -p "$OUT/$name"
  if [ "$MODE" = db ]; then
    python3 - "$data/opencode.db" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
db.execute("PRAGMA journal_mode=DELETE")
db.execute("PRAGMA page_size=1024")
db.execute("VACUUM")
db.close()
PY
    cp "$data/opencode.db" "$OUT/$name/opencode.db"
  else
    (cd "$data/storage" && cp -r --parents session message part "$OUT/$name/")
  fi
  echo "$name: $(find "$OUT/$name" -type f | wc -l) files, $(ls "$WORK/requests-$name" | wc -l) model requests"
}

run short short.json 200000 "What does calc.py do?"
# A small context window, so the read of notes.txt overflows it and opencode compacts.
run long long.json 4000 "Explain this project: the code, the docs and the notes."
