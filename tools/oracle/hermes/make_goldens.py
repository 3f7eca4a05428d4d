#!/usr/bin/env python3
"""Oracle goldens for the `hermes` preset (hermes-agent 0.19.0, agent/context_compressor.py).

Runs Hermes Agent's REAL ContextCompressor (trigger via should_compress(), cut, prune,
serialization, prompt, summary insertion, tool-pair sanitizing) on hand-built but realistic
agent sessions, with the auxiliary LLM call (`agent.context_compressor.call_llm`) replaced by a
fake that records the exact request and returns "SUMMARY-<n>".

Writes fixtures/oracle/hermes/<case>.input.json (the OpenAI chat message list exactly as handed
to the compressor) and <case>.golden.json.  Installs nothing; run via run.sh.
"""
from __future__ import annotations

import copy
import datetime as _dt
import json
import os
import socket
import sys
import tempfile
from pathlib import Path
from types import SimpleNamespace

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent.parent
OUT = REPO / "fixtures" / "oracle" / "hermes"

# ---------------------------------------------------------------------------
# Hermetic environment: empty HERMES_HOME (default config: redaction on, aux provider "auto"),
# no network (model-window lookups fall back to Hermes's built-in table / config override),
# fixed clock for the TEMPORAL ANCHORING line of the summarizer prompt.
# ---------------------------------------------------------------------------
_HOME = tempfile.mkdtemp(prefix="hermes-oracle-home-")
os.environ["HERMES_HOME"] = _HOME
for _k in list(os.environ):
    if _k.endswith("_API_KEY") or _k in ("OPENROUTER_BASE_URL", "OPENAI_BASE_URL", "HERMES_REDACT_SECRETS"):
        os.environ.pop(_k, None)


def _no_network(*_a, **_k):
    raise OSError("network disabled by the hermes oracle (offline, deterministic)")


socket.socket.connect = _no_network  # type: ignore[assignment]
socket.create_connection = _no_network  # type: ignore[assignment]
socket.getaddrinfo = _no_network  # type: ignore[assignment]

import hermes_time  # noqa: E402

FIXED_NOW = _dt.datetime(2026, 1, 15, 9, 30, 0, tzinfo=_dt.timezone.utc)
hermes_time.now = lambda: FIXED_NOW  # type: ignore[assignment]

import agent.context_compressor as cc  # noqa: E402
from agent.context_compressor import ContextCompressor, SUMMARY_PREFIX, _SUMMARY_END_MARKER  # noqa: E402
from agent.model_metadata import estimate_messages_tokens_rough  # noqa: E402
from agent.tool_dispatch_helpers import make_tool_result_message  # noqa: E402
from agent.codex_responses_adapter import _derive_responses_function_call_id  # noqa: E402
import agent.auxiliary_client as auxc  # noqa: E402
from agent.conversation_compression import check_compression_model_feasibility  # noqa: E402

try:
    from importlib.metadata import version as _pkg_version
    HERMES_VERSION = _pkg_version("hermes-agent")
except Exception:  # pragma: no cover
    HERMES_VERSION = "unknown"

# ---------------------------------------------------------------------------
# Fake summarizer
# ---------------------------------------------------------------------------


class FakeLLM:
    """Records each request; answers `SUMMARY-<n>`, or `reply` (with `<n>` filled in) when a case
    sets one to exercise what Hermes does to a model's text before inserting it."""

    def __init__(self):
        self.reset()

    def reset(self):
        """Before each case: no calls yet, the default answer."""
        self.calls: list[dict] = []
        self.returned: list[str] = []
        self.reply: str | None = None

    def __call__(self, **kwargs):
        self.calls.append(copy.deepcopy(kwargs))
        n = len(self.calls)
        text = f"SUMMARY-{n}" if self.reply is None else self.reply.replace("<n>", str(n))
        self.returned.append(text)
        return SimpleNamespace(choices=[SimpleNamespace(message=SimpleNamespace(content=text))])


FAKE = FakeLLM()
cc.call_llm = FAKE  # the compressor calls the name imported into its module

# ---------------------------------------------------------------------------
# Spies (observe the framework's own intermediate objects; they do not change behaviour)
# ---------------------------------------------------------------------------


class Spy:
    def reset(self):
        self.pruned = None
        self.turns = None
        self.copies: list[tuple[dict, dict]] = []  # (copy, original) — keep refs so ids stay unique
        self.summary_find = None
        self.tail_cut = None
        self.head_size = None
        self.budget = None


SPY = Spy()
SPY.reset()

_orig_prune = ContextCompressor._prune_old_tool_results
_orig_gen = ContextCompressor._generate_summary
_orig_find = ContextCompressor._find_latest_context_summary.__func__
_orig_tail = ContextCompressor._find_tail_cut_by_tokens
_orig_head = ContextCompressor._protect_head_size
_orig_budget = ContextCompressor._compute_summary_budget
_orig_copy = cc._fresh_compaction_message_copy


def _spy_prune(self, messages, *a, **k):
    res = _orig_prune(self, messages, *a, **k)
    SPY.pruned = res[0]
    return res


def _spy_gen(self, turns, *a, **k):
    SPY.turns = list(turns)
    return _orig_gen(self, turns, *a, **k)


def _spy_find(cls, messages, start, end):
    res = _orig_find(cls, messages, start, end)
    SPY.summary_find = (res[0], start, end)
    return res


def _spy_tail(self, messages, head_end, *a, **k):
    res = _orig_tail(self, messages, head_end, *a, **k)
    SPY.tail_cut = res
    return res


def _spy_head(self, messages):
    res = _orig_head(self, messages)
    SPY.head_size = res
    return res


def _spy_budget(self, turns):
    res = _orig_budget(self, turns)
    SPY.budget = res
    return res


def _spy_copy(msg):
    res = _orig_copy(msg)
    SPY.copies.append((res, msg))
    return res


ContextCompressor._prune_old_tool_results = _spy_prune
ContextCompressor._generate_summary = _spy_gen
ContextCompressor._find_latest_context_summary = classmethod(_spy_find)
ContextCompressor._find_tail_cut_by_tokens = _spy_tail
ContextCompressor._protect_head_size = _spy_head
ContextCompressor._compute_summary_budget = _spy_budget
cc._fresh_compaction_message_copy = _spy_copy

