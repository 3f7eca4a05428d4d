"""Oracle goldens for Microsoft Agent Framework compaction (agent-framework-core).

Runs the framework's REAL compaction strategies (agent_framework._compaction) on
histories built from the framework's own Message/Content types, with a fake
summarizer chat client that records the exact request it receives.

Run through run.sh (one virtualenv per framework version). Under 1.23.x it
writes fixtures/oracle/agent-framework/ plus the LLM-free strategy presets
(agent-framework-sliding, -truncation, -selective-tool, -tool-result,
-token-budget, -context-window); under 1.17.x it writes
fixtures/oracle/agent-framework-1.17/ (SummarizationStrategy only, same cases).

Deterministic: fixed ids, no timestamps, no randomness.
"""

from __future__ import annotations

import asyncio
import copy
import importlib.metadata
import json
import logging
import sys
from pathlib import Path
from typing import Any, Callable

from agent_framework import ChatResponse, Content, Message
from agent_framework import _compaction as C

FRAMEWORK = "agent-framework-core"
VERSION = importlib.metadata.version(FRAMEWORK)
IS_117 = VERSION.startswith("1.17.")
REPO = Path(__file__).resolve().parents[3]
OUT_ROOT = REPO / "fixtures" / "oracle"


# --------------------------------------------------------------------------- fake client


class RecordingChatClient:
    """Implements SupportsChatGetResponse: records each request, returns SUMMARY-n."""

    additional_properties: dict[str, Any] = {}

    def __init__(self, label: str = "SUMMARY") -> None:
        self.label = label
        self.calls: list[list[Message]] = []

    async def get_response(self, messages, *, stream=False, options=None, **kwargs):  # noqa: ANN001
        assert stream is False
        self.calls.append(list(messages))
        text = f"{self.label}-{len(self.calls)}"
        return ChatResponse(messages=[Message(role="assistant", contents=[text])], response_id=f"resp_{len(self.calls)}")


class ProseChatClient(RecordingChatClient):
    """Returns a summary that reads like one (whitespace around it, a second line, non-ASCII),
    so the compacted history shows what the framework does with the text it gets back."""

    async def get_response(self, messages, *, stream=False, options=None, **kwargs):  # noqa: ANN001
        assert stream is False
        self.calls.append(list(messages))
        return ChatResponse(
            messages=[Message(role="assistant", contents=[prose_summary(len(self.calls))])],
            response_id=f"resp_{len(self.calls)}",
        )


def prose_summary(n: int) -> str:
    return (
        f"\n  Summary {n}: the user asked for a fix; the assistant read the files, "
        "changed them and ran the tests (café ✓).\nOpen: nothing.  \n"
    )


class LogCapture(logging.Handler):
    def __init__(self) -> None:
        super().__init__(level=logging.DEBUG)
        self.records: list[dict[str, str]] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.levelno >= logging.WARNING:
            self.records.append({"level": record.levelname, "message": record.getMessage()})


LOG = LogCapture()
logging.getLogger("agent_framework").addHandler(LOG)
logging.getLogger("agent_framework").setLevel(logging.DEBUG)
logging.getLogger("agent_framework").propagate = False


# --------------------------------------------------------------------------- builders


def sys_(text: str, mid: str | None = "sys_0") -> Message:
    return Message(role="system", contents=[Content.from_text(text)], message_id=mid)


def user(text: str, mid: str | None) -> Message:
    return Message(role="user", contents=[Content.from_text(text)], message_id=mid)


def asst(text: str, mid: str | None) -> Message:
    return Message(role="assistant", contents=[Content.from_text(text)], message_id=mid)


def call(mid: str | None, calls: list[tuple[str, str, Any]], text: str | None = None, reasoning: str | None = None) -> Message:
    contents: list[Content] = []
    if reasoning is not None:
        contents.append(Content.from_text_reasoning(text=reasoning))
    if text is not None:
        contents.append(Content.from_text(text))
    for cid, name, args in calls:
        contents.append(Content.from_function_call(call_id=cid, name=name, arguments=args))
    return Message(role="assistant", contents=contents, message_id=mid)


def tool(results: list[tuple[str, Any]], mid: str | None = None, exception: str | None = None) -> Message:
    contents = []
    for cid, res in results:
        if exception is not None:
            contents.append(Content.from_function_result(call_id=cid, result=res, exception=exception))
        else:
            contents.append(Content.from_function_result(call_id=cid, result=res))
    return Message(role="tool", contents=contents, message_id=mid)


SYSTEM = "You are a coding agent working in /repo. Use the tools to inspect and edit files. Be concise."


def file_listing(n: int) -> str:
    return "\n".join(f"src/module_{i:03d}.py" for i in range(n))


def big_log(chars: int) -> str:
    lines = []
    i = 0
    total = 0
    while total < chars:
        line = f"2024-05-01T12:00:{i % 60:02d}Z INFO worker[{i % 7}] processed batch {i} rows=1024 status=ok\n"
        lines.append(line)
        total += len(line)
        i += 1
    return "".join(lines)[:chars]


