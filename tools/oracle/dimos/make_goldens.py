#!/usr/bin/env python3
"""Oracle goldens for the `dimos` preset: dimos' REAL `compact_history` (dimos/agents/compaction.py).

The module is not in any released dimos package, so it is not installed: its path is given
(argument `--module PATH` or env DIMOS_COMPACTION_PY; see README.md for where it comes from) and
checked against the SHA-256 the goldens were made with. It is imported as
`dimos.agents.compaction` from a temporary package whose only other module is a logging shim
for `dimos.utils.logging_config.setup_logger` (the one import the module makes from dimos).

Each case runs `compact_history(history, context_window=..., trigger_ratio=..., keep_ratio=...)`
twice: with `summarizer=None` (dimos' offline digest, `_default_summarizer`) and with a
summarizer that raises (the path a failed model summary takes); both must give the same result.
History is loaded with LangChain's own `messages_from_dict` from a session in LangChain's format
(what `ctxray --from langchain` reads).

Writes fixtures/oracle/dimos/<case>.golden.json (and <case>.input.json for sessions built here).
Run via run.sh.
"""
from __future__ import annotations

import argparse
import hashlib
import importlib
import json
import logging
import os
import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent.parent
FIXTURES = REPO / "fixtures"
OUT = FIXTURES / "oracle" / "dimos"

SOURCE = {
    "repo": "dimensionalOS/dimos",
    "path": "dimos/agents/compaction.py",
    "commit": "1f52345f2a78765dae25dc54b4bc0da42ea443bb",
    "sha256": "f9f465699499a4cd7ce343c2d3c1f10163be1bf1a407029c4ff00267a7302842",
    "license": "Apache-2.0",
}

LOGGING_SHIM = '''"""Logging shim: dimos' setup_logger, as far as compaction.py uses it."""
import logging


def setup_logger(*_args, **_kwargs):
    return logging.getLogger("dimos.agents.compaction")
'''


def load_compaction(path: Path):
    data = path.read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    if digest != SOURCE["sha256"]:
        sys.exit(f"{path}: sha256 {digest}, expected {SOURCE['sha256']} "
                 f"({SOURCE['repo']}@{SOURCE['commit']}:{SOURCE['path']})")
    root = Path(tempfile.mkdtemp(prefix="dimos-oracle-"))
    pkg = root / "dimos"
    (pkg / "agents").mkdir(parents=True)
    (pkg / "utils").mkdir()
    for d in (pkg, pkg / "agents", pkg / "utils"):
        (d / "__init__.py").write_text("", encoding="utf-8")
    (pkg / "utils" / "logging_config.py").write_text(LOGGING_SHIM, encoding="utf-8")
    shutil.copyfile(path, pkg / "agents" / "compaction.py")
    sys.path.insert(0, str(root))
    return importlib.import_module("dimos.agents.compaction")


# ---------------------------------------------------------------------------
# Sessions
# ---------------------------------------------------------------------------


def read_session(rel: str) -> list[dict]:
    """A session in LangChain's format (JSON array or JSONL of `messages_to_dict` records)."""
    text = (FIXTURES / rel).read_text(encoding="utf-8")
    if rel.endswith(".jsonl"):
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    return json.loads(text)


def msg(kind: str, content, **data) -> dict:
    return {"type": kind, "data": {"content": content, "type": kind, **data}}


def ai(content, calls=()) -> dict:
    tool_calls = [{"name": n, "args": a, "id": i, "type": "tool_call"} for n, a, i in calls]
    return msg("ai", content, tool_calls=tool_calls, invalid_tool_calls=[])


def tool(content, call_id, name) -> dict:
    return msg("tool", content, tool_call_id=call_id, name=name, status="success")


FILLER = ("The lidar sweep shows the corridor clear for four metres; the charger dock sits "
          "behind the second door on the left. ")


def own_long_unicode() -> list[dict]:
    ask = ("   Navigate to the kitchen — 厨房 — and check whether the 🍵 kettle is on; "
           "if it is, send me a picture. " + "Then map the hallway again. " * 8 + "  \n")
    report = ("\n  Kettle found: it is off. Café 👩‍🔬 note: the hallway map is "
              "stale, so I re-ran the sweep. " + FILLER * 3)
    return [
        msg("system", "You are a robot dog. Use your tools."),
        msg("human", ask),
        ai("Heading to the kitchen.", [("navigate", {"room": "kitchen"}, "c1")]),
        tool("arrived: kitchen " + FILLER * 2, "c1", "navigate"),
        ai("", [("camera", {"view": "front"}, "c2"), ("navigate", {"room": "hall"}, "c3")]),
        tool("image captured", "c2", "camera"),
        tool("arrived: hall " + FILLER, "c3", "navigate"),
        ai(report, [("camera", {"view": "kettle"}, "c4")]),
        tool("image captured " + FILLER, "c4", "camera"),
        msg("human", "Good. Now go back to the dock."),
        ai("On my way to the dock.", [("navigate", {"room": "dock"}, "c5")]),
        tool("arrived: dock", "c5", "navigate"),
        ai("Docked and charging."),
    ]


