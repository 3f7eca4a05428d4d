#!/usr/bin/env python3
"""Fallback-summary goldens for the `hermes` preset (hermes-agent 0.19.0).

Runs the REAL ContextCompressor.compress() on the inputs of every compacting case of
make_goldens.py (same scripts, same settings, same compressor state), on the repo's Claude Code
sample (exported to OpenAI chat by ctxray) and on a few sessions built to reach the fallback's
limits — with the summary call failing the way it fails when no summarizer is reachable:
`call_llm` raises the RuntimeError Hermes' own `call_llm` raises ("No LLM provider configured
for task=compression provider=auto. Run: hermes setup"). That error does not abort the
compaction (abort_on_summary_failure is False by default; it is neither an access/quota nor a
network failure), so Hermes inserts `_build_static_fallback_summary(...)` instead.

Writes fixtures/oracle/hermes-fallback/<case>.golden.json (and <case>.input.json for the sessions
that are not make_goldens.py inputs). Run via run_fallback.sh.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import make_goldens as mg

cc = mg.cc
ContextCompressor = mg.ContextCompressor
OUT = mg.REPO / "fixtures" / "oracle" / "hermes-fallback"
INPUTS = mg.OUT  # fixtures/oracle/hermes: the make_goldens.py inputs
SAMPLE_EXPORT = OUT / "claude-code-demo.input.json"

NO_PROVIDER = "No LLM provider configured for task={task} provider=auto. Run: hermes setup"


class NoProvider:
    """What `call_llm` does when no provider resolves: raise, recording the request."""

    def __init__(self):
        self.calls = 0

    def __call__(self, **kwargs):
        self.calls += 1
        raise RuntimeError(NO_PROVIDER.format(task=kwargs.get("task")))


class FallbackSpy:
    def __init__(self):
        self.returned = None
        self.turns = None
        self.reason = None


SPY = FallbackSpy()
_orig_fallback = ContextCompressor._build_static_fallback_summary


def _spy_fallback(self, turns, reason=None):
    res = _orig_fallback(self, turns, reason=reason)
    SPY.turns = list(turns)
    SPY.reason = reason
    SPY.returned = res
    return res


ContextCompressor._build_static_fallback_summary = _spy_fallback


def write_fallback(name, messages, settings, *, comp=None, extra=None, setup_notes=(), force=False,
                   pre=None, input_ref=None):
    """Same signature as make_goldens.write_case: compress `messages` with a failing summarizer."""
    if comp is None:
        comp = ContextCompressor(**settings)
    state_before = mg.compressor_state(comp)
    measure = mg.estimate_messages_tokens_rough(messages)
    fired = bool(comp.should_compress(measure)) or force
    if not fired or pre is not None:
        return  # no compaction (or the feasibility check refuses): nothing to fall back from
    if input_ref is None:
        ref = INPUTS / f"{name}.input.json"
        on_disk = json.loads(ref.read_text(encoding="utf-8"))
        assert on_disk == messages, f"{name}: input differs from {ref.name}; rerun run.sh first"
        input_ref = f"hermes/{name}.input.json"
    failing = NoProvider()
    saved = cc.call_llm
    cc.call_llm = failing
    SPY.__init__()
    try:
        out, res, _req = mg.run_compression(comp, messages, force=force) if force else \
            mg.run_compression(comp, messages)
    finally:
        cc.call_llm = saved
    if res["noop"]:
        return
    assert SPY.returned is not None, f"{name}: no fallback summary was built"
    assert comp._last_summary_fallback_used and not comp._last_compress_aborted
    golden = {
        "framework": "hermes-agent",
        "version": mg.HERMES_VERSION,
        "preset": "hermes",
        "case": name,
        "input": input_ref,
        "settings": settings,
        "model": comp.model,
        "context_window": comp.context_length,
        "today": mg.FIXED_NOW.strftime("%Y-%m-%d"),
        "compressor_state": state_before,
        "summary_failure": {
            "raised": "RuntimeError: " + NO_PROVIDER.format(task="compression"),
            "summarizer_calls": failing.calls,
            "last_summary_error": SPY.reason,
            "fallback_used": comp._last_summary_fallback_used,
            "aborted": comp._last_compress_aborted,
        },
        "expected": {
            "fired": True,
            "measure": measure,
            "threshold": state_before["threshold_tokens"],
            "kept_source_indices": res["kept"],
            "fallback_turn_source_indices": res["rendered_turn_source_indices"],
            "fallback_summary": SPY.returned,
            "summary_inserted": res["summary_inserted"],
            "compacted_history_len": len(out),
            "compacted_history": [dict(m) for m in out],
        },
        "notes": list(setup_notes) + res["notes"],
    }
    if extra:
        golden.update(extra)
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / f"{name}.golden.json").write_text(
        json.dumps(golden, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"{name:34s} turns={len(SPY.turns):3d} fallback={len(SPY.returned):5d} chars "
          f"reason={SPY.reason!r}")


def write_own(name, messages, settings, **kw):
    """A session of this script: its input is written next to its golden."""
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / f"{name}.input.json").write_text(
        json.dumps(messages, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    write_fallback(name, messages, settings, input_ref=f"hermes-fallback/{name}.input.json", **kw)


# ---------------------------------------------------------------------------
# Sessions of this script
# ---------------------------------------------------------------------------


def c_sample_claude_code_demo():
    """fixtures/samples/claude-code-demo.jsonl as ctxray exports it to OpenAI chat (see README)."""
    messages = json.loads(SAMPLE_EXPORT.read_text(encoding="utf-8"))
    write_fallback("claude-code-demo", messages,
                   {"model": "claude-sonnet-4-20250514", "config_context_length": 7000},
                   input_ref="hermes-fallback/claude-code-demo.input.json")
    write_fallback("claude-code-demo-short-tail", messages,
                   {"model": "claude-sonnet-4-20250514", "config_context_length": 7000,
                    "protect_last_n": 4},
                   input_ref="hermes-fallback/claude-code-demo.input.json")


def c_long_turns():
    """Turns long enough to cut each at 700 and the whole at 8,000; blockers, paths, secrets."""
    h = mg.H(prefix="call_fb")
    h.user("Deploy the release branch to staging and tell me what breaks. The deploy key is "
           "ghp_Zz9Yy8Xx7Ww6Vv5Uu4Tt3Ss2Rr1Qq0Pp9Oo8 — do not print it.   " + mg.filler(900, 1))
    for t in range(9):
        h.call(f"Deploy attempt {t + 1}: {mg.filler(650, t)}", "terminal",
               {"command": f"cd ~/deploy && ./ship.sh --env staging --step {t}",
                "workdir": f"/srv/releases/r{t}"},
               json.dumps({"output": (f"Traceback (most recent call last):\n  File \"/srv/app/main.py\", line {t}\n"
                                      f"TimeoutError: timed out after {30 + t}s\n" if t % 2 == 1 else
                                      f"step {t} ok; see C:\\logs\\ship-{t}.txt and https://ci.example.com/run/{t}.\n")
                           + mg.filler(900, t + 2), "exit_code": 1 if t % 2 == 1 else 0, "error": None}))
        h.user(f"Attempt {t + 1} looked {'bad' if t % 2 == 1 else 'fine'}; keep going. " + mg.filler(300, t))
    ids = h.asst("Checking two configs at once.", [
        ("read_file", {"path": "config/staging.yaml"}),
        ("patch", {"mode": "replace", "path": "config/staging.yaml", "old_string": "a", "new_string": "b"}),
    ])
    h.tool(ids[0], "read_file", json.dumps({"content": "token: sk-proj-Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0\n" + mg.filler(400, 3)}))
    h.tool(ids[1], "patch", json.dumps({"success": False, "error": "fatal: patch does not apply"}))
    h.tool("call_unmatched", "terminal", json.dumps({"output": "orphan result", "exit_code": 0, "error": None}))
    h.asst("Staging is up except the patch to config/staging.yaml, which failed.")
    h.user("What's left?")
    h.asst("Only the config patch.")
    write_own("long-turns", h.m, {"model": "gpt-4o-mini", "config_context_length": 7000})


def c_no_user_ask():
    """The summarized range holds no user text: the task line says so."""
    h = mg.H(prefix="call_nu")
    h.user("Go.")
    for t in range(8):
        h.call(None, "search_files", {"pattern": f"TODO_{t}", "path": "src"},
               json.dumps({"matches": [f"src/mod_{t}.py:{i}: # TODO_{t}" for i in range(30)]}))
    h.asst("Found every TODO.")
    h.user("Thanks.")
    h.asst("Done.")
    write_own("no-user-ask", h.m, {"model": "gpt-4o-mini", "config_context_length": 3000,
                                   "protect_first_n": 0, "protect_last_n": 3})


def main():
    only = set(sys.argv[1:])
    mg.write_case = write_fallback  # the case scripts of make_goldens.py call it by name
    for fn in mg.CASES:
        mg.FAKE.reset()
        if only and fn.__name__ not in only:
            continue
        fn()
    for fn in (c_sample_claude_code_demo, c_long_turns, c_no_user_ask):
        if only and fn.__name__ not in only:
            continue
        fn()


if __name__ == "__main__":
    main()