# ---------------------------------------------------------------------------
# History builder (Hermes's own in-memory message shapes)
# ---------------------------------------------------------------------------

SYSTEM = (
    "You are Hermes Agent, an intelligent AI assistant created by Nous Research. You are helpful, "
    "knowledgeable, and direct. You assist users with a wide range of tasks including answering "
    "questions, writing and editing code, analyzing information, and executing actions via your tools.\n\n"
    "## Environment\nWorking directory: /home/dev/projects/inventory-api\nPlatform: linux\n"
    "Conversation started: Thursday, January 15, 2026"
)


class H:
    """Builds a Hermes conversation list: assistant dicts shaped like
    chat_completion_helpers.build_assistant_message, tool dicts from the framework's own
    make_tool_result_message (so web_search output gets Hermes's untrusted-data wrapper)."""

    def __init__(self, prefix="call", system=SYSTEM):
        self.m: list[dict] = []
        self.prefix = prefix
        self.k = 0
        if system is not None:
            self.m.append({"role": "system", "content": system})

    def user(self, text):
        self.m.append({"role": "user", "content": text})
        return self

    def asst(self, text, calls=(), reasoning=None, reasoning_content=None, reasoning_details=None,
             ascii_args=True):
        msg = {
            "role": "assistant",
            "content": text,
            "reasoning": reasoning,
            "finish_reason": "tool_calls" if calls else "stop",
        }
        if reasoning_content is not None:
            msg["reasoning_content"] = reasoning_content
        if reasoning_details is not None:
            msg["reasoning_details"] = reasoning_details
        ids = []
        if calls:
            tcs = []
            for name, args in calls:
                self.k += 1
                cid = f"{self.prefix}_{self.k:04d}"
                ids.append(cid)
                tcs.append({
                    "id": cid,
                    "call_id": cid,
                    "response_item_id": _derive_responses_function_call_id(cid, None),
                    "type": "function",
                    "function": {"name": name,
                                 "arguments": args if isinstance(args, str)
                                 else json.dumps(args, ensure_ascii=ascii_args)},
                })
            msg["tool_calls"] = tcs
        self.m.append(msg)
        return ids

    def tool(self, cid, name, content):
        msg = make_tool_result_message(name, content, cid)
        # `_`-prefixed keys are in-process only (never persisted or sent)
        self.m.append({k: v for k, v in msg.items() if not k.startswith("_")})
        return self

    def call(self, text, name, args, result, **kw):
        (cid,) = self.asst(text, [(name, args)], **kw)
        self.tool(cid, name, result)
        return cid


def code_file(path, n_lines, seed=0):
    lines = []
    for i in range(1, n_lines + 1):
        j = (i * 7 + seed) % 11
        if j == 0:
            lines.append(f"def handler_{seed}_{i}(request, session):")
        elif j in (1, 2):
            lines.append(f"    item = session.get(Item, request.args.get('id_{i}'))")
        elif j == 3:
            lines.append(f"    if item is None:  # {path}:{i}")
        elif j == 4:
            lines.append(f"        raise NotFound('item {i} missing')")
        elif j == 5:
            lines.append(f"    total_{i} = sum(line.qty * line.price for line in item.lines)")
        elif j == 6:
            lines.append("")
        elif j == 7:
            lines.append(f"    logger.info('processed %s lines', len(item.lines))  # step {i}")
        else:
            lines.append(f"    return jsonify(id=item.id, total=total_{i - 1 if i > 1 else i})")
    return "\n".join(f"{i:>5}|{t}" for i, t in enumerate(lines, 1))


def pytest_output(n_pass, n_fail, width=40, seed=0):
    out = ["============================= test session starts ==============================",
           "platform linux -- Python 3.12.1, pytest-8.3.4, pluggy-1.5.0",
           "rootdir: /home/dev/projects/inventory-api", f"collected {n_pass + n_fail} items", ""]
    for i in range(n_pass + n_fail):
        status = "FAILED" if i < n_fail else "PASSED"
        out.append(f"tests/test_api_{(i + seed) % 9}.py::test_case_{i:03d} {status}")
    for i in range(n_fail):
        out += ["", f"___________________ test_case_{i:03d} ___________________",
                f"    assert resp.status_code == 200, resp.json()",
                f"E   AssertionError: {{'detail': 'stock for sku-{i} went negative'}}",
                f"E   assert 409 == 200"]
    out.append(f"========== {n_fail} failed, {n_pass} passed in {1.5 + seed * 0.1:.2f}s ==========")
    return json.dumps({"output": "\n".join(out), "exit_code": 1 if n_fail else 0, "error": None})


