#!/usr/bin/env bash
# Regenerate fixtures/qwen-code/*.jsonl: real Qwen Code chat recordings, written by the real
# tool (npm @qwen-code/qwen-code, pinned below) run headless against tools/oracle/scripted_model.py,
# so the model's text is canned but every byte of each file's structure is Qwen Code's own.
#
# Installs the pinned version into a temp dir, starts the scripted model on a free loopback port
# for each case (<case>.json beside this script), runs `qwen -p PROMPT --yolo` in a scratch
# project (QWEN_ORACLE_PROJECT, default /tmp/project) with HOME inside the temp dir, and copies the chat recording
# (~/.qwen/projects/-tmp-project/chats/<sessionId>.jsonl) to fixtures/qwen-code/<case>.jsonl.
# When it can (root, `unshare`), each run gets a private tmpfs on the project's parent, so it
# neither touches nor sees anything another process keeps there. Not run by CI: the recordings are
# committed. Needs node (>= 20), npm, python3. KEEP_REQUESTS=<dir> keeps each case's model
# requests, stdout and stderr there.
#
#   tools/oracle/qwen/run.sh            # every case
#   tools/oracle/qwen/run.sh short      # one case
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../../.." && pwd)"
VERSION=0.15.10
OUT="$ROOT/fixtures/qwen-code"
# The scratch project's path, as the recordings name it: QWEN_ORACLE_PROJECT (default
# /tmp/project, where the committed recordings were made; a rerun must use it to match them).
# The private tmpfs is mounted on its parent.
PROJECT="${QWEN_ORACLE_PROJECT:-/tmp/project}"
# Outside /tmp (with `unshare` the runs get a private /tmp, see below): under the repository's
# target/, or QWEN_ORACLE_WORK.
mkdir -p "${QWEN_ORACLE_WORK:-$ROOT/target/oracle}"
WORK="$(mktemp -d -p "${QWEN_ORACLE_WORK:-$ROOT/target/oracle}" qwen.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT

npm install --silent --prefix "$WORK/npm" "@qwen-code/qwen-code@$VERSION" >/dev/null
QWEN="$WORK/npm/node_modules/.bin/qwen"

# Prompt and extra settings of each case.
prompt_of() {
  case "$1" in
    short) echo "What does this project do?" ;;
    tools) echo "Look around this project, run the script, and add a farewell script." ;;
    compress) echo "Explain what hello.py does and run it." ;;
  esac
}
# The compress case lowers the compression threshold so Qwen Code compresses the chat itself
# (model.chatCompression.contextPercentageThreshold: 9% of the default 131072-token window, which
# the scripted model's prompt tokens pass once notes.md and a long output are in) and writes its
# chat_compression record. Its summary request offers no tools and gets --side-text, a
# <state_snapshot> as Qwen Code's compression prompt asks for.
settings_of() {
  local extra=""
  [ "$1" = compress ] && extra=', "model": {"chatCompression": {"contextPercentageThreshold": 0.09}}'
  echo "{\"security\": {\"auth\": {\"selectedType\": \"openai\"}}, \"privacy\": {\"usageStatisticsEnabled\": false}, \"telemetry\": {\"enabled\": false}$extra}"
}

SNAPSHOT='<state_snapshot>
<overall_goal>Explain what hello.py does and run it.</overall_goal>
<key_knowledge>hello.py prints "hello"; notes.md asks for a short, friendly greeting.</key_knowledge>
<current_plan>1. [DONE] Read notes.md. 2. [TODO] Read hello.py and run it.</current_plan>
</state_snapshot>'

run_case() {
  local name="$1" dir="$WORK/$1" port
  mkdir -p "$dir/home/.qwen" "$dir/requests"
  settings_of "$name" > "$dir/home/.qwen/settings.json"
  port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
  python3 "$HERE/../scripted_model.py" --port "$port" --script "$HERE/$name.json" \
    --log-dir "$dir/requests" --tools-only --model scripted --side-text "$SNAPSHOT" \
    > "$dir/model.log" 2>&1 &
  local model=$!
  for _ in $(seq 50); do
    python3 -c "import socket; socket.create_connection(('127.0.0.1', $port), 1)" 2>/dev/null && break
    sleep 0.1
  done
  local body
  body="$(cat <<SH
if [ "\${PRIVATE:-}" = 1 ]; then mount -t tmpfs tmpfs "$(dirname "$PROJECT")"; fi
mkdir -p "$PROJECT"
cd "$PROJECT"
printf '# hello\n\nA tiny greeting script.\n' > README.md
printf 'print("hello")\n' > hello.py
for i in \$(seq 80); do echo "- note \$i: the greeting must stay short and friendly."; done > notes.md
HOME="$dir/home" XDG_CONFIG_HOME="$dir/home/.config" XDG_CACHE_HOME="$dir/home/.cache" \
  XDG_DATA_HOME="$dir/home/.local/share" QWEN_DISABLE_AUTO_TITLE=1 \
  OPENAI_BASE_URL="http://127.0.0.1:$port/v1" OPENAI_API_KEY=sk-scripted OPENAI_MODEL=scripted \
  timeout 300 "$QWEN" -p "$(prompt_of "$name")" --yolo > "$dir/stdout" 2> "$dir/stderr" || true
SH
)"
  if [ "$(id -u)" = 0 ] && unshare -m --propagation private true 2>/dev/null; then
    PRIVATE=1 unshare -m --propagation private bash -c "$body"
  else
    bash -c "$body"
  fi
  kill "$model" 2>/dev/null || true
  wait "$model" 2>/dev/null || true
  local chats=("$dir"/home/.qwen/projects/*/chats/*.jsonl)
  if [ "${#chats[@]}" -ne 1 ] || [ ! -f "${chats[0]}" ]; then
    echo "$name: expected one chat recording, found: ${chats[*]}" >&2
    cat "$dir/stderr" >&2
    return 1
  fi
  mkdir -p "$OUT"
  cp "${chats[0]}" "$OUT/$name.jsonl"
  echo "$name: $(wc -l < "$OUT/$name.jsonl") records, $(ls "$dir/requests" | wc -l) model requests"
  if [ -n "${KEEP_REQUESTS:-}" ]; then cp -r "$dir" "$KEEP_REQUESTS/$name"; fi
}

cases=("$@")
[ "${#cases[@]}" -eq 0 ] && cases=(short tools compress)
for c in "${cases[@]}"; do run_case "$c"; done