def base_session() -> list[Message]:
    """A realistic coding-agent session (13 records) with a parallel tool call."""
    return [
        sys_(SYSTEM),
        user("The test suite fails on CI. Find out why and fix it.", "u_1"),
        call("a_2", [("call_ls", "list_files", {"path": "src"})], text="Let me look at the layout first."),
        tool([("call_ls", file_listing(6))]),
        call(
            "a_4",
            [
                ("call_r1", "read_file", {"path": "src/module_001.py"}),
                ("call_r2", "read_file", {"path": "tests/test_module_001.py"}),
            ],
        ),
        tool([("call_r1", "def add(a, b):\n    return a - b\n"), ("call_r2", "def test_add():\n    assert add(2, 2) == 4\n")]),
        asst("`add` subtracts instead of adding; that is the failing test.", "a_6"),
        user("Good catch, please fix it and rerun the tests.", "u_7"),
        call("a_8", [("call_w", "write_file", {"path": "src/module_001.py", "content": "def add(a, b):\n    return a + b\n"})]),
        tool([("call_w", "wrote 34 bytes")]),
        call("a_10", [("call_t", "run_tests", {"args": ["-q"]})]),
        tool([("call_t", "1 passed in 0.02s")]),
        asst("Fixed: `add` now returns a + b and the suite passes.", "a_12"),
    ]


# --------------------------------------------------------------------------- runner


def content_text(message: Message) -> str:
    return message.text


def serialize_summarizer(client: RecordingChatClient) -> dict[str, Any] | None:
    if not client.calls:
        return None
    calls = []
    for req in client.calls:
        msgs = []
        for m in req:
            types = [c.type for c in m.contents]
            entry = {"role": m.role, "content": m.text}
            if types != ["text"]:
                entry["content_types"] = types
            msgs.append(entry)
        calls.append(msgs)
    out: dict[str, Any] = {"messages": calls[-1]}
    if len(calls) > 1:
        out["all_calls"] = calls
    return out


def group_info(m: Message) -> dict[str, Any] | None:
    ann = m.additional_properties.get("_group")
    if not isinstance(ann, dict):
        return None
    return {
        "id": ann.get("id"),
        "kind": ann.get("kind"),
        "index": ann.get("index"),
        "token_count": ann.get("token_count"),
    }