def own_no_human_no_ai_text() -> list[dict]:
    """No HumanMessage in the dropped range, and the assistant there only calls tools."""
    return [
        ai("", [("scan", {"area": "north"}, "s1")]),
        tool("north: " + FILLER * 4, "s1", "scan"),
        ai("   ", [("scan", {"area": "south"}, "s2")]),
        tool("south: " + FILLER * 4, "s2", "scan"),
        ai("", [("scan", {"area": "north"}, "s3")]),
        tool("north again: " + FILLER * 4, "s3", "scan"),
        msg("human", "What did you find?"),
        ai("Both areas are clear."),
    ]


def own_list_content() -> list[dict]:
    """Content blocks: a bare string before a text block, an image first, a blank first text
    block (its first text is empty, so an earlier assistant message is the last report)."""
    img = {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}
    return [
        msg("system", [{"type": "text", "text": "You are a careful inspector."}]),
        msg("human", ["bare string first", {"type": "text", "text": "  Inspect the pipe joint.  "},
                      img]),
        ai([img, {"type": "text", "text": "The joint shows corrosion. " + FILLER * 2}],
           [("zoom", {"factor": 4}, "z1")]),
        tool([{"type": "text", "text": "zoomed " + FILLER * 2}], "z1", "zoom"),
        ai([{"type": "reasoning", "reasoning": "Check the flange too.", "id": "rs_1"},
            {"type": "text", "text": "Checking the flange."},
            {"type": "tool_call", "id": "f1", "name": "zoom", "args": {"factor": 2}}],
           [("zoom", {"factor": 2}, "f1")]),
        tool("zoomed: flange intact", "f1", "zoom"),
        ai([{"type": "text", "text": "   "}, {"type": "text", "text": "second block"}]),
        msg("human", [{"type": "text", "text": "Write the report."}]),
        ai("Report: corrosion at the joint, replace within a week. " + FILLER * 8),
    ]


def own_previous_summary() -> list[dict]:
    """A history that was compacted before: the earlier summary is re-summarized as human text."""
    earlier = ("[compacted history]\n9 earlier messages were removed to stay within the context "
               "window (3 from the user, 4 from the assistant).\nTools used in that period: "
               "navigate, camera.\nThe earliest request was: Patrol the warehouse.")
    return [
        msg("system", "You are a warehouse patrol robot."),
        msg("human", earlier),
        ai("Continuing the patrol from aisle 4. " + FILLER * 2, [("navigate", {"aisle": 4}, "p1")]),
        tool("arrived: aisle 4 " + FILLER * 2, "p1", "navigate"),
        ai("Aisle 4 is clear. " + FILLER, [("navigate", {"aisle": 5}, "p2")]),
        tool("arrived: aisle 5", "p2", "navigate"),
        msg("human", "Report when you reach aisle 9."),
        ai("Will do."),
    ]


def own_trailing_tool() -> list[dict]:
    """The kept range would start with tool results (the cut moves past them) and the history
    ends on a lone tool result (kept, orphaned)."""
    return [
        msg("human", "Sort the parcels by size. " + FILLER * 2),
        ai("Measuring them.", [("measure", {"id": i}, f"m{i}") for i in range(3)]),
        tool("parcel 0: 30 cm " + FILLER * 2, "m0", "measure"),
        tool("parcel 1: 45 cm " + FILLER * 2, "m1", "measure"),
        tool("parcel 2: 12 cm " + FILLER, "m2", "measure"),
        ai("Sorted: 2, 0, 1. " + FILLER * 2, [("stack", {"order": [2, 0, 1]}, "k1")]),
        tool("stacked " + FILLER * 3, "k1", "stack"),
    ]


def own_under_threshold() -> list[dict]:
    return [msg("human", "Hello."), ai("Hi, how can I help?")]


def own_nothing_dropped() -> list[dict]:
    """Over the trigger, but the only conversation message is the last one, always kept."""
    return [msg("system", "You are terse."), msg("human", "Summarise this: " + FILLER * 30)]


def claude_code_demo() -> list[dict]:
    """The repo's Claude Code sample as OpenAI chat (ctxray's export, see the hermes oracle),
    converted to LangChain messages by LangChain's own `convert_to_messages`."""
    from langchain_core.messages import convert_to_messages, messages_to_dict

    chat = json.loads((FIXTURES / "oracle" / "hermes-fallback" / "claude-code-demo.input.json")
                      .read_text(encoding="utf-8"))
    return messages_to_dict(convert_to_messages(chat))


