#!/usr/bin/env python3
"""Leaves GitHub Copilot CLI's own system prompts out of a recorded events.jsonl.

The prompts are GitHub's text (the CLI is not open source), so a fixture keeps the tool's bytes
everywhere else and, in their place, says what was there. A prompt is a `system.message`
event's content (or its content blocks' text), or the content of any `{"role": "system"}`
message the CLI logged (the summarizer's request in `model.*` events, some of it a JSON string
inside a string). Every occurrence of one, encoded once or twice, is replaced in the raw text,
so no other byte of a line changes. Every line must still parse, and no prompt may be left.

    python3 redact.py VERSION FILE...
"""

import json
import sys


def prompts(lines):
    found = set()
    for line in lines:
        event = json.loads(line)
        if event.get("type") == "system.message":
            data = event.get("data") or {}
            if isinstance(data.get("content"), str):
                found.add(data["content"])
            for block in data.get("contentBlocks") or []:
                for key in ("text", "content"):
                    if isinstance(block, dict) and isinstance(block.get(key), str):
                        found.add(block[key])
        system_messages(event, found)
    return sorted((p for p in found if len(p) > 200), key=len, reverse=True)


def system_messages(value, found):
    """The content of every system-role message in `value`, also inside JSON strings."""
    if isinstance(value, dict):
        if value.get("role") == "system" and isinstance(value.get("content"), str):
            found.add(value["content"])
        for v in value.values():
            system_messages(v, found)
    elif isinstance(value, list):
        for v in value:
            system_messages(v, found)
    elif isinstance(value, str) and value[:1] in "[{" and '"system"' in value:
        try:
            system_messages(json.loads(value), found)
        except ValueError:
            pass


def encoded(text):
    return json.dumps(text, ensure_ascii=False)[1:-1]


def main():
    version, paths = sys.argv[1], sys.argv[2:]
    for path in paths:
        with open(path, encoding="utf-8") as f:
            lines = f.read().split("\n")
        body = [l for l in lines if l.strip()]
        found = prompts(body)
        out = []
        for line in lines:
            for p in found:
                note = (
                    f"[GitHub Copilot CLI {version}'s system prompt, {len(p):,} characters, "
                    "is left out of this fixture: the text is GitHub's]"
                )
                line = line.replace(encoded(encoded(p)), encoded(encoded(note)))
                line = line.replace(encoded(p), encoded(note))
            if line.strip():
                json.loads(line)
            out.append(line)
        text = "\n".join(out)
        for p in found:
            assert p[:200] not in text and encoded(p)[:200] not in text, f"{path}: a prompt is left"
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        print(f"{path}: {len(found)} prompt(s) left out")


if __name__ == "__main__":
    main()