def write_json(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")


def included_non_system_message_count(msgs: list[Message]) -> int:
    ordered = C._ordered_group_ids_from_annotations(msgs)
    grouped = C._group_messages_by_id(msgs)
    kinds = C._group_kind_map(msgs)
    n = 0
    for gid in C._included_group_ids(msgs, ordered):
        if kinds.get(gid) == "system":
            continue
        n += sum(1 for m in grouped.get(gid, []) if not m.additional_properties.get(C.EXCLUDED_KEY, False))
    return n


def included_groups_of_kind(msgs: list[Message], pred: Callable[[str | None], bool]) -> int:
    ordered = C._ordered_group_ids_from_annotations(msgs)
    kinds = C._group_kind_map(msgs)
    return sum(1 for gid in C._included_group_ids(msgs, ordered) if pred(kinds.get(gid)))


def measure_for(strategy: Any, msgs: list[Message]) -> tuple[Any, Any, str]:
    """Annotate a private copy exactly like _run_compaction_strategy and read the trigger metric."""
    tok = getattr(strategy, "tokenizer", None)
    C.annotate_message_groups(msgs)
    if isinstance(tok, C.TokenizerProtocol):
        C.annotate_token_counts(msgs, tokenizer=tok)
    if isinstance(strategy, C.SummarizationStrategy):
        return (
            included_non_system_message_count(msgs),
            strategy.target_count + strategy.threshold,
            "included non-system messages > target_count + threshold",
        )
    if isinstance(strategy, C.TruncationStrategy):
        if strategy.tokenizer is not None:
            return C.included_token_count(msgs), strategy.max_n, "included tokens > max_n"
        return len(C.included_messages(msgs)), strategy.max_n, "included messages > max_n"
    if isinstance(strategy, C.SlidingWindowStrategy):
        return (
            included_groups_of_kind(msgs, lambda k: k != "system"),
            strategy.keep_last_groups,
            "unconditional; included non-system groups beyond keep_last_groups are excluded",
        )
    if isinstance(strategy, (C.SelectiveToolCallCompactionStrategy, C.ToolResultCompactionStrategy)):
        return (
            included_groups_of_kind(msgs, lambda k: k == "tool_call"),
            strategy.keep_last_tool_call_groups,
            "included tool_call groups > keep_last_tool_call_groups",
        )
    if isinstance(strategy, C.TokenBudgetComposedStrategy):
        C.annotate_token_counts(msgs, tokenizer=strategy.tokenizer)
        return C.included_token_count(msgs), strategy.token_budget, "included tokens > token_budget"
    if isinstance(strategy, C.ContextWindowCompactionStrategy):
        C.annotate_token_counts(msgs, tokenizer=strategy.tokenizer)
        return (
            C.included_token_count(msgs),
            strategy._tool_eviction_tokens,
            "included tokens > int(input_budget*tool_eviction_threshold) (tool eviction); "
            "> int(input_budget*truncation_threshold) (truncation)",
        )
    return None, None, ""


def run_case(
    preset: str,
    case: str,
    history: list[Message],
    make_strategy: Callable[[RecordingChatClient], Any],
    settings: dict[str, Any],
    *,
    notes: list[str] | None = None,
    nested_settings: dict[str, Any] | None = None,
    model: str | None = None,
    context_window: int | None = None,
    description: str = "",
) -> None:
    out_dir = OUT_ROOT / preset
    records = [m.to_dict() for m in history]
    write_json(out_dir / f"{case}.input.json", records)
    # Re-load the file we just wrote, so the golden describes exactly the file.
    loaded = json.loads((out_dir / f"{case}.input.json").read_text(encoding="utf-8"))
    messages = [Message.from_dict(r) for r in loaded]
    originals = list(messages)
    before_contents = [json.dumps([c.to_dict() for c in m.contents], sort_keys=True, ensure_ascii=False) for m in messages]
    was_excluded = [bool(m.additional_properties.get(C.EXCLUDED_KEY, False)) for m in messages]

    client = RecordingChatClient()
    strategy = make_strategy(client)
    measure, threshold, trigger_rule = measure_for(
        make_strategy(RecordingChatClient()), [Message.from_dict(r) for r in copy.deepcopy(loaded)]
    )

    LOG.records.clear()
    changed = asyncio.run(C._run_compaction_strategy(messages, strategy=strategy, phase="in_run"))
    projection = C.project_included_messages(messages)
    logs = list(LOG.records)

    proj_ids = {id(m) for m in projection}
    orig_ids = {id(m) for m in originals}
    inserted = [(pos, m) for pos, m in enumerate(projection) if id(m) not in orig_ids]
    inserted_all = [m for m in messages if id(m) not in orig_ids]
    new_summary_ids = {m.message_id for m in inserted_all}

    kept, summarized, dropped = [], [], []
    case_notes = list(notes or [])
    exclude_reasons: dict[str, str] = {}
    for i, m in enumerate(originals):
        ann = m.additional_properties.get("_group") or {}
        rendered_by = ann.get(C.SUMMARIZED_BY_SUMMARY_ID_KEY)
        rendered_now = rendered_by in new_summary_ids and rendered_by is not None
        reason = m.additional_properties.get(C.EXCLUDE_REASON_KEY)
        if m.additional_properties.get(C.EXCLUDED_KEY, False) and isinstance(reason, str):
            exclude_reasons[str(i)] = reason
        if id(m) in proj_ids:
            kept.append(i)
            after = json.dumps([c.to_dict() for c in m.contents], sort_keys=True, ensure_ascii=False)
            if after != before_contents[i]:
                case_notes.append(f"source {i} kept but its contents changed")
            if rendered_now:
                case_notes.append(f"source {i} is kept AND was rendered into {rendered_by} (framework re-included it)")
        elif rendered_now:
            summarized.append(i)
        else:
            dropped.append(i)
            if was_excluded[i]:
                case_notes.append(f"source {i} was already excluded in the input (_excluded=true)")

    ins = [
        {"role": m.role, "content": m.text, "message_id": m.message_id, "position": pos}
        for pos, m in inserted
    ]
    summary_inserted = None
    for entry in ins:
        if entry["message_id"] and entry["message_id"].startswith("summary_"):
            summary_inserted = entry
    if summary_inserted is None and len(ins) == 1:
        summary_inserted = ins[0]

    reasons = sorted(set(r for k, r in exclude_reasons.items() if not was_excluded[int(k)]))
    reason: Any = None
    if changed and reasons:
        reason = reasons[0] if len(reasons) == 1 else reasons

    if any(r == "tool_result_compaction" for r in exclude_reasons.values()):
        case_notes.append(
            "tool_result_compaction: every record of a collapsed tool_call group is listed as summarized; only the "
            "function_result text and the call's tool name reach the '[Tool results: ...]' message (arguments, "
            "assistant text and reasoning of the group are lost)"
        )
    history, history_summary = compacted_history(messages, client, loaded, make_strategy)
    tok = getattr(strategy, "tokenizer", None)
    included_tokens_after = C.included_token_count(messages) if isinstance(tok, C.TokenizerProtocol) else None

    expected: dict[str, Any] = {
        "fired": bool(changed),
        "reason": reason,
        "measure": measure,
        "threshold": threshold,
        "trigger_rule": trigger_rule,
        "kept_source_indices": kept,
        "summarized_source_indices": summarized,
        "dropped_source_indices": dropped,
        "summarizer": serialize_summarizer(client),
        "summary_inserted": summary_inserted,
        "inserted": ins,
        "compacted_history_len": len(projection),
        "included_tokens_after": included_tokens_after,
        "exclude_reasons": exclude_reasons,
        "groups": [group_info(m) for m in originals],
        "log": logs,
        "compacted_history": [
            {"source_index": (originals.index(m) if id(m) in orig_ids else None), "role": m.role, "message_id": m.message_id}
            for m in projection
        ],
        "history_summary": history_summary,
        "history": history,
    }
    golden: dict[str, Any] = {
        "framework": FRAMEWORK,
        "version": VERSION,
        "preset": preset,
        "case": case,
        "description": description,
        "strategy": type(strategy).__name__,
        "settings": settings,
        "model": model,
        "context_window": context_window,
        "expected": expected,
    }
    if nested_settings:
        golden["nested_settings"] = nested_settings
    if case_notes:
        golden["notes"] = case_notes
    write_json(out_dir / f"{case}.golden.json", golden)
    total = len(kept) + len(summarized) + len(dropped)
    assert total == len(originals), (case, total, len(originals))
    print(f"{preset:32s} {case:34s} fired={changed!s:5s} kept={len(kept):2d} summ={len(summarized):2d} drop={len(dropped):2d} len={len(projection)}")


def compacted_history(
    messages: list[Message],
    client: RecordingChatClient,
    loaded: list[dict[str, Any]],
    make_strategy: Callable[[RecordingChatClient], Any],
) -> tuple[list[dict[str, Any]], str | None]:
    """The whole list the strategy leaves (excluded messages, annotations and inserted messages
    included) as `[m.to_dict() for m in messages]`, and the summarizer text it was made with.

    Where the strategy called its summarizer, the list comes from a second run on a fresh load
    of the same input whose client returns `prose_summary(n)` instead of `SUMMARY-n`."""
    if not client.calls:
        return [m.to_dict() for m in messages], None
    prose = ProseChatClient()
    again = [Message.from_dict(r) for r in copy.deepcopy(loaded)]
    LOG.records.clear()
    asyncio.run(C._run_compaction_strategy(again, strategy=make_strategy(prose), phase="in_run"))
    assert len(prose.calls) == 1, "one summarizer call per run"
    return [m.to_dict() for m in again], prose_summary(1)


# --------------------------------------------------------------------------- summarization cases


def summ(**kw: Any) -> Callable[[RecordingChatClient], Any]:
    return lambda client: C.SummarizationStrategy(client=client, **kw)


def first_pass_stored() -> list[Message]:
    """Run a real first compaction and return the stored history (excluded kept), to_dict/from_dict round-tripped."""
    msgs = base_session()
    client = RecordingChatClient("EARLIER-SUMMARY")
    asyncio.run(C._run_compaction_strategy(msgs, strategy=C.SummarizationStrategy(client=client), phase="after_run"))
    return [Message.from_dict(m.to_dict()) for m in msgs]


def attributed_session() -> list[Message]:
    """base_session() with some messages attributed to other sessions (one id twice, one not a string)."""
    h = base_session()
    origins = {1: ["sess_a"], 2: ["sess_b", "sess_a"], 3: ["sess_c"], 5: ["sess_b", 7], 6: "sess_x"}
    for i, o in origins.items():
        h[i].additional_properties["_attribution"] = {"origin_session_ids": o}
    return h


def summarization_cases(preset: str) -> None:
    # 1. default settings, parallel tool calls in one assistant turn (one tool message with two results)
    run_case(
        preset,
        "default-parallel-tools",
        base_session(),
        summ(),
        {},
        description="Default SummarizationStrategy; a session with a parallel read_file call whose two results share one tool message.",
    )

    # 2. parallel results in separate tool messages, non-default target_count/threshold
    h = base_session()
    h[5] = tool([("call_r1", "def add(a, b):\n    return a - b\n")])
    h.insert(6, tool([("call_r2", "def test_add():\n    assert add(2, 2) == 4\n")]))
    run_case(
        preset,
        "parallel-separate-tool-messages",
        h,
        summ(target_count=3, threshold=1),
        {"target_count": 3, "threshold": 1},
        description="Parallel calls answered by two separate tool messages (one tool_call group of 3 records).",
    )

    # 3. huge tool result, default budget: the group does not fit the 8000-token input budget
    h = base_session()
    h[3] = tool([("call_ls", big_log(34000))])
    run_case(
        preset,
        "huge-tool-result-default-budget",
        h,
        summ(),
        {},
        description="A 34,000-char tool result inside an early group: selection stops before the group that overflows max_summary_input_tokens=8000.",
    )

    # 4. huge result with no input budget: rendered in full (no caps)
    h = base_session()
    h[3] = tool([("call_ls", big_log(30000))])
    run_case(
        preset,
        "huge-tool-result-no-budget",
        h,
        summ(max_summary_input_tokens=None),
        {"max_summary_input_tokens": None},
        description="Budget disabled: a 30,000-char result is rendered verbatim into the transcript.",
    )

    # 5. leading group larger than budget: skipped and stays included
    h2 = base_session()
    h2[1] = user("Please review this log and tell me what failed:\n" + big_log(6000), "u_1")
    run_case(
        preset,
        "leading-group-over-budget",
        h2,
        summ(max_summary_input_tokens=1200),
        {"max_summary_input_tokens": 1200},
        description="First non-system group alone exceeds max_summary_input_tokens: it is skipped (stays included) and later groups are summarized.",
    )

    # 6. unicode in text and arguments
    h = [
        sys_("你是一个编程助手。Antworte knapp. 🚀"),
        user("请把 README 的标题改成「数据管道 🚰」，并保留 café / naïve 的拼写 (e\u0301 combining).", "u_1"),
        call("a_2", [("call_u1", "read_file", {"path": "docs/README.中文.md"})], text="好的，先读取文件。"),
        tool([("call_u1", "# Data pipeline\n\nCafé naïve — e\u0301 ñ 👩\u200d💻 多字节\n")]),
        call("a_4", [("call_u2", "edit_file", {"path": "docs/README.中文.md", "old": "# Data pipeline", "new": "# 数据管道 🚰"})]),
        tool([("call_u2", "已修改 1 处 ✅")]),
        asst("标题已改为「数据管道 🚰」。Combining marks kept: e\u0301.", "a_6"),
        user("谢谢！再检查一下 emoji 👍🏽 是否正常显示。", "u_7"),
        call("a_8", [("call_u3", "grep", {"pattern": "👍🏽|🚰", "path": "docs"})]),
        tool([("call_u3", "docs/README.中文.md:1:# 数据管道 🚰")]),
        asst("显示正常 ✔︎", "a_10"),
    ]
    run_case(
        preset,
        "unicode",
        h,
        summ(target_count=3),
        {"target_count": 3},
        description="CJK, emoji (ZWJ, skin tone, VS16) and combining marks in text, arguments and results.",
    )

    # 7. earlier summary, stored history (excluded originals kept in the file, annotations present)
    stored = first_pass_stored()
    stored += [
        user("Now also add a subtract function with a test.", "u_20"),
        call("a_21", [("call_w2", "write_file", {"path": "src/module_001.py", "content": "def sub(a, b):\n    return a - b\n"})]),
        tool([("call_w2", "wrote 34 bytes")]),
        call("a_23", [("call_t2", "run_tests", {"args": ["-q"]})]),
        tool([("call_t2", "2 passed in 0.03s")]),
        asst("Added `sub` with a test; 2 tests pass.", "a_25"),
    ]
    run_case(
        preset,
        "prior-summary-stored",
        stored,
        summ(),
        {},
        description="Stored history after a real first compaction (CompactionProvider after_run keeps excluded messages with _excluded/_group annotations), plus a new turn. The earlier summary is re-summarized.",
    )

    # 8. earlier summary, projected history only (skip_excluded=True) -> summary id collision
    projected = [m for m in first_pass_stored() if not m.additional_properties.get(C.EXCLUDED_KEY, False)]
    projected += [
        user("Now also add a subtract function with a test.", "u_20"),
        call("a_21", [("call_w2", "write_file", {"path": "src/module_001.py", "content": "def sub(a, b):\n    return a - b\n"})]),
        tool([("call_w2", "wrote 34 bytes")]),
        call("a_23", [("call_t2", "run_tests", {"args": ["-q"]})]),
        tool([("call_t2", "2 passed in 0.03s")]),
        asst("Added `sub` with a test; 2 tests pass.", "a_25"),
    ]
    run_case(
        preset,
        "prior-summary-projected",
        projected,
        summ(),
        {},
        description="Only the included projection of the first pass (as with skip_excluded=True) plus new turns; history length makes the new summary id equal the old one (summary_N collision).",
    )

    # 9. cut boundary inside a tool-call group: retention walks whole groups
    h = [
        sys_(SYSTEM),
        user("Run the three checks and report.", "u_1"),
        asst("Running lint, types and tests.", "a_2"),
        call("a_3", [("call_a", "run", {"cmd": "ruff check ."}), ("call_b", "run", {"cmd": "mypy ."}), ("call_c", "run", {"cmd": "pytest -q"})]),
        tool([("call_a", "All checks passed!")]),
        tool([("call_b", "Success: no issues found in 12 source files")]),
        tool([("call_c", "12 passed in 0.41s")]),
        asst("All three checks pass.", "a_7"),
    ]
    run_case(
        preset,
        "cut-inside-tool-group",
        h,
        summ(target_count=2, threshold=0),
        {"target_count": 2, "threshold": 0},
        description="target_count=2 would cut inside a 4-record tool_call group; the whole group is retained (retained count 5 > target).",
    )

    # 10. non-adjacent tool result (user interjects between call and result)
    h = [
        sys_(SYSTEM),
        user("Deploy the staging build.", "u_1"),
        call("a_2", [("call_dep", "deploy", {"env": "staging"})]),
        user("While that runs: which branch is it?", "u_3"),
        asst("It deploys `main`.", "a_4"),
        tool([("call_dep", "deployed build 482 to staging")]),
        asst("Staging now runs build 482.", "a_6"),
        user("Great, thanks.", "u_7"),
        asst("You're welcome.", "a_8"),
    ]
    run_case(
        preset,
        "non-adjacent-tool-result",
        h,
        summ(target_count=3, threshold=0),
        {"target_count": 3, "threshold": 0},
        description="A function_result separated from its call by a user turn: linked into one non-contiguous group.",
    )

    run_case(
        preset,
        "non-adjacent-tool-result-split",
        h,
        summ(target_count=4, threshold=0),
        {"target_count": 4, "threshold": 0},
        description="Same history, target_count=4: the retained groups sit between the call and its (linked, non-contiguous) result, which is summarized with its call.",
    )

    # 11/12. just below / just above the trigger (default: > 6 included non-system messages)
    h = base_session()[:7]  # system + 6 non-system
    run_case(preset, "below-trigger", h, summ(), {}, description="Exactly 6 included non-system messages with defaults: not fired (6 > 6 is false).")
    h = base_session()[:8]  # system + 7 non-system
    run_case(preset, "above-trigger", h, summ(), {}, description="7 included non-system messages with defaults: fired.")

    # 13. reasoning content
    h = [
        sys_(SYSTEM),
        user("Why is the cache hit rate so low?", "u_1"),
        Message(role="assistant", contents=[Content.from_text_reasoning(text="I should check the cache config before guessing.")], message_id="r_2"),
        call("a_3", [("call_cfg", "read_file", {"path": "config/cache.toml"})]),
        tool([("call_cfg", "ttl_seconds = 1\nmax_entries = 10\n")]),
        Message(
            role="assistant",
            contents=[
                Content.from_text_reasoning(text="TTL of 1 second explains it.", protected_data="sig-EXAMPLE-0001"),
                Content.from_text("The TTL is 1 second, so entries expire almost immediately."),
            ],
            message_id="a_5",
        ),
        user("Raise it to 300.", "u_6"),
        call("a_7", [("call_ed", "edit_file", {"path": "config/cache.toml", "old": "ttl_seconds = 1", "new": "ttl_seconds = 300"})], reasoning="Simple edit."),
        tool([("call_ed", "ok")]),
        asst("Done: ttl_seconds = 300.", "a_9"),
    ]
    run_case(
        preset,
        "reasoning",
        h,
        summ(target_count=2),
        {"target_count": 2},
        description="Reasoning-only assistant message before a call (joins the tool_call group), reasoning+text, reasoning+call with protected_data.",
    )

    # 14. custom prompt, no budget, threshold None; results: empty, error, dict-valued
    h = [
        sys_(SYSTEM),
        user("Fetch the config and the user count.", "u_1"),
        call("a_2", [("call_e1", "get_config", None), ("call_e2", "count_users", {"active": True})]),
        tool([("call_e1", None)]),
        tool([("call_e2", "connection refused")], exception="ConnectionError: connection refused"),
        call("a_5", [("call_e3", "get_stats", '{"window": "1h"}')]),
        tool([("call_e3", {"users": 42, "ok": True})]),
        asst("The config is empty and count_users failed; stats show 42 users.", "a_7"),
        user("OK.", "u_8"),
    ]
    run_case(
        preset,
        "custom-prompt-errors",
        h,
        summ(target_count=1, threshold=None, prompt="Summarize the conversation for a handoff. Keep tool outcomes.", max_summary_input_tokens=None),
        {"target_count": 1, "threshold": None, "prompt": "Summarize the conversation for a handoff. Keep tool outcomes.", "max_summary_input_tokens": None},
        description="Custom prompt, threshold=None (→0), budget disabled; None arguments, string arguments, empty result, exception result, dict result.",
    )

    # 15. image / data content
    h = [
        sys_(SYSTEM),
        Message(
            role="user",
            contents=[
                Content.from_text("What does this screenshot show?"),
                Content.from_uri(uri="data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==", media_type="image/png"),
            ],
            message_id="u_1",
        ),
        asst("It is a 1x1 pixel image.", "a_2"),
        Message(role="user", contents=[Content.from_uri(uri="https://example.com/diagram.png", media_type="image/png")], message_id="u_3"),
        asst("A diagram of the pipeline.", "a_4"),
        user("Thanks.", "u_5"),
        asst("Anything else?", "a_6"),
        user("No.", "u_7"),
    ]
    run_case(
        preset,
        "images",
        h,
        summ(target_count=2, threshold=1),
        {"target_count": 2, "threshold": 1},
        description="Image data/uri contents: omitted when text exists, type names when a message has only an image.",
    )

    # 16. provenance: messages loaded from other sessions carry _attribution.origin_session_ids
    run_case(
        preset,
        "attribution",
        attributed_session(),
        summ(),
        {},
        description="Messages carrying _attribution.origin_session_ids (as a history merged from several sessions holds them): 1.23 copies the first-seen, deduplicated ids onto the summary; 1.17 does not.",
    )


# --------------------------------------------------------------------------- LLM-free strategies


def llm_free_cases() -> None:
    P = "agent-framework-sliding"
    run_case(P, "keep-3", base_session(), lambda c: C.SlidingWindowStrategy(keep_last_groups=3), {"keep_last_groups": 3},
             description="Keep the last 3 non-system groups plus system.")
    run_case(P, "no-preserve-system", base_session(), lambda c: C.SlidingWindowStrategy(keep_last_groups=2, preserve_system=False),
             {"keep_last_groups": 2, "preserve_system": False}, description="System not preserved.")
    run_case(P, "keep-more-than-present", base_session()[:5], lambda c: C.SlidingWindowStrategy(keep_last_groups=10), {"keep_last_groups": 10},
             description="Fewer groups than keep_last_groups: nothing excluded.")
    h = base_session()
    h[5] = tool([("call_r1", "def add(a, b):\n    return a - b\n")])
    h.insert(6, tool([("call_r2", "def test_add():\n    assert add(2, 2) == 4\n")]))
    run_case(P, "multi-record-tool-group", h, lambda c: C.SlidingWindowStrategy(keep_last_groups=6), {"keep_last_groups": 6},
             description="Window boundary next to a 3-record tool_call group.")

    P = "agent-framework-truncation"
    run_case(P, "messages", base_session(), lambda c: C.TruncationStrategy(max_n=8, compact_to=5), {"max_n": 8, "compact_to": 5},
             description="Message-count metric (system included): exclude oldest groups until <= compact_to.")
    run_case(P, "messages-below", base_session()[:8], lambda c: C.TruncationStrategy(max_n=8, compact_to=5), {"max_n": 8, "compact_to": 5},
             description="8 included messages, max_n=8: not fired.")
    run_case(P, "messages-above", base_session()[:9], lambda c: C.TruncationStrategy(max_n=8, compact_to=5), {"max_n": 8, "compact_to": 5},
             description="9 included messages, max_n=8: fired.")
    h = base_session()
    h[3] = tool([("call_ls", big_log(8000))])
    run_case(P, "tokens-first-user", h,
             lambda c: C.TruncationStrategy(max_n=1500, compact_to=600, tokenizer=C.CharacterEstimatorTokenizer(), preserve_first_user_group=True),
             {"max_n": 1500, "compact_to": 600, "tokenizer": "CharacterEstimatorTokenizer", "preserve_first_user_group": True},
             description="Token metric (CharacterEstimatorTokenizer over the JSON serialization); first user group preserved.")
    run_case(P, "tokens-no-preserve-system", h,
             lambda c: C.TruncationStrategy(max_n=1000, compact_to=100, tokenizer=C.CharacterEstimatorTokenizer(), preserve_system=False),
             {"max_n": 1000, "compact_to": 100, "tokenizer": "CharacterEstimatorTokenizer", "preserve_system": False},
             description="compact_to unreachable: everything but the last non-system group goes, system included.")

    P = "agent-framework-selective-tool"
    run_case(P, "default", base_session(), lambda c: C.SelectiveToolCallCompactionStrategy(), {},
             description="Default keep_last_tool_call_groups=1.")
    run_case(P, "keep-0", base_session(), lambda c: C.SelectiveToolCallCompactionStrategy(keep_last_tool_call_groups=0),
             {"keep_last_tool_call_groups": 0}, description="All tool-call groups excluded.")

    P = "agent-framework-tool-result"
    run_case(P, "default", base_session(), lambda c: C.ToolResultCompactionStrategy(), {},
             description="Older tool-call groups replaced by '[Tool results: ...]' assistant messages.")
    h = base_session()
    h[3] = tool([("call_ls", big_log(9000))])
    run_case(P, "huge-result-keep-0", h, lambda c: C.ToolResultCompactionStrategy(keep_last_tool_call_groups=0),
             {"keep_last_tool_call_groups": 0}, description="A 9,000-char result: the label is cut at _SUMMARY_MAX_CHARS=4096.")
    h = [
        sys_(SYSTEM),
        user("Check both services.", "u_1"),
        call("a_2", [("call_s1", "ping", {"host": "api"}), ("call_s2", "ping", {"host": "db"})], text="Pinging both."),
        tool([("call_s1", "  pong 12ms  ")]),
        tool([("call_s2", None)]),
        call("a_5", [("call_s3", "status", {"service": "api"})]),
        tool([("call_s3", {"state": "up", "rps": 31.5})]),
        asst("Both respond; api is up.", "a_7"),
    ]
    run_case(P, "parallel-empty-dict", h, lambda c: C.ToolResultCompactionStrategy(), {},
             description="Parallel results, whitespace stripped, empty result, dict result (stored as JSON text).")
    run_case(P, "attribution", attributed_session(), lambda c: C.ToolResultCompactionStrategy(), {},
             description="Tool-call groups attributed to other sessions: each [Tool results: ...] message carries its group's origin_session_ids.")

    P = "agent-framework-token-budget"
    h = base_session()
    h[3] = tool([("call_ls", big_log(6000))])
    run_case(P, "tool-result-then-sliding", h,
             lambda c: C.TokenBudgetComposedStrategy(token_budget=400, tokenizer=C.CharacterEstimatorTokenizer(),
                                                     strategies=[C.ToolResultCompactionStrategy(keep_last_tool_call_groups=1), C.SlidingWindowStrategy(keep_last_groups=4)]),
             {"token_budget": 400, "tokenizer": "CharacterEstimatorTokenizer", "strategies": ["ToolResultCompactionStrategy", "SlidingWindowStrategy"]},
             nested_settings={"strategies": [{"class": "ToolResultCompactionStrategy", "settings": {"keep_last_tool_call_groups": 1}},
                                             {"class": "SlidingWindowStrategy", "settings": {"keep_last_groups": 4}}]},
             description="Composed: tool-result compaction, then sliding window, early stop once under budget.")
    run_case(P, "fallback", h,
             lambda c: C.TokenBudgetComposedStrategy(token_budget=150, tokenizer=C.CharacterEstimatorTokenizer(),
                                                     strategies=[C.SelectiveToolCallCompactionStrategy(keep_last_tool_call_groups=1)]),
             {"token_budget": 150, "tokenizer": "CharacterEstimatorTokenizer", "strategies": ["SelectiveToolCallCompactionStrategy"]},
             nested_settings={"strategies": [{"class": "SelectiveToolCallCompactionStrategy", "settings": {"keep_last_tool_call_groups": 1}}]},
             description="Strategies not enough: token_budget_fallback excludes oldest groups until under budget.")
    run_case(P, "fallback-strict", h,
             lambda c: C.TokenBudgetComposedStrategy(token_budget=20, tokenizer=C.CharacterEstimatorTokenizer(),
                                                     strategies=[C.SelectiveToolCallCompactionStrategy(keep_last_tool_call_groups=1)]),
             {"token_budget": 20, "tokenizer": "CharacterEstimatorTokenizer", "strategies": ["SelectiveToolCallCompactionStrategy"]},
             nested_settings={"strategies": [{"class": "SelectiveToolCallCompactionStrategy", "settings": {"keep_last_tool_call_groups": 1}}]},
             description="Budget below system + last group: token_budget_fallback, then token_budget_fallback_strict excludes the system group too.")
    run_case(P, "within-budget", base_session(),
             lambda c: C.TokenBudgetComposedStrategy(token_budget=100000, tokenizer=C.CharacterEstimatorTokenizer(),
                                                     strategies=[C.SlidingWindowStrategy(keep_last_groups=1)]),
             {"token_budget": 100000, "tokenizer": "CharacterEstimatorTokenizer", "strategies": ["SlidingWindowStrategy"]},
             nested_settings={"strategies": [{"class": "SlidingWindowStrategy", "settings": {"keep_last_groups": 1}}]},
             description="Within budget: nothing runs.")
    run_case(P, "with-summarization", h,
             lambda c: C.TokenBudgetComposedStrategy(token_budget=600, tokenizer=C.CharacterEstimatorTokenizer(),
                                                     strategies=[C.SummarizationStrategy(client=c, target_count=4, max_summary_input_tokens=None)]),
             {"token_budget": 600, "tokenizer": "CharacterEstimatorTokenizer", "strategies": ["SummarizationStrategy"]},
             nested_settings={"strategies": [{"class": "SummarizationStrategy", "settings": {"target_count": 4, "max_summary_input_tokens": None}}]},
             description="Token trigger wrapping SummarizationStrategy (the documented way to get a token trigger).")

    P = "agent-framework-context-window"
    h = base_session()
    h[3] = tool([("call_ls", big_log(12000))])
    run_case(P, "evict-only", h,
             lambda c: C.ContextWindowCompactionStrategy(max_context_window_tokens=6000, max_output_tokens=2000, keep_last_tool_call_groups=1),
             {"max_context_window_tokens": 6000, "max_output_tokens": 2000, "keep_last_tool_call_groups": 1},
             context_window=6000, description="Above 50% of the input budget: tool results collapsed; below 80% after, so no truncation.")
    run_case(P, "evict-and-truncate", h,
             lambda c: C.ContextWindowCompactionStrategy(max_context_window_tokens=3000, max_output_tokens=1000),
             {"max_context_window_tokens": 3000, "max_output_tokens": 1000},
             context_window=3000, description="Default thresholds and keep_last_tool_call_groups=4: only 4 tool groups exist, so eviction changes nothing and truncation (max_n=int(2000*0.8), compact_to=int(2000*0.5)) runs.")
    run_case(P, "below", base_session(),
             lambda c: C.ContextWindowCompactionStrategy(max_context_window_tokens=128000, max_output_tokens=16384),
             {"max_context_window_tokens": 128000, "max_output_tokens": 16384},
             context_window=128000, description="Well below 50%: nothing happens.")


def main() -> None:
    if IS_117:
        summarization_cases("agent-framework-1.17")
    else:
        summarization_cases("agent-framework")
        llm_free_cases()


if __name__ == "__main__":
    sys.exit(main())
