#!/usr/bin/env bash
# Photographs the inspector's first screen for every real sample, as a newcomer first sees it
# (a fresh state directory, so the first-run legend is on), at 80x24 and 120x40, on a dark
# terminal with the dark theme and on a white one with the light theme.
#
# Usage: tools/shots/run.sh [OUT_DIR] [SAMPLE ...]
#   OUT_DIR defaults to target/shots; the samples default to every file the samples test reads
#   in ../shared/samples, and the bundled fixtures/samples/claude-code-demo.jsonl.
# Needs tmux and chromium, and ../shared/tools/tui_shot.py; the binary is built in release.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
shot="$root/../shared/tools/tui_shot.py"
out="${1:-$root/target/shots}"
shift || true
mkdir -p "$out"
if [ "$#" -eq 0 ]; then
    set -- "$root/fixtures/samples/claude-code-demo.jsonl"
    while IFS= read -r rel; do
        set -- "$@" "$root/../shared/samples/$rel"
    done < <(grep -o '("[a-z_]*/[^"]*", "[a-z0-9-]*")' "$root/tests/it/samples.rs" | cut -d'"' -f2)
fi
(cd "$root" && cargo build --release --quiet)
bin="$root/target/release/ctxray"

# The tool draws on a dark page; the light shots use a copy that draws on white.
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
sed -e 's/#1e1e1e/#BGTMP/g' -e 's/#d4d4d4/#1e1e1e/g' -e 's/#BGTMP/#ffffff/g' "$shot" > "$work/tui_shot_light.py"

for file in "$@"; do
    name="$(basename "$file")"
    name="${name%.*}"
    for size in 80x24 120x40; do
        cols="${size%x*}"
        rows="${size#*x}"
        for theme in dark light; do
            state="$work/state-$name-$size-$theme"
            tool="$shot"
            [ "$theme" = light ] && tool="$work/tui_shot_light.py"
            python3 "$tool" "$out/$name-$size-$theme.png" "$cols" "$rows" \
                "CTXRAY_STATE_DIR='$state' '$bin' --theme $theme '$file'" >/dev/null
            echo "$out/$name-$size-$theme.png"
        done
    done
done