# (case, input: a fixture path or a builder, settings)
CASES = [
    ("langchain-mix", "langchain/anthropic-openai-mix.json",
     {"context_window": 600, "trigger_ratio": 0.8, "keep_ratio": 0.35}),
    ("claude-code-demo", claude_code_demo,
     {"context_window": 4000, "trigger_ratio": 0.8, "keep_ratio": 0.35}),
    ("long-unicode", own_long_unicode,
     {"context_window": 400, "trigger_ratio": 0.8, "keep_ratio": 0.35}),
    ("no-human-no-ai-text", own_no_human_no_ai_text,
     {"context_window": 400, "trigger_ratio": 0.8, "keep_ratio": 0.35}),
    ("list-content", own_list_content,
     {"context_window": 600, "trigger_ratio": 0.8, "keep_ratio": 0.35}),
    ("previous-summary", own_previous_summary,
     {"context_window": 300, "trigger_ratio": 0.8, "keep_ratio": 0.35}),
    ("trailing-tool", own_trailing_tool,
     {"context_window": 500, "trigger_ratio": 0.8, "keep_ratio": 0.35}),
    ("under-threshold", own_under_threshold,
     {"context_window": 128000, "trigger_ratio": 0.8, "keep_ratio": 0.35}),
    ("nothing-dropped", own_nothing_dropped,
     {"context_window": 400, "trigger_ratio": 0.8, "keep_ratio": 0.35}),
]


def raising_summarizer(_messages):
    raise RuntimeError("summarizer unavailable")


class RecordingModel:
    """A chat model for `make_model_summarizer`: records the prompt, answers a fixed text."""

    def __init__(self):
        self.prompts = []

    def invoke(self, messages):
        from langchain_core.messages import AIMessage

        self.prompts.append([m.content for m in messages])
        return AIMessage(content="SUMMARY")


def run_case(comp, name, source, settings):
    from langchain_core.messages import messages_from_dict, messages_to_dict

    if callable(source):
        records = source()
        OUT.mkdir(parents=True, exist_ok=True)
        (OUT / f"{name}.input.json").write_text(
            json.dumps(records, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        input_ref = f"oracle/dimos/{name}.input.json"
    else:
        records = read_session(source)
        input_ref = source
    history = messages_from_dict(records)
    result = comp.compact_history(history, **settings)
    failed = comp.compact_history(history, summarizer=raising_summarizer, **settings)
    assert failed.summary == result.summary and failed.compacted == result.compacted, name
    model = RecordingModel()
    with_model = comp.compact_history(
        history, summarizer=comp.make_model_summarizer(model), **settings)
    assert len(model.prompts) == (1 if result.compacted else 0), name
    position = {id(m): i for i, m in enumerate(history)}
    kept = [position[id(m)] for m in result.messages if id(m) in position]
    inserted = [i for i, m in enumerate(result.messages) if id(m) not in position]
    golden = {
        "framework": "dimos",
        "source": SOURCE,
        "case": name,
        "input": input_ref,
        "settings": settings,
        "expected": {
            "compacted": result.compacted,
            "tokens_before": result.tokens_before,
            "tokens_after": result.tokens_after,
            "dropped_messages": result.dropped_messages,
            "summary": result.summary,
            "summary_position": inserted[0] if inserted else None,
            "summary_message": messages_to_dict([result.messages[inserted[0]]])[0]
            if inserted else None,
            "kept_source_indices": kept,
            "compacted_history_len": len(result.messages),
            # The whole list compact_history returned, as LangChain serialises it.
            "compacted_history": messages_to_dict(result.messages),
            "fallback_on_summarizer_error_is_the_same": True,
            # make_model_summarizer(model) with the default max_chars: the one user message the
            # model is sent, and what compact_history keeps of a model answering "SUMMARY".
            "model_summarizer": {
                "messages": model.prompts[0] if model.prompts else None,
                "summary": with_model.summary,
            },
        },
    }
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / f"{name}.golden.json").write_text(
        json.dumps(golden, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"{name:22s} compacted={result.compacted!s:5s} tokens={result.tokens_before:5d} "
          f"dropped={result.dropped_messages:3d} kept={len(kept):3d}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--module", default=os.environ.get("DIMOS_COMPACTION_PY"),
                    help="path to dimos/agents/compaction.py at the pinned commit")
    ap.add_argument("cases", nargs="*", help="only these cases")
    args = ap.parse_args()
    if not args.module:
        sys.exit("give --module PATH or DIMOS_COMPACTION_PY (see README.md)")
    comp = load_compaction(Path(args.module))
    logging.disable(logging.WARNING)  # the raising summarizer's "falling back" traceback
    for name, source, settings in CASES:
        if not args.cases or name in args.cases:
            run_case(comp, name, source, settings)


if __name__ == "__main__":
    main()