def filler(n, seed=0):
    words = ("inventory reservation stock ledger warehouse sku batch order shipment invoice "
             "carrier pallet audit reconcile threshold").split()
    out = []
    i = seed
    while sum(len(w) + 1 for w in out) < n:
        out.append(words[(i * 5 + i // 3) % len(words)])
        i += 1
    return " ".join(out)[:n]


# ---------------------------------------------------------------------------
# Running one case
# ---------------------------------------------------------------------------


def _strip_private(msg):
    return {k: v for k, v in msg.items() if not k.startswith("_")}


def _describe_change(before, after):
    diffs = []
    for key in sorted(set(before) | set(after)):
        if key.startswith("_"):
            continue
        if before.get(key) != after.get(key):
            diffs.append(key)
    return diffs


def run_compression(comp, messages, **compress_kw):
    """Run comp.compress() on `messages` (the source list) and classify every source record."""
    src = copy.deepcopy(messages)
    SPY.reset()
    n_calls_before = len(FAKE.calls)
    out = comp.compress(messages, **compress_kw)
    req = FAKE.calls[n_calls_before:]
    res = {"noop": out is messages}
    if out is messages:
        return out, res, req
    pruned = SPY.pruned
    pos_of = {id(m): i for i, m in enumerate(pruned)}
    assert len(pruned) == len(src)
    copy_src = {id(c): pos_of[id(o)] for c, o in SPY.copies if id(o) in pos_of}
    kept, kept_modified, summary_inserted = [], [], None
    for pos, o in enumerate(out):
        si = copy_src.get(id(o))
        if si is None:
            assert o.get("_compressed_summary"), f"unmapped output message at {pos}: {o!r:.200}"
            summary_inserted = {"role": o["role"], "content": o["content"], "position": pos,
                                "merged_into_source_index": None,
                                "metadata": {k: v for k, v in o.items() if k.startswith("_")}}
            continue
        kept.append(si)
        if o.get("_compressed_summary"):
            summary_inserted = {"role": o["role"], "content": o["content"], "position": pos,
                                "merged_into_source_index": si,
                                "metadata": {k: v for k, v in o.items() if k.startswith("_")}}
        if _strip_private(o) != src[si]:
            kept_modified.append({"source_index": si, "position": pos,
                                  "changed_keys": _describe_change(src[si], o),
                                  "message": _strip_private(o)})
    turns_idx = [pos_of[id(t)] for t in (SPY.turns or [])]
    rendered = set(turns_idx)
    prev_summary_idx = None
    notes = []
    if SPY.summary_find and SPY.summary_find[0] is not None and req:
        prompt = req[-1]["messages"][0]["content"]
        if "PREVIOUS SUMMARY:\n" in prompt:
            prev_summary_idx = SPY.summary_find[0]
            rendered.add(prev_summary_idx)
    kept_set = set(kept)
    both = sorted(kept_set & rendered)
    if both:
        notes.append(f"source records {both} are kept verbatim AND rendered into the summarizer "
                     f"input (listed under kept only)")
    summarized = sorted(rendered - kept_set)
    dropped = sorted(set(range(len(src))) - kept_set - set(summarized))
    res.update({
        "kept": sorted(kept_set), "summarized": summarized, "dropped": dropped,
        "kept_modified": kept_modified, "summary_inserted": summary_inserted,
        "rendered_turn_source_indices": turns_idx,
        "previous_summary_source_index": prev_summary_idx,
        "pruned_before_cut": [
            {"source_index": i, "content": _strip_private(p).get("content"),
             **({"tool_calls": p.get("tool_calls")} if p.get("tool_calls") != src[i].get("tool_calls") else {})}
            for i, p in enumerate(pruned) if _strip_private(p) != src[i]],
        "notes": notes,
    })
    return out, res, req


def compressor_state(comp):
    return {
        "context_length": comp.context_length,
        "threshold_percent": comp.threshold_percent,
        "threshold_tokens": comp.threshold_tokens,
        "tail_token_budget": comp.tail_token_budget,
        "max_summary_tokens": comp.max_summary_tokens,
        "summary_target_ratio": comp.summary_target_ratio,
        "protect_first_n": comp.protect_first_n,
        "protect_last_n": comp.protect_last_n,
        "max_tokens": comp.max_tokens,
        "compression_count": comp.compression_count,
    }


CASES: list[dict] = []


def case(fn):
    CASES.append(fn)
    return fn


def write_case(name, messages, settings, *, comp=None, extra=None, setup_notes=(), force=False,
               pre=None):
    """settings = exactly the non-default ContextCompressor kwargs passed (framework names)."""
    OUT.mkdir(parents=True, exist_ok=True)
    if comp is None:
        comp = ContextCompressor(**settings)
    state_before = compressor_state(comp)
    measure = estimate_messages_tokens_rough(messages)
    threshold = comp.threshold_tokens
    fired = bool(comp.should_compress(measure)) if not force else True
    expected = {"fired": fired, "reason": "manual /compress (force=True)" if force else None,
                "measure": measure, "threshold": threshold}
    notes = list(setup_notes)
    error = None
    if fired:
        if pre is not None:
            try:
                pre(comp)
            except ValueError as e:  # e.g. aux window below MINIMUM_CONTEXT_LENGTH
                error = {"type": type(e).__name__, "message": str(e)}
    if fired and error is None:
        out, res, req = run_compression(comp, messages, force=force) if force else run_compression(comp, messages)
        if res["noop"]:
            expected.update({
                "compaction_noop": True,
                "kept_source_indices": list(range(len(messages))),
                "summarized_source_indices": [], "dropped_source_indices": [],
                "summarizer": None, "summary_inserted": None,
                "compacted_history_len": len(out),
            })
            notes.append("should_compress() fired but compress() returned the list unchanged "
                         "(counts as an ineffective compression: _ineffective_compression_count="
                         f"{comp._ineffective_compression_count})")
        else:
            call = req[-1]
            expected.update({
                "compaction_noop": False,
                "kept_source_indices": res["kept"],
                "summarized_source_indices": res["summarized"],
                "dropped_source_indices": res["dropped"],
                "summarizer": {
                    "messages": call["messages"],
                    "request": {k: v for k, v in call.items() if k not in ("messages", "main_runtime")},
                    "calls": len(req),
                    "returned": FAKE.returned[-1],
                },
                "summary_inserted": res["summary_inserted"],
                "kept_modified": res["kept_modified"],
                "pruned_before_cut": res["pruned_before_cut"],
                "compacted_history_len": len(out),
                # as compress() returned it: in-process keys (`_compressed_summary`) included
                "compacted_history": [dict(m) for m in out],
                "internals": {
                    "head_size": SPY.head_size,
                    "compress_end": SPY.tail_cut,
                    "rendered_turn_source_indices": res["rendered_turn_source_indices"],
                    "previous_summary_source_index": res["previous_summary_source_index"],
                    "summary_target_tokens": SPY.budget,
                },
            })
            notes += res["notes"]
    else:
        expected.update({
            "kept_source_indices": list(range(len(messages))),
            "summarized_source_indices": [], "dropped_source_indices": [],
            "summarizer": None, "summary_inserted": None,
            "compacted_history_len": len(messages),
        })
        if error:
            expected["error"] = error
    golden = {
        "framework": "hermes-agent",
        "version": HERMES_VERSION,
        "preset": "hermes",
        "case": name,
        "settings": settings,
        "model": comp.model,
        "context_window": comp.context_length,
        "today": FIXED_NOW.strftime("%Y-%m-%d"),
        "measure_fn": "agent.model_metadata.estimate_messages_tokens_rough(messages) "
                      "(== estimate_request_tokens_rough(messages, system_prompt='', tools=None); "
                      "system prompt is messages[0])",
        "compressor_state": state_before,
        "expected": expected,
        "notes": notes,
    }
    if extra:
        golden.update(extra)
    (OUT / f"{name}.input.json").write_text(
        json.dumps(messages, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    (OUT / f"{name}.golden.json").write_text(
        json.dumps(golden, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    kept = expected["kept_source_indices"]
    print(f"{name:32s} n={len(messages):3d} measure={measure:6d} threshold={threshold:6d} "
          f"fired={fired!s:5s} kept={len(kept)} summarized={len(expected['summarized_source_indices'])} "
          f"dropped={len(expected['dropped_source_indices'])}" + (f" ERROR {error['type']}" if error else ""))


# ---------------------------------------------------------------------------
# Session scripts
# ---------------------------------------------------------------------------


def base_session(h: H, turns=6, seed=0, big=2500):
    """A realistic coding session: read files, run tests, patch, rerun."""
    h.user("The /orders endpoint returns 409 when stock is exactly zero. Find out why and fix it; "
           "keep the public API unchanged.")
    h.call("I'll look at the order service first.", "read_file",
           {"path": "src/inventory/orders.py", "offset": 1, "limit": 120},
           json.dumps({"content": code_file("src/inventory/orders.py", big // 60, seed), "total_lines": 412}))
    h.call(None, "search_files", {"pattern": "reserve_stock", "path": "src", "file_glob": "*.py"},
           json.dumps({"matches": [f"src/inventory/{f}.py:{10 + i * 13}: reserve_stock(sku, qty)"
                                   for i, f in enumerate(["orders", "ledger", "returns", "batch"])]}))
    for t in range(turns):
        h.call(f"Running the test suite (round {t + 1}).", "terminal",
               {"command": f"cd /home/dev/projects/inventory-api && pytest tests/ -x -q -k stock_{t}", "timeout": 180},
               pytest_output(6 + t, 1 if t < turns - 1 else 0, seed=seed + t))
        h.call(f"The failure comes from the `<=` comparison in ledger.py line {40 + t}; patching it.", "patch",
               {"mode": "replace", "path": "src/inventory/ledger.py",
                "old_string": f"if available <= qty_{t}:", "new_string": f"if available < qty_{t}:"},
               json.dumps({"success": True, "diff": f"--- a/src/inventory/ledger.py\n+++ b/src/inventory/ledger.py\n"
                                                    f"@@ -{40 + t} +{40 + t} @@\n-    if available <= qty_{t}:\n+    if available < qty_{t}:\n"}))
        h.user(f"Good. Also check that the batch importer doesn't hit the same bug (note {t}).")
        h.asst(f"Checked the batch importer: it calls `reserve_stock` with qty={t + 1} and uses the same "
               f"ledger path, so the patch covers it. {filler(300, t)}")
    return h


# ---------------------------------------------------------------------------
# Cases
# ---------------------------------------------------------------------------


@case
def c_default_settings():
    # Only the required `model`; the window comes from Hermes's own table (gemma* -> 8,192),
    # threshold_percent 0.50 -> raised to 0.75 (<512K) -> floored at 64,000 >= window -> 85%.
    h = H(prefix="call")
    base_session(h, turns=8, seed=1)
    # same file read twice -> older duplicate is deduplicated by the prune pass
    h.call("Re-reading orders.py to confirm the fix.", "read_file",
           {"path": "src/inventory/orders.py", "offset": 1, "limit": 120},
           json.dumps({"content": code_file("src/inventory/orders.py", 2500 // 60, 1), "total_lines": 412}))
    h.user("Thanks. Summarize what you changed.")
    h.asst("I changed five `<=` comparisons to `<` in src/inventory/ledger.py; all stock tests pass now.")
    write_case("default-settings", h.m, {"model": "gemma-2-9b-it"})


@case
def c_parallel_tools():
    h = H(prefix="call_par")
    h.user("Audit the three services for hard-coded credentials and tell me what you find.")
    ids = h.asst("I'll grep all three services in parallel.", [
        ("search_files", {"pattern": "API_KEY|SECRET|PASSWORD", "path": "services/billing"}),
        ("search_files", {"pattern": "API_KEY|SECRET|PASSWORD", "path": "services/shipping"}),
        ("search_files", {"pattern": "API_KEY|SECRET|PASSWORD", "path": "services/auth"}),
    ])
    h.tool(ids[0], "search_files", json.dumps({"matches": [
        "services/billing/settings.py:12: STRIPE_API_KEY = os.environ['STRIPE_API_KEY']",
        "services/billing/.env.example:3: STRIPE_API_KEY=changeme"]}))
    h.tool(ids[1], "search_files", json.dumps({"matches": [
        "services/shipping/config.py:8: OPENAI_API_KEY=sk-proj-Zx9Qm2Lr7Tb4Vn1Kc8Hd3Jf6Wg0Ys5Pa1Ue2Io3",
        "services/shipping/config.py:9: CARRIER_PASSWORD='hunter2-but-longer'"] + [
        f"services/shipping/vendor/lib_{i}.py:{i}: # SECRET handling docs line {i}" for i in range(40)]}))
    h.tool(ids[2], "search_files", json.dumps({"matches": []}))
    h.asst("Found a live-looking OpenAI key and a carrier password in services/shipping/config.py. "
           "Billing reads its key from the environment; auth is clean.")
    h.user("Rotate nothing yet, but move the shipping secrets into the environment.")
    ids = h.asst(None, [
        ("read_file", {"path": "services/shipping/config.py"}),
        ("read_file", {"path": "services/shipping/settings.py"}),
        ("terminal", {"command": "git -C services/shipping log --oneline -5"}),
        ("terminal", {"command": "export STRIPE_API_KEY=sk_live_51HxQm2Lr7Tb4Vn1Kc8Hd3Jf6 && env | grep SHIPPING_"}),
    ])
    h.tool(ids[0], "read_file", json.dumps({"content": code_file("services/shipping/config.py", 60, 2)}))
    h.tool(ids[1], "read_file", json.dumps({"content": code_file("services/shipping/settings.py", 45, 3)}))
    h.tool(ids[2], "terminal", json.dumps({"output": "\n".join(f"{i:07x} shipping: change {i}" for i in range(5)),
                                           "exit_code": 0, "error": None}))
    h.tool(ids[3], "terminal", json.dumps({"output": "SHIPPING_TOKEN=ghp_Ab12Cd34Ef56Gh78Ij90Kl12Mn34Op56Qr78\n"
                                                     "SHIPPING_OPENAI_API_KEY=sk-proj-Zx9Qm2Lr7Tb4Vn1Kc8Hd3Jf6",
                                           "exit_code": 0, "error": None}))
    for t in range(4):
        ids = h.asst(f"Step {t + 1}: editing both files together.", [
            ("patch", {"mode": "replace", "path": "services/shipping/config.py",
                       "old_string": f"CARRIER_{t} = '...'", "new_string": f"CARRIER_{t} = os.environ['CARRIER_{t}']"}),
            ("patch", {"mode": "replace", "path": "services/shipping/settings.py",
                       "old_string": f"load_{t}()", "new_string": f"load_{t}(env=os.environ)"}),
        ])
        for cid in ids:
            h.tool(cid, "patch", json.dumps({"success": True, "diff": filler(900, t)}))
        h.asst(f"Done with step {t + 1}. {filler(400, t + 7)}")
        h.user(f"Continue with step {t + 2}.")
    h.asst("All shipping secrets now come from the environment; nothing was rotated.")
    write_case("parallel-tools", h.m, {"model": "gpt-4o-mini", "config_context_length": 7000})


@case
def c_huge_tool_result_tail():
    # The 30K result sits right before the budget boundary: the group is pulled INTO the tail.
    huge_session(False)


@case
def c_huge_tool_result():
    # More turns after the 30K result: it is summarized (6,000-char cap) but not pruned
    # (still inside the last protect_last_n messages).
    huge_session(True)


def huge_session(more):
    h = H(prefix="call_big")
    h.user("The nightly import job crashed. Look at the log and tell me the root cause.")
    h.call("Listing the log directory.", "terminal", {"command": "ls -la /var/log/inventory/"},
           json.dumps({"output": "\n".join(f"-rw-r--r-- 1 app app {1000 * i:>8} Jan 14 0{i % 10}:00 import-{i}.log"
                                           for i in range(30)), "exit_code": 0, "error": None}))
    h.call("Reading the import module.", "read_file", {"path": "src/inventory/importer.py"},
           json.dumps({"content": code_file("src/inventory/importer.py", 140, 4), "total_lines": 140}))
    h.asst("The importer streams rows in batches of 500. Let me grab the crash log itself.")
    h.user("Here is what ops pasted in the incident channel:\n" + "\n".join(
        f"[2026-01-14T02:{i // 60:02d}:{i % 60:02d}Z] WARN batch {i}: retrying sku-{i * 7} after lock timeout"
        for i in range(95)))
    log = "\n".join(
        f"2026-01-14T02:{(i // 60) % 60:02d}:{i % 60:02d}.{i % 1000:03d}Z INFO importer row={i} sku=SKU-{i * 13 % 9973:05d} qty={i % 17} ok"
        for i in range(330))
    log = log[:29_000] + "\nTraceback (most recent call last):\n  File \"src/inventory/importer.py\", line 88, in flush\n    ledger.reserve(batch)\nDeadlockDetected: deadlock detected on relation stock_ledger\n"
    log = (log + "#" * 30_000)[:30_000]
    h.call("Reading the full crash log.", "terminal", {"command": "cat /var/log/inventory/import-29.log"},
           json.dumps({"output": log, "exit_code": 0, "error": None}))
    h.asst("The job died on a DeadlockDetected in importer.flush -> ledger.reserve. The earlier lock "
           "timeouts in the pasted log are the same contention.")
    if more:
        h.user("Is the deadlock in the ledger or in the importer's own retry loop?")
        h.call("Reading the ledger.", "read_file", {"path": "src/inventory/ledger.py"},
               json.dumps({"content": code_file("src/inventory/ledger.py", 130, 5)}))
        h.asst("The retry loop only re-raises; the lock order lives in ledger.reserve. " + filler(2000, 4))
        h.user("Show me the pg_locks snapshot ops took.")
        h.call(None, "terminal", {"command": "cat /tmp/pg_locks.txt"},
               json.dumps({"output": filler(6000, 8), "exit_code": 0, "error": None}))
        h.asst("Two importer backends hold row locks on stock_ledger in opposite SKU order.")
        write_case("huge-tool-result", h.m, {"model": "gpt-4o-mini", "config_context_length": 14000,
                                             "protect_last_n": 12})
        return
    h.user("Why would two batches deadlock?")
    h.call("Checking the lock order in ledger.reserve.", "search_files",
           {"pattern": "FOR UPDATE", "path": "src/inventory"},
           json.dumps({"matches": ["src/inventory/ledger.py:51: SELECT ... FOR UPDATE  -- rows in input order"]}))
    h.asst("ledger.reserve locks rows in input order, so two batches touching the same SKUs in different "
           "order deadlock. Sorting SKUs before locking fixes it.")
    h.user("Do it.")
    h.call(None, "patch", {"mode": "replace", "path": "src/inventory/ledger.py",
                           "old_string": "for sku in batch:", "new_string": "for sku in sorted(batch):"},
           json.dumps({"success": True, "diff": "-    for sku in batch:\n+    for sku in sorted(batch):"}))
    h.asst("Patched: rows are now locked in sorted SKU order.")
    write_case("huge-tool-result-tail", h.m, {"model": "gpt-4o-mini", "config_context_length": 14000,
                                         "protect_last_n": 12})


@case
def c_unicode():
    h = H(prefix="call_uni", system="あなたは Hermes です。ユーザーの言語で答えてください。🌸")
    h.user("请帮我把 docs/说明书.md 翻译成日语，保留表情符号 👍🏽 和重音符号 (café, naïve, e\u0301).")
    h.call("好的，我先读取文件。", "read_file", {"path": "docs/说明书.md"},
           json.dumps({"content": "\n".join(f"{i}| 第{i}节：库存管理 📦 — café e\u0301 ñ 👨‍👩‍👧 " + "数据" * 20
                                             for i in range(60))}, ensure_ascii=False),
           ascii_args=False)
    h.call("文件很长，我先检查编码。", "terminal", {"command": "file -i docs/说明书.md && wc -m docs/说明书.md"},
           json.dumps({"output": "docs/说明书.md: text/plain; charset=utf-8\n4821 docs/说明书.md", "exit_code": 0,
                       "error": None}), ascii_args=True)
    for t in range(5):
        h.call(f"正在写入第 {t + 1} 部分（日本語）🚀", "write_file",
               {"path": f"docs/説明書_{t}.md", "content": f"# 第{t}章 在庫管理 📦\n" + "データ管理とは、café のように… e\u0301 " * 25},
               json.dumps({"success": True, "bytes_written": 2048 + t}, ensure_ascii=False),
               ascii_args=(t % 2 == 0))
        h.user(f"第 {t + 1} 部分看起来不错 ✅，继续。Zalgo t\u0336e\u0337s\u0338t\u0335 🇯🇵")
        h.asst(f"了解です。第 {t + 2} 部分に進みます。{'絵文字 🎌 ' * 20}")
    write_case("unicode", h.m, {"model": "gpt-4o-mini", "config_context_length": 5500, "protect_last_n": 6})


PREV_SUMMARY_BODY = (
    "## Historical Task Snapshot\nUser asked (deterministic, from compacted turns): 'Set up CI for the "
    "inventory service.'\nHistorical only; newer protected-tail messages after this summary win.\n\n"
    "## Goal\nCI for inventory-api.\n\n## Completed Actions\n1. CREATE .github/workflows/ci.yml — lint+test "
    "jobs [tool: write_file]\n2. TEST `act -j test` — 41/41 passed [tool: terminal]\n\n## Active State\n"
    "Branch ci-setup, workflow green locally.")


def prev_summary_session(h: H, legacy=False):
    if legacy:
        summary = "[CONTEXT SUMMARY]: " + PREV_SUMMARY_BODY
    else:
        summary = SUMMARY_PREFIX + "\n" + PREV_SUMMARY_BODY + "\n\n" + _SUMMARY_END_MARKER
    h.m.append({"role": "user", "content": summary})
    h.user("Now add a coverage gate at 85% to the workflow.")
    h.call("Reading the workflow.", "read_file", {"path": ".github/workflows/ci.yml"},
           json.dumps({"content": "\n".join(f"{i:>4}|  step_{i}: run: make target_{i}" for i in range(80))}))
    for t in range(5):
        h.call(f"Running coverage (attempt {t + 1}).", "terminal",
               {"command": "pytest --cov=src --cov-fail-under=85 -q"},
               json.dumps({"output": f"TOTAL {2000 + t * 50} {300 - t * 40} {82 + t}%\n" + filler(1400, t),
                           "exit_code": 1 if t < 4 else 0, "error": None}))
        h.asst(f"Coverage is {82 + t}%. Adding tests for ledger edge cases. {filler(500, t + 3)}")
        h.user(f"ok, keep going ({t + 1}/5)")
    h.asst("Coverage is now 86% and the gate is in ci.yml.")
    return h


@case
def c_previous_summary_in_head():
    # Fresh compressor (resume): protect_first_n=3 still applies, so the old summary sits in the
    # protected head -> kept verbatim AND used as PREVIOUS SUMMARY (iterative prompt).
    h = prev_summary_session(H(prefix="call_ps"))
    write_case("previous-summary-in-head", h.m, {"model": "gpt-4o-mini", "config_context_length": 5000})


@case
def c_previous_summary_in_window():
    # protect_first_n=0 -> the (legacy-prefixed) summary is the first compressible message:
    # rendered as PREVIOUS SUMMARY, not kept.
    h = prev_summary_session(H(prefix="call_pw"), legacy=True)
    write_case("previous-summary-in-window", h.m, {"model": "gpt-4o-mini", "config_context_length": 5000,
                                                   "protect_first_n": 0})


@case
def c_last_user_anchor():
    # Token budget boundary lands inside a 5-call parallel group; last real user message is old,
    # so the last-user anchor pulls the cut back.
    h = H(prefix="call_grp")
    h.user("Profile the /reports endpoint and speed it up.")
    h.call("Profiling first.", "terminal", {"command": "py-spy record -o /tmp/prof.svg -- python bench.py"},
           json.dumps({"output": filler(1800, 1), "exit_code": 0, "error": None}))
    h.asst("Most time is spent in report_rows(); checking its queries.")
    h.user("Go ahead, and batch the queries if you can. Don't touch the CSV exporter.")
    for g in range(3):
        ids = h.asst(f"Inspecting query group {g + 1} in parallel.", [
            ("read_file", {"path": f"src/reports/q{g}_{i}.sql"}) for i in range(5)])
        for i, cid in enumerate(ids):
            h.tool(cid, "read_file", json.dumps({"content": f"-- q{g}_{i}\n" + filler(700 + 37 * i, g * 5 + i)}))
        h.asst(f"Group {g + 1}: five N+1 queries that can be merged into one JOIN.")
    ids = h.asst(None, [("patch", {"path": f"src/reports/q{i}.py", "mode": "replace",
                                   "old_string": "for row in rows:", "new_string": "rows = batch(rows)"})
                        for i in range(4)])
    for cid in ids:
        h.tool(cid, "patch", json.dumps({"success": True, "diff": filler(600, 9)}))
    h.call(None, "terminal", {"command": "python bench.py"},
           json.dumps({"output": "p50 41ms p95 88ms (was p50 410ms)", "exit_code": 0, "error": None}))
    write_case("last-user-anchor", h.m, {"model": "gpt-4o-mini", "config_context_length": 7000,
                                          "protect_last_n": 4})


@case
def c_cut_in_tool_group():
    # The token walk crosses the soft ceiling inside a 5-call parallel group whose results follow
    # the last real user message; the cut is moved before the group's assistant message.
    h = H(prefix="call_cg")
    h.user("Profile the /reports endpoint and speed it up.")
    h.call("Profiling first.", "terminal", {"command": "py-spy record -o /tmp/prof.svg -- python bench.py"},
           json.dumps({"output": filler(1800, 1), "exit_code": 0, "error": None}))
    h.asst("Most time is spent in report_rows(); checking its queries.")
    for g in range(2):
        h.user(f"Go ahead with query group {g + 1}; batch the queries if you can.")
        ids = h.asst(f"Inspecting query group {g + 1} in parallel.", [
            ("read_file", {"path": f"src/reports/q{g}_{i}.sql"}) for i in range(5)])
        for i, cid in enumerate(ids):
            h.tool(cid, "read_file", json.dumps({"content": f"-- q{g}_{i}\n" + filler(2200 + 37 * i, g * 5 + i)}))
        h.asst(f"Group {g + 1}: five N+1 queries that can be merged into one JOIN.")
    h.user("Thanks, that's enough for today.")
    h.asst("OK. Summary: both groups can be merged; I have not edited anything yet.")
    write_case("cut-in-tool-group", h.m, {"model": "gpt-4o-mini", "config_context_length": 7000,
                                          "protect_last_n": 4})


def threshold_session(pad):
    h = H(prefix="call_thr")
    base_session(h, turns=3, seed=5)
    h.call("Dumping the slow-query log for the record.", "terminal", {"command": "tail -n 400 /var/log/pg/slow.log"},
           json.dumps({"output": pad, "exit_code": 0, "error": None}))
    h.user("What's the slowest query?")
    h.asst("The stock_ledger aggregate without an index on (sku, created_at).")
    return h


def sized_session(target):
    """Pad so that estimate_messages_tokens_rough(history) == target exactly."""
    n = 1000
    for _ in range(200):
        m = threshold_session(filler(n, 2)).m
        est = estimate_messages_tokens_rough(m)
        if est == target:
            return m
        n += (target - est) * 4 if abs(target - est) > 2 else (1 if est < target else -1)
    raise RuntimeError("could not hit target size")


@case
def c_just_below():
    settings = {"model": "gpt-4o-mini", "config_context_length": 16000}
    t = ContextCompressor(**settings).threshold_tokens
    write_case("threshold-just-below", sized_session(t - 1), settings)


@case
def c_just_above():
    settings = {"model": "gpt-4o-mini", "config_context_length": 16000}
    t = ContextCompressor(**settings).threshold_tokens
    write_case("threshold-exactly-at", sized_session(t), settings,
               setup_notes=["should_compress() fires at tokens >= threshold_tokens (measure == threshold here)"])


@case
def c_reasoning():
    h = H(prefix="call_rsn")
    h.user("Why does the reconciliation report double-count returns?")
    for t in range(6):
        (cid,) = h.asst(
            f"<think>Maybe returns are joined twice via batch {t}? Check the SQL.</think>Checking the join for batch {t}."
            if t % 2 == 0 else f"Checking the join for batch {t}.",
            [("read_file", {"path": f"sql/reconcile_{t}.sql"})],
            reasoning=f"The double count likely comes from joining returns on both order_id and batch_id ({t}). " * 6,
            reasoning_content=f"The double count likely comes from joining returns on both order_id and batch_id ({t}). " * 6,
            reasoning_details=[{"type": "reasoning.encrypted", "id": f"rs_{t:04d}", "format": "anthropic-claude-v1",
                                "data": "EqQBCkgIARABGAIiQ" + "A" * 400 + f"{t}=="}],
        )
        h.tool(cid, "read_file", json.dumps({"content": f"SELECT * FROM returns r JOIN batches b ON ... -- {t}\n" + filler(1200, t)}))
        h.user(f"And batch {t + 1}?")
    h.asst("Found it: returns join on both keys in reconcile_2.sql, producing two rows per return.",
           reasoning="Confirmed by the row counts.", reasoning_content="Confirmed by the row counts.")
    write_case("reasoning", h.m, {"model": "deepseek-reasoner", "config_context_length": 6000})


@case
def c_no_system_merge():
    # Auto-compression path shape: the transcript WITHOUT the system prompt (Hermes prepends it at
    # request-build time).  head = [user, assistant]; the cut is pulled back to the last user
    # message, so the summary role would collide with both neighbours -> merged into the tail.
    h = H(prefix="call_ns", system=None)
    h.user("Migrate the ledger table to use bigint ids.")
    h.asst("Sure — I'll check the current schema, write a migration, and test it on a copy.")
    h.call("Current schema:", "terminal", {"command": "psql -c '\\d stock_ledger'"},
           json.dumps({"output": filler(1600, 4), "exit_code": 0, "error": None}))
    h.call("Writing the migration.", "write_file", {"path": "migrations/0042_bigint_ids.sql",
                                                    "content": "ALTER TABLE stock_ledger ALTER COLUMN id TYPE bigint;\n" * 10},
           json.dumps({"success": True}))
    h.asst("Migration written. " + filler(600, 5))
    h.user("Run it against the staging copy and then do the follow-up index rebuild.")
    for t in range(6):
        h.call(f"Step {t + 1}.", "terminal", {"command": f"make migrate-staging STEP={t}"},
               json.dumps({"output": filler(1300, t + 10), "exit_code": 0, "error": None}))
    h.asst("Migration and index rebuild finished on staging.")
    write_case("no-system-merge", h.m, {"model": "gpt-4o-mini", "config_context_length": 4000,
                                        "protect_first_n": 2})


@case
def c_protect_head_tail_custom():
    # Non-default protect_first_n / protect_last_n / summary_target_ratio / max_tokens.
    h = H(prefix="call_ph")
    base_session(h, turns=6, seed=3, big=3000)
    h.user("Final check: run the full suite.")
    h.call(None, "terminal", {"command": "pytest -q"}, pytest_output(60, 0, seed=9))
    h.asst("Full suite green: 60 passed.")
    write_case("protect-head-tail-custom", h.m, {
        "model": "gpt-4o-mini", "config_context_length": 100000, "max_tokens": 93000,
        "protect_first_n": 1, "protect_last_n": 6, "summary_target_ratio": 0.35})


@case
def c_window_272k():
    # Threshold rules on a large window: 0.50 raised to 0.75 (<512K) -> 204,000; far below.
    h = H(prefix="call_w")
    base_session(h, turns=2, seed=6)
    write_case("window-272k-below", h.m, {"model": "gpt-5.5", "config_context_length": 272000})


@case
def c_window_1m():
    # >=512K keeps the configured percent; max_tokens carves output room from the window.
    h = H(prefix="call_w1")
    base_session(h, turns=2, seed=7)
    write_case("window-1m-percent", h.m, {"model": "gpt-5.5", "config_context_length": 1000000,
                                          "threshold_percent": 0.3, "max_tokens": 128000})


MODEL_SUMMARY = """

<think>The user wants the ledger fix; list the files first.</think>
## Goal
Fix the 409 on /orders when stock is exactly zero.

## Historical Task Snapshot
User asked: 'an ask the summarizer made up'
  (the model's own wording, replaced by Hermes)

## Completed Actions
1. PATCH src/inventory/ledger.py:40 — `<=` to `<` [tool: patch]
2. Deploy token used: ghp_Zx9Qm2Lr7Tb4Vn1Kc8Hd3Jf6Wg0Ys5Pa1Ue2

## Critical Context
SUMMARY-<n>
   """


@case
def c_model_summary_grounded():
    # A model summary as a real summarizer writes it: surrounding whitespace, a think block, its
    # own "## Historical Task Snapshot" section between others, a secret. Hermes strips the think
    # block, redacts, replaces the snapshot section with its deterministic one (from the newest
    # real user turn it compacted) and adds the prefix and end marker.
    FAKE.reply = MODEL_SUMMARY
    h = H(prefix="call_ms")
    base_session(h, turns=5, seed=4)
    h.user("Now double-check the returns flow too.")
    h.asst("The returns flow uses `release_stock`, which never compared with `<=`; nothing to change.")
    write_case("model-summary-grounded", h.m, {"model": "gpt-4o-mini", "config_context_length": 5000})


@case
def c_tiny_noop():
    # Fires (one huge result) but len(messages) <= head + 4 -> compress() is a no-op.
    h = H(prefix="call_tiny")
    h.user("Show me the whole access log.")
    h.call(None, "terminal", {"command": "cat /var/log/nginx/access.log"},
           json.dumps({"output": filler(60000, 3), "exit_code": 0, "error": None}))
    h.asst("That's the full log; most traffic is /orders.")
    write_case("tiny-session-noop", h.m, {"model": "gpt-4o-mini", "config_context_length": 12000})


SUMMARY_POS: list = []


class _AuxClient:
    base_url = "http://aux.invalid/v1"
    api_key = ""


def _fake_agent(comp, aux_window):
    return SimpleNamespace(
        compression_enabled=True, context_compressor=comp, model=comp.model, provider="",
        _aux_compression_context_length_config=aux_window, _custom_providers=None,
        _current_main_runtime=lambda: {"model": comp.model, "provider": "", "base_url": "", "api_key": ""},
        _emit_status=lambda msg: None, _compression_warning=None)


def _patch_aux(model="aux-summarizer-64k"):
    auxc.get_text_auxiliary_client = lambda task, main_runtime=None, **k: (_AuxClient(), model)


@case
def c_aux_window_lowers_threshold():
    """Main window 200,000 (threshold 150,000); auxiliary compression model window 64,000.
    Step A (not recorded): the first compaction runs the lazy feasibility check, which lowers the
    live session threshold to 64,000 (tail_token_budget stays 30,000).  Step B (the golden): the
    session has grown to just over 64,000 estimated tokens and fires again at the LOWERED threshold,
    although it is far below the original 150,000."""
    _patch_aux()
    settings = {"model": "gpt-4o", "config_context_length": 200000}
    comp = ContextCompressor(**settings)
    original = compressor_state(comp)
    agent_ns = _fake_agent(comp, 64000)
    h = H(prefix="call_aux")
    base_session(h, turns=4, seed=8)
    check_compression_model_feasibility(agent_ns)  # what compress_context() does lazily, first time
    after_check = compressor_state(comp)
    step_a = comp.compress(h.m, force=True)  # the earlier (manual /compress) compaction
    SUMMARY_POS[:] = [k for k, m in enumerate(step_a) if m.get("_compressed_summary")]
    # Session continues after step A.
    h2 = H(prefix="call_aux2", system=None)
    h2.m = [_strip_private(m) for m in step_a]
    h2.k = 100
    h2.user("Next: backfill the ledger for the last 90 days and verify totals per warehouse.")
    w = 0
    while estimate_messages_tokens_rough(h2.m) < 64000:
        h2.call(f"Backfilling warehouse {w}.", "terminal",
                {"command": f"python -m inventory.backfill --warehouse {w} --days 90"},
                json.dumps({"output": f"warehouse {w}\n" + filler(7800, w), "exit_code": 0, "error": None}))
        h2.asst(f"Warehouse {w} done; totals match the invoice ledger.")
        w += 1
    h2.user("Which warehouses had mismatches?")
    h2.asst("None — all totals matched after the backfill.")
    write_case("aux-window-lowers-threshold", h2.m, settings, comp=comp, extra={
        "auxiliary": {"model": "aux-summarizer-64k", "context_length": 64000,
                      "config_key": "auxiliary.compression.context_length"},
        "threshold_history": {"at_construction": original, "after_feasibility_check": after_check},
    }, setup_notes=[
        ("compressor state is AFTER one earlier compaction in the same process (step A, a manual "
         "/compress of the first part of this session; its summary is messages[%d]): compression_count=1, "
         "_previous_summary set, so protect_first_n has decayed to 0" % SUMMARY_POS[0]),
        "check_compression_model_feasibility() lowered threshold_tokens 150000 -> 64000 and "
        "threshold_percent 0.75 -> 0.32 at the first compaction; tail_token_budget (30000) was NOT "
        "recomputed",
        "the measure is below the original 150000 threshold, so this compaction only fires because of "
        "the auxiliary window",
    ])


@case
def c_aux_window_too_small():
    _patch_aux("aux-summarizer-32k")
    settings = {"model": "gpt-4o-mini", "config_context_length": 4000}
    comp = ContextCompressor(**settings)
    agent_ns = _fake_agent(comp, 32000)
    h = H(prefix="call_auxs")
    base_session(h, turns=4, seed=9)
    write_case("aux-window-too-small", h.m, settings, comp=comp,
               pre=lambda c: check_compression_model_feasibility(agent_ns),
               extra={"auxiliary": {"model": "aux-summarizer-32k", "context_length": 32000,
                                    "config_key": "auxiliary.compression.context_length"}},
               setup_notes=["the lazy feasibility check at the first compaction raises ValueError "
                            "(aux window < MINIMUM_CONTEXT_LENGTH 64000); the session refuses to "
                            "continue and the history is unchanged"])


def main():
    only = set(sys.argv[1:])
    for fn in CASES:
        FAKE.reset()
        if only and fn.__name__ not in only:
            continue
        fn()


if __name__ == "__main__":
    main()
