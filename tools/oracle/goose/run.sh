#!/usr/bin/env bash
# Regenerate fixtures/goose/* by running the real Goose (npm `@aaif/goose-binary-linux-x64`,
# pinned below) headless against tools/oracle/scripted_model.py, so every byte of structure in
# the session store is Goose's own while the model's text is canned. Not run by CI: the goldens
# are committed. Needs root (for a private mount namespace), node/npm and python3; nothing of
# $HOME is read or written.
#
#   tools/oracle/goose/run.sh                 # two sessions: short (one tool call) and long
#   KEEP_WORK=1 tools/oracle/goose/run.sh     # keeps the temp dir (model requests, logs)
#
# Goose keeps its sessions in SQLite `sessions.db`; it is copied after
# `PRAGMA wal_checkpoint(TRUNCATE)`, `journal_mode=DELETE` and a `VACUUM` into 1 KiB pages,
# into fixtures/goose/<name>/sessions.db.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
REPO="$(cd "$HERE/../../.." && pwd)"
VERSION="${GOOSE_VERSION:-1.52.0}"
WORK="$(mktemp -d)"; echo "work: $WORK"
# The project's path, as the recorded sessions name it: GOOSE_ORACLE_PROJECT (default
# /tmp/project, where the committed goldens were recorded; a rerun must use it to match them).
PROJECT="${GOOSE_ORACLE_PROJECT:-/tmp/project}"
OUT="$REPO/fixtures/goose"
trap 'kill "${MODEL_PID:-0}" 2>/dev/null || true; [ -n "${KEEP_WORK:-}" ] || rm -rf "$WORK"' EXIT

(cd "$WORK" && npm install --silent --no-audit --no-fund --prefix "$WORK" "@aaif/goose-binary-linux-x64@$VERSION" >/dev/null)
BIN="$WORK/node_modules/@aaif/goose-binary-linux-x64/bin/goose"

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# One session: $1 name, $2 script, $3 prompt.
run() {
  local name="$1" script="$2" prompt="$3"
  local home="$WORK/home-$name" port
  port="$(free_port)"
  local project="$WORK/project-$name"
  mkdir -p "$project" "$home/.config/goose"
  printf 'def add(a, b):\n    return a + b\n' > "$project/calc.py"
  printf '# Demo\n\nA tiny demo project.\n' > "$project/README.md"
  for i in $(seq 1 20); do printf 'Note %02d: the quick brown fox jumps over the lazy dog.\n' "$i"; done > "$project/notes.txt"
  python3 "$REPO/tools/oracle/scripted_model.py" --port "$port" --script "$HERE/$script" \
    --log-dir "$WORK/requests-$name" --tools-only --side-text "Scripted summary" &
  MODEL_PID=$!
  sleep 1
  mkdir -p "$PROJECT"
  unshare --mount --propagation private sh -c 'mount --bind "$1" "$2" && cd "$2" && shift 2 && exec "$@"' \
    sh "$project" "$PROJECT" env -i PATH="$PATH" HOME="$home" XDG_CONFIG_HOME="$home/.config" \
    XDG_DATA_HOME="$home/.local/share" XDG_CACHE_HOME="$home/.cache" XDG_STATE_HOME="$home/.local/state" \
    GOOSE_PROVIDER=openai OPENAI_HOST="http://127.0.0.1:$port" OPENAI_API_KEY=none \
    GOOSE_MODEL=scripted GOOSE_MODE=auto GOOSE_DISABLE_KEYRING=1 GOOSE_TELEMETRY_ENABLED=false \
    "$BIN" run --with-builtin developer -t "$prompt" >"$WORK/$name.out" 2>"$WORK/$name.err" || true
  kill "$MODEL_PID"; wait "$MODEL_PID" 2>/dev/null || true
  local db
  db="$(find "$home" -name sessions.db | head -1)"
  python3 - "$db" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
db.execute("PRAGMA journal_mode=DELETE")
db.execute("PRAGMA page_size=1024")
db.execute("VACUUM")
db.close()
PY
  rm -rf "${OUT:?}/$name"
  mkdir -p "$OUT/$name"
  cp "$db" "$OUT/$name/sessions.db"
  echo "$name: $(ls "$WORK/requests-$name" | wc -l) model requests"
}

run short short.json "What does calc.py do?"
run long long.json "Explain this project: the code, the docs and the notes."
