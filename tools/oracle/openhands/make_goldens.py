#!/usr/bin/env python3
"""Oracle goldens for the `openhands` preset: runs the REAL openhands-sdk
`LLMSummarizingCondenser` on hand-built event histories with a fake summarizer.

Run through run.sh (it creates the virtualenv and sets the environment). For every case:
  1. build the history as SDK event objects (fixed ids and timestamps);
  2. serialize each event the way the SDK's EventStore persists it
     (`event.model_dump_json(exclude_none=True)`), one event per line ->
     fixtures/oracle/openhands/<case>.input.jsonl;
  3. load those lines back with `Event.model_validate_json` (so the condenser sees exactly
     what a user's session file holds), build `View.from_events`, and call
     `condenser.condense(view, agent_llm=agent_llm)` as the agent loop does;
  4. the summarizer LLM is a real `openhands.sdk.LLM` whose litellm transport is replaced by a
     stub that records the exact `messages` it is sent and answers "SUMMARY-<n>";
  5. apply the returned `Condensation` the way the SDK does (append it to the event list and
     rebuild `View.from_events`), and classify every source record by event identity.

Writes <case>.golden.json next to each input. Deterministic (PYTHONHASHSEED=0 is required
because `Condensation.forgotten_event_ids` is a Python set and is serialized in set order).
"""
from __future__ import annotations

import os
import sys

if os.environ.get("PYTHONHASHSEED") != "0":
    os.environ["PYTHONHASHSEED"] = "0"
    os.execv(sys.executable, [sys.executable, *sys.argv])

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("OPENHANDS_SUPPRESS_BANNER", "1")

import argparse
import datetime as dt
import importlib.metadata as md
import json
import logging
import tempfile
import uuid

from pydantic import SecretStr

logging.disable(logging.WARNING)

import litellm  # noqa: E402
from litellm.types.utils import Choices, ModelResponse, Usage  # noqa: E402
from litellm.types.utils import Message as LiteMessage  # noqa: E402

import openhands.sdk.llm.llm as llm_module  # noqa: E402
from openhands.sdk import LLM, Agent  # noqa: E402
from openhands.sdk.conversation.state import ConversationState  # noqa: E402
from openhands.sdk.io import InMemoryFileStore  # noqa: E402
from openhands.sdk.workspace import LocalWorkspace  # noqa: E402
from openhands.sdk.context.condenser import LLMSummarizingCondenser  # noqa: E402
from openhands.sdk.context.condenser.base import (  # noqa: E402
    NoCondensationAvailableException,
)
from openhands.sdk.context.condenser.utils import get_total_token_count  # noqa: E402
from openhands.sdk.context.view import View  # noqa: E402
from openhands.sdk.event import (  # noqa: E402
    LLMConvertibleEvent,
    ActionEvent,
    AgentErrorEvent,
    Condensation,
    CondensationRequest,
    CondensationSummaryEvent,
    ConversationStateUpdateEvent,
    Event,
    MessageEvent,
    ObservationEvent,
    SystemPromptEvent,
    UserRejectObservation,
)
from openhands.sdk.llm import (  # noqa: E402
    ImageContent,
    Message,
    MessageToolCall,
    TextContent,
    ThinkingBlock,
)
from openhands.sdk.tool import ToolAnnotations  # noqa: E402
from openhands.sdk.tool.builtins import FinishAction, FinishObservation  # noqa: E402
from openhands.tools.file_editor.definition import (  # noqa: E402
    FileEditorAction,
    FileEditorObservation,
    FileEditorTool,
)
from openhands.tools.terminal.definition import (  # noqa: E402
    UNIX_TOOL_DESCRIPTION,
    TerminalAction,
    TerminalObservation,
    TerminalTool,
)
from openhands.tools.terminal.metadata import CmdOutputMetadata  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
OUT = os.path.join(ROOT, "fixtures", "oracle", "openhands")

FRAMEWORK = "openhands-sdk"
VERSION = md.version("openhands-sdk")
TOOLS_VERSION = md.version("openhands-tools")
LITELLM_VERSION = md.version("litellm")
MODEL = "gpt-4o"
BASE_TIME = dt.datetime(2025, 3, 14, 9, 0, 0)

# ---------------------------------------------------------------------------------------
# Fake summarizer: replace litellm's completion inside openhands.sdk.llm.llm
# ---------------------------------------------------------------------------------------

CALLS: list[dict] = []


def fake_litellm_completion(**kwargs):
    n = len(CALLS) + 1
    CALLS.append(kwargs)
    return ModelResponse(
        id=f"chatcmpl-fake-summary-{n}",
        created=1741942800,
        model=kwargs.get("model", MODEL),
        object="chat.completion",
        choices=[
            Choices(
                index=0,
                finish_reason="stop",
                message=LiteMessage(role="assistant", content=f"SUMMARY-{n}"),
            )
        ],
        usage=Usage(prompt_tokens=100, completion_tokens=3, total_tokens=103),
    )


llm_module.litellm_completion = fake_litellm_completion


def fake_llm(usage_id: str, **kw) -> LLM:
    return LLM(model=MODEL, api_key=SecretStr("sk-fake-not-used"), usage_id=usage_id, **kw)


# ---------------------------------------------------------------------------------------
# History builder (fixed ids, fixed timestamps)
# ---------------------------------------------------------------------------------------

TERMINAL_TOOL = TerminalTool(
    action_type=TerminalAction,
    observation_type=TerminalObservation,
    description=UNIX_TOOL_DESCRIPTION,
    annotations=ToolAnnotations(
        title="terminal",
        readOnlyHint=False,
        destructiveHint=True,
        idempotentHint=False,
        openWorldHint=True,
    ),
)
FILE_EDITOR_TOOL = FileEditorTool(
    action_type=FileEditorAction,
    observation_type=FileEditorObservation,
    description=(
        "Custom editing tool for viewing, creating and editing files in plain-text format\n"
        "* State is persistent across command calls and discussions with the user\n"
        "* If `path` is a text file, `view` displays the result of applying `cat -n`."
    ),
    annotations=ToolAnnotations(
        title="file_editor",
        readOnlyHint=False,
        destructiveHint=True,
        idempotentHint=False,
        openWorldHint=False,
    ),
)

SYSTEM_PROMPT = (
    "You are OpenHands agent, a helpful AI assistant that can interact with a computer "
    "to solve tasks.\n\n<ROLE>\nYour primary role is to assist users by executing commands, "
    "modifying code, and solving technical problems effectively. You should be thorough, "
    "methodical, and prioritize quality over speed.\n* If the user asks a question, like "
    "\"why is X happening\", don't try to fix the problem. Just give an answer to the "
    "question.\n</ROLE>\n\n<EFFICIENCY>\n* Each action you take is somewhat expensive. "
    "Wherever possible, combine multiple actions into a single action, e.g. combine "
    "multiple bash commands into one, using sed and grep to edit/view multiple files at "
    "once.\n* When exploring the codebase, use efficient tools like find, grep, and git "
    "commands with appropriate filters to minimize unnecessary operations.\n</EFFICIENCY>\n"
)
DYNAMIC_CONTEXT = (
    "<RUNTIME_INFO>\nThe current working directory is /workspace/project\n"
    "Today's date is 2025-03-14 (UTC).\n</RUNTIME_INFO>"
)
CWD = "/workspace/project"


class H:
    """Builds one case's history with deterministic ids and timestamps."""

    def __init__(self, case_no: int):
        self.case_no = case_no
        self.n = 0
        self.events: list[Event] = []
        self.resp = 0
        self.call = 0

    def _id(self) -> str:
        i = self.n
        self.n += 1
        return f"0a0e{self.case_no:04d}-0000-4000-8000-{i:012d}"

    def _ts(self) -> str:
        return (BASE_TIME + dt.timedelta(seconds=7 * self.n, microseconds=1234 * self.n)).isoformat()

    def _common(self):
        ts = self._ts()
        return {"id": self._id(), "timestamp": ts}

    def add(self, e: Event) -> Event:
        self.events.append(e)
        return e

    def system(self, text=SYSTEM_PROMPT, tools=None, dynamic=DYNAMIC_CONTEXT):
        return self.add(
            SystemPromptEvent(
                **self._common(),
                source="agent",
                system_prompt=TextContent(text=text),
                tools=tools if tools is not None else [TERMINAL_TOOL, FILE_EDITOR_TOOL],
                dynamic_context=TextContent(text=dynamic) if dynamic else None,
            )
        )

    def user(self, text, images=None):
        content = [TextContent(text=text)]
        if images:
            content.append(ImageContent(image_urls=images))
        return self.add(
            MessageEvent(**self._common(), source="user", llm_message=Message(role="user", content=content))
        )

    def agent(self, text, reasoning=None, thinking=None):
        self.resp += 1
        return self.add(
            MessageEvent(
                **self._common(),
                source="agent",
                llm_message=Message(
                    role="assistant",
                    content=[TextContent(text=text)],
                    reasoning_content=reasoning,
                    thinking_blocks=[ThinkingBlock(thinking=t, signature=f"sig-{self.resp}") for t in (thinking or [])],
                ),
                llm_response_id=f"chatcmpl-{self.case_no:04d}-{self.resp:04d}",
            )
        )

    def new_response(self) -> str:
        self.resp += 1
        return f"chatcmpl-{self.case_no:04d}-{self.resp:04d}"

    def action(self, tool, args: dict, thought="", response_id=None, reasoning=None, thinking=None):
        """One tool call. Pass the same response_id for parallel calls of one assistant turn."""
        rid = response_id or self.new_response()
        self.call += 1
        call_id = f"call_{self.case_no:02d}{self.call:04d}"
        if tool == "terminal":
            action = TerminalAction(**args)
        elif tool == "file_editor":
            action = FileEditorAction(**args)
        elif tool == "finish":
            action = FinishAction(**args)
        else:
            action = None
        return self.add(
            ActionEvent(
                **self._common(),
                source="agent",
                thought=[TextContent(text=thought)] if thought is not None else [],
                reasoning_content=reasoning,
                thinking_blocks=[ThinkingBlock(thinking=t, signature=f"sig-{rid}") for t in (thinking or [])],
                action=action,
                tool_name=tool,
                tool_call_id=call_id,
                tool_call=MessageToolCall(
                    id=call_id, name=tool, arguments=json.dumps(args, ensure_ascii=False), origin="completion"
                ),
                llm_response_id=rid,
            )
        )

    def obs(self, act: ActionEvent, text, exit_code=0, is_error=False, path=None, command=None):
        if act.tool_name == "terminal":
            o = TerminalObservation(
                content=[TextContent(text=text)],
                is_error=is_error,
                command=act.action.command,
                exit_code=exit_code,
                metadata=CmdOutputMetadata(exit_code=exit_code, working_dir=CWD, username="openhands", hostname="sandbox"),
            )
        elif act.tool_name == "file_editor":
            o = FileEditorObservation(
                content=[TextContent(text=text)],
                is_error=is_error,
                command=act.action.command,
                path=act.action.path,
            )
        elif act.tool_name == "finish":
            o = FinishObservation(content=[TextContent(text=text)])
        else:
            raise ValueError(act.tool_name)
        return self.add(
            ObservationEvent(
                **self._common(),
                source="environment",
                tool_name=act.tool_name,
                tool_call_id=act.tool_call_id,
                observation=o,
                action_id=act.id,
            )
        )

    def error(self, act: ActionEvent, text):
        return self.add(
            AgentErrorEvent(
                **self._common(), tool_name=act.tool_name, tool_call_id=act.tool_call_id, error=text
            )
        )

    def reject(self, act: ActionEvent, reason):
        return self.add(
            UserRejectObservation(
                **self._common(),
                source="user",
                tool_name=act.tool_name,
                tool_call_id=act.tool_call_id,
                rejection_reason=reason,
                action_id=act.id,
            )
        )

    def state(self, key, value):
        return self.add(ConversationStateUpdateEvent(**self._common(), source="environment", key=key, value=value))

    def request(self):
        return self.add(CondensationRequest(**self._common()))

    def condensation(self, forgotten: list[Event], summary, offset, response_id):
        return self.add(
            Condensation(
                **self._common(),
                forgotten_event_ids={e.id for e in forgotten},
                summary=summary,
                summary_offset=offset,
                llm_response_id=response_id,
            )
        )

    # convenience: a terminal round trip
    def run(self, cmd, out, thought="", exit_code=0, **kw):
        a = self.action("terminal", {"command": cmd}, thought=thought, **kw)
        o = self.obs(a, out, exit_code=exit_code)
        return a, o

    def view_file(self, path, out, thought=""):
        a = self.action("file_editor", {"command": "view", "path": path}, thought=thought)
        o = self.obs(a, out)
        return a, o


def listing(i):
    return f"total {8 + i}\n" + "\n".join(f"-rw-r--r-- 1 openhands openhands {100 * k + i} Mar 14 09:{k:02d} mod_{i}_{k}.py" for k in range(4))


def filler(h: H, rounds: int, tag="step", long_thought=False):
    """Realistic agent activity: terminal/file_editor round trips with agent chatter."""
    for r in range(rounds):
        thought = f"Checking {tag} {r}: I will look at the module layout before editing."
        if long_thought:
            thought += " " + ("The failing assertion compares the parsed config against the default; " * 9)
        if r % 3 == 2:
            h.view_file(f"{CWD}/src/mod_{r}.py", "\n".join(f"     {k}\tdef f_{r}_{k}(x):\n     {k}\t    return x + {k}" for k in range(1, 4)), thought=thought)
        else:
            h.run(f"ls -la src/{tag}_{r}", listing(r), thought=thought)


# ---------------------------------------------------------------------------------------
# Cases
# ---------------------------------------------------------------------------------------

CJK = "修复配置解析器：当键包含空格时，解析失败。请检查 config/設定.toml 的第 42 行。"
EMOJI = "👩‍💻🚀✅ deploy ok 🏳️‍🌈 family 👨‍👩‍👧‍👦"
COMBINING = "e\u0301 n\u0303 a\u0308 Z\u0335\u0321\u0327a\u0334\u0322l\u0336g\u0337o\u0338"


def case_default_settings_below():
    h = H(1)
    h.system()
    h.user("Please run the test-suite and tell me which tests fail.")
    filler(h, 12)
    h.agent("Two tests fail: test_parse_spaces and test_roundtrip.")
    return h, {}, {}


def case_default_settings_fired():
    h = H(2)
    h.system()
    h.user("Migrate every module under src/ to the new logging API, one file at a time.")
    filler(h, 120, tag="migrate")
    h.agent("All modules migrated; running the suite now.")
    return h, {}, {}


def case_default_condenser_80_4():
    h = H(3)
    h.system()
    h.user("Audit the repository for TODO comments and open an issue for each.")
    h.agent("I'll grep for TODOs first.")
    h.state("execution_status", "running")
    filler(h, 40, tag="audit")
    h.user("Also include FIXME markers.")
    return h, {"max_size": 80, "keep_first": 4}, {}


def case_parallel_tool_calls():
    h = H(4)
    h.system()
    h.user("Compare the three config loaders and report differences.")
    for turn in range(5):
        rid = h.new_response()
        acts = [
            h.action("terminal", {"command": f"cat src/loader_{turn}_{k}.py"}, thought=(f"Reading loaders of batch {turn} in parallel." if k == 0 else None), response_id=rid)
            for k in range(3)
        ]
        for k, a in enumerate(acts):
            h.obs(a, f"def load_{turn}_{k}(path):\n    return toml.load(path)  # variant {k}")
    h.agent("Loader 2 ignores env overrides; the others agree.")
    return h, {"max_size": 20, "keep_first": 2}, {}


def case_huge_tool_result():
    h = H(5)
    h.system()
    h.user("The build log is huge; find the first error.")
    h.run("make -j8 2>&1 | tail -n 5", "make: *** [all] Error 2", exit_code=2, thought="Start with the tail.")
    big = "".join(f"[{i:05d}] cc -O2 -c src/unit_{i % 97}.c -o build/unit_{i % 97}.o  # ok\n" for i in range(600))
    big = (big + "E" * 30000)[:30000]
    h.run("cat build.log", big, thought="Dump the whole log.")
    h.view_file(f"{CWD}/build.log", big[:12000], thought="View it with the editor as well.")
    filler(h, 5, tag="log")
    h.agent("The first error is in unit_13.c: implicit declaration of 'strlcpy'.")
    return h, {"max_size": 16, "keep_first": 2}, {}


def case_unicode():
    h = H(6)
    h.system()
    h.user("请修复配置解析器 🙏 — naïve café")
    a = h.action(
        "file_editor",
        {"command": "str_replace", "path": f"{CWD}/config/設定.toml", "old_str": "キー = 値", "new_str": "\"キー 名\" = \"値 ✅\""},
        thought="修正します — " + EMOJI + " " + COMBINING,
    )
    h.obs(a, "The file config/設定.toml has been edited. 编辑成功 ✅\n" + CJK)
    # A user message whose 497-code-point preview cut falls inside an emoji ZWJ sequence
    # (👨 ZWJ 👩 | ZWJ 👧 ZWJ 👦).
    head = "用户请求：" + CJK * 6
    pad = 497 - len(head) - 3
    h.user(head + "x" * pad + "👨‍👩‍👧‍👦" + " 末尾 " + COMBINING)
    # An observation whose 500-code-point cut separates "e" from its combining acute accent.
    a2 = h.action("terminal", {"command": "python -c 'print(\"é\" * 60)'  # 🐍"}, thought="Print décomposé text 🧪")
    h.obs(a2, "x" + ("a" * 8 + "e\u0301") * 60)
    # A thought whose 500-code-point cut falls inside 👩‍💻 (after 👩, before the ZWJ).
    a3 = h.action("terminal", {"command": "echo 🚀"}, thought="🚀" * 499 + "👩‍💻" + "tail")
    h.obs(a3, "🚀")
    filler(h, 6, tag="unicode")
    h.user("谢谢！Can you also translate the error messages? 🙏")
    h.agent("はい、翻訳します。Done: 'Schlüssel ungültig' → 'キーが無効です'.")
    return h, {"max_size": 16, "keep_first": 2}, {}


def case_previous_summary():
    h = H(7)
    h.system()
    h.user("Refactor the payment module and keep the public API stable.")
    old = []
    for r in range(6):
        a, o = h.run(f"grep -rn 'charge(' src/payments/part_{r}", f"src/payments/part_{r}/api.py:{10 + r}: def charge(amount):", thought=f"Scanning part {r}.")
        old += [a, o]
    prev_summary = (
        "USER_CONTEXT: Refactor payments, keep public API (charge, refund) stable.\n"
        "COMPLETED: Scanned part_0..part_5 for charge() call sites; 6 definitions found.\n"
        "PENDING: unify the six charge() definitions into src/payments/core.py; update imports.\n"
        "CURRENT_STATE: no files modified yet.\n"
        "CODE_STATE: src/payments/part_{0..5}/api.py each define charge(amount).\n"
        "TESTS: tests/payments/test_api.py passes (42 tests).\n"
        "CHANGES: none.\nDEPS: stripe==7.1.0.\nVERSION_CONTROL_STATUS: branch refactor/payments, clean.\n"
        "NOTE: 続きは core.py から — résumé ✅. This line makes the summary longer than 497 characters "
        "so that the T497 preview cut is visible in the next summarizer request."
    )
    assert len(prev_summary) > 497
    h.condensation(old, prev_summary, 2, "chatcmpl-0007-prev-summary")
    h.state("stats", {"usage_to_metrics": {}})
    filler(h, 9, tag="refactor")
    h.agent("core.py now holds the single charge(); imports updated.")
    return h, {"max_size": 20, "keep_first": 2}, {}


def case_cut_inside_tool_group():
    # view: sys, user, then pairs; naive_end (len - tail) falls between an action and its
    # observation, so the SDK moves the end one event later.
    h = H(8)
    h.system()
    h.user("Find why CI is red.")
    h.agent("Looking at the CI logs.")
    filler(h, 9, tag="ci")
    return h, {"max_size": 20, "keep_first": 2}, {}


def case_just_below():
    h = H(9)
    h.system()
    h.user("Tidy up the README.")
    filler(h, 9, tag="readme")  # 2 + 18 = 20 events == max_size
    return h, {"max_size": 20, "keep_first": 2}, {}


def case_just_above():
    h = H(10)
    h.system()
    h.user("Tidy up the README.")
    filler(h, 9, tag="readme")
    h.agent("README tidied.")  # 21 events > max_size
    return h, {"max_size": 20, "keep_first": 2}, {}


def case_reasoning_tool_loop():
    h = H(11)
    h.system()
    h.user("Why does the cache return stale entries?")
    h.agent("Let me think about the cache invalidation path.", reasoning="The TTL is compared in seconds but stored in ms.", thinking=["TTL units look inconsistent."])
    # A tool loop: starts at an ActionEvent with thinking_blocks, spans actions+observations.
    for r in range(8):
        a = h.action(
            "terminal",
            {"command": f"pytest tests/cache -k ttl_{r} -q"},
            thought=f"Loop step {r}",
            reasoning=f"reasoning_content step {r}: compare ttl units",
            thinking=[f"thinking block for step {r}"] if r == 0 else None,
        )
        h.obs(a, f"1 passed in 0.0{r}s")
    h.agent("The TTL is stored in ms but compared in s; fix in cache.py:88.", reasoning="Done reasoning.")
    filler(h, 3, tag="cachefix")
    return h, {"max_size": 20, "keep_first": 2}, {}


def token_history(h: H):
    h.system()
    h.user("Summarize the design docs in docs/ for me.")
    for r in range(14):
        h.view_file(f"{CWD}/docs/design_{r:02d}.md", ("## Section %d\nThe scheduler assigns work to idle workers; " % r) * 10, thought=f"Reading design doc {r}.")
    h.agent("Here is a summary of the fourteen design documents.")


def case_tokens_trigger():
    # TOKENS (HARD): max_tokens well below the view's token count; the tail is found by the
    # SDK's binary search over litellm token counts.
    h = H(12)
    token_history(h)
    return h, {"max_tokens": 3600}, {}


def case_tokens_just_below():
    # max_tokens == the view's own token count: the comparison is strict (`>`), no fire.
    h = H(13)
    token_history(h)
    return h, "TOKENS_JUST_BELOW", {}


def case_tokens_just_above():
    # max_tokens == the view's token count - 1: fires.
    h = H(21)
    token_history(h)
    return h, "TOKENS_JUST_ABOVE", {}


def case_condensation_request():
    h = H(14)
    h.system()
    h.user("Port the CLI from argparse to click.")
    filler(h, 10, tag="port")
    h.request()
    return h, {}, {}


def case_hard_reset_small_request():
    # REQUEST on a small view: tail = len//2 - keep_first - 1 is tiny/negative -> no valid
    # range -> NoCondensationAvailableException -> HARD -> hard_context_reset.
    h = H(15)
    h.system()
    h.user("Hi! Set up a virtualenv.")
    h.run("python3 -m venv .venv", "", thought="Create it.")
    h.agent("Done.")
    h.request()
    return h, {}, {}


def case_tool_loop_spans_tail():
    # EVENTS fires; one tool loop (it opens with an ActionEvent carrying thinking_blocks)
    # runs from index 2 to the end. naive_end falls inside the loop, the only manipulation
    # index >= naive_end is len(view), so the SDK forgets the whole loop -- including the
    # most recent events -- and keeps only [system, user].
    h = H(16)
    h.system()
    h.user("Run the flaky test until it fails.")
    for r in range(11):
        a = h.action("terminal", {"command": f"pytest tests/test_flaky.py -q  # attempt {r}"}, thought=f"Attempt {r}", thinking=["keep looping"] if r == 0 else None)
        h.obs(a, "1 passed" if r < 10 else "1 failed")
    return h, {"max_size": 20, "keep_first": 2}, {}


def case_soft_min_progress():
    # EVENTS fires (SOFT) but the range is below minimum_progress -> NoCondensationAvailable
    # -> the view is returned unchanged, no summarizer call.
    h = H(19)
    h.system()
    h.user("Tidy up the README.")
    filler(h, 9, tag="readme")
    h.agent("README tidied.")
    return h, {"max_size": 20, "keep_first": 2, "minimum_progress": 0.9}, {}


def case_tokens_hard_reset():
    # TOKENS fires (HARD); minimum_progress is not met -> hard_context_reset summarizes
    # everything after the system prompt.
    h = H(20)
    h.system()
    h.user("Summarize the design docs in docs/ for me.")
    for r in range(6):
        h.view_file(f"{CWD}/docs/design_{r}.md", ("## Section %d\nThe scheduler assigns work to idle workers; " % r) * 25, thought=f"Reading design doc {r}.")
    h.agent("Here is a summary of the six design documents.")
    return h, {"max_tokens": 3000, "minimum_progress": 0.95}, {}


def case_errors_rejections_images():
    h = H(17)
    h.system()
    h.user("Here is a screenshot of the broken page; fix the CSS.", images=["data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="])
    h.state("execution_status", "running")
    a = h.action("terminal", {"command": "rm -rf node_modules && npm ci"}, thought="Reinstall deps.")
    h.reject(a, "User rejected: do not delete node_modules.")
    a = h.action("file_editor", {"command": "view", "path": f"{CWD}/styles/ma in.css"}, thought="Open the stylesheet.")
    h.error(a, "Error validating tool 'file_editor': path contains a space; " + "details " * 80)
    a = h.action("terminal", {"command": "npx stylelint styles/"}, thought="Lint.")
    h.obs(a, "styles/main.css\n 12:3  ✖  Unexpected unknown property \"colr\"", exit_code=2, is_error=True)
    filler(h, 6, tag="css")
    h.state("execution_status", "finished")
    a = h.action("finish", {"message": "Fixed `colr` → `color` in styles/main.css."}, thought="")
    h.obs(a, "Fixed `colr` → `color` in styles/main.css.")
    return h, {"max_size": 16, "keep_first": 2}, {}


def case_keep_first_zero_long_thoughts():
    h = H(18)
    h.system()
    h.user("Investigate the config parser failure in depth.")
    filler(h, 10, tag="deep", long_thought=True)
    return h, {"max_size": 12, "keep_first": 0}, {}


CASES = [
    ("default_settings_below", case_default_settings_below),
    ("default_settings_fired", case_default_settings_fired),
    ("default_condenser_80_4", case_default_condenser_80_4),
    ("parallel_tool_calls", case_parallel_tool_calls),
    ("huge_tool_result", case_huge_tool_result),
    ("unicode", case_unicode),
    ("previous_summary", case_previous_summary),
    ("cut_inside_tool_group", case_cut_inside_tool_group),
    ("just_below", case_just_below),
    ("just_above", case_just_above),
    ("reasoning_tool_loop", case_reasoning_tool_loop),
    ("tokens_trigger", case_tokens_trigger),
    ("tokens_just_below", case_tokens_just_below),
    ("tokens_just_above", case_tokens_just_above),
    ("condensation_request", case_condensation_request),
    ("hard_reset_small_request", case_hard_reset_small_request),
    ("tool_loop_spans_tail", case_tool_loop_spans_tail),
    ("soft_min_progress", case_soft_min_progress),
    ("tokens_hard_reset", case_tokens_hard_reset),
    ("errors_rejections_images", case_errors_rejections_images),
    ("keep_first_zero_long_thoughts", case_keep_first_zero_long_thoughts),
]

# ---------------------------------------------------------------------------------------
# Running one case
# ---------------------------------------------------------------------------------------


def summarizer_messages(call: dict) -> tuple[list[dict], list[str]]:
    """The provider request's messages as {role, content}; list contents are joined."""
    out, notes = [], []
    for m in call["messages"]:
        c = m.get("content")
        if isinstance(c, list):
            texts = [p["text"] for p in c if p.get("type") == "text"]
            if len(c) != len(texts):
                notes.append("non-text parts dropped from summarizer message")
            if len(texts) != 1:
                notes.append(f"{m['role']} message had {len(texts)} text parts joined with ''")
            c = "".join(texts)
        out.append({"role": m["role"], "content": c})
    return out, notes


# Values the SDK makes up when it condenses: the Condensation's uuid4 and clock reading, and
# the clock reading of every CondensationSummaryEvent (`Condensation.summary_event` builds a
# new one, stamped `datetime.now()`, each time a View is derived). They are replaced by these
# markers so that the goldens are byte-identical across runs; everything else is as dumped.
FRESH_ID = "<fresh uuid4>"
FRESH_CLOCK = "<clock>"


def dump(ev: Event) -> dict:
    """An event exactly as the SDK's EventStore writes it, as a JSON object (key order kept)."""
    line = ev.model_dump_json(exclude_none=True)
    obj = json.loads(line)
    assert json.dumps(obj, ensure_ascii=False, separators=(",", ":")) == line
    return obj


def persist(lines: list[str], condensation: Condensation, input_ids: set[str]):
    """Resumes a real ConversationState whose event files are the input lines (a conversation
    an earlier session wrote), then appends the Condensation through
    `ConversationState.append_event`, the single chokepoint the conversation's default
    callback uses (it stamps `parent_id`). Returns the event files read back in index order,
    and the state's View after the append."""
    store = InMemoryFileStore()
    conversation_id = uuid.UUID(int=0xC0DE)
    workspace = LocalWorkspace(working_dir=tempfile.gettempdir())
    fresh = ConversationState.create(
        id=conversation_id, agent=Agent(llm=fake_llm("agent"), tools=[]), workspace=workspace, file_store=store
    )
    for i, line in enumerate(lines):
        store.write(fresh.events._path(i, event_id=json.loads(line)["id"]), line)
    state = ConversationState.create(id=conversation_id, agent=None, workspace=workspace, file_store=store)
    assert len(state.events) == len(lines)
    state.append_event(condensation)
    names = sorted(
        (p for p in store.list("events") if os.path.basename(p).startswith("event-")),
        key=lambda p: int(os.path.basename(p).split("-")[1]),
    )
    persisted = [json.loads(store.read(p)) for p in names]
    for obj, line in zip(persisted, (store.read(p) for p in names)):
        assert json.dumps(obj, ensure_ascii=False, separators=(",", ":")) == line
    view = [dump(ev) for ev in state.view.events]
    cond = persisted[-1]
    assert cond["kind"] == "Condensation" and cond["id"] == condensation.id
    assert cond["id"] not in input_ids and uuid.UUID(cond["id"]).version == 4
    dt.datetime.fromisoformat(cond["timestamp"])
    cond["id"], cond["timestamp"] = FRESH_ID, FRESH_CLOCK
    for obj in view:
        if obj["kind"] == "CondensationSummaryEvent":
            dt.datetime.fromisoformat(obj["timestamp"])
            obj["timestamp"] = FRESH_CLOCK
            if obj["id"] == f"{condensation.id}-summary":
                obj["id"] = f"{FRESH_ID}-summary"
    return persisted, view


def run_case(name, build):
    h, settings, extra = build()
    tokens_edge = settings if isinstance(settings, str) else None
    lines = [e.model_dump_json(exclude_none=True) for e in h.events]
    # Load back exactly as a user's session would be read.
    loaded: list[Event] = [Event.model_validate_json(line) for line in lines]
    for line, ev in zip(lines, loaded):
        again = ev.model_dump_json(exclude_none=True)
        if isinstance(ev, Condensation):
            # forgotten_event_ids is a set: re-serializing may list the ids in another order
            a, b = json.loads(again), json.loads(line)
            a["forgotten_event_ids"] = sorted(a["forgotten_event_ids"])
            b["forgotten_event_ids"] = sorted(b["forgotten_event_ids"])
            assert a == b, f"{name}: round-trip differs"
        else:
            assert again == line, f"{name}: round-trip differs"
    src_index = {ev.id: i for i, ev in enumerate(loaded)}

    agent_llm = fake_llm("agent")
    view = View.from_events(loaded)
    view_tokens = get_total_token_count(view.events, agent_llm)
    if tokens_edge == "TOKENS_JUST_BELOW":
        settings = {"max_tokens": view_tokens}  # equal: `>` is strict, so it must not fire
    elif tokens_edge == "TOKENS_JUST_ABOVE":
        settings = {"max_tokens": view_tokens - 1}
    condenser = LLMSummarizingCondenser(llm=fake_llm("condenser"), **settings)

    CALLS.clear()
    reasons = condenser.get_condensation_reasons(view, agent_llm=agent_llm)
    requirement = condenser.condensation_requirement(view, agent_llm=agent_llm)
    CALLS.clear()
    result = condenser.condense(view, agent_llm=agent_llm)
    calls = list(CALLS)
    fired = isinstance(result, Condensation)

    exception = None
    path = None
    if requirement is not None:
        # Which path condense() took: normal get_condensation, or NoCondensationAvailable
        # (then SOFT -> view back, HARD -> hard_context_reset). Re-derive without an LLM call.
        try:
            condenser._get_forgotten_events(view, agent_llm=agent_llm)
            fe, _off = condenser._get_forgotten_events(view, agent_llm=agent_llm)
            if not fe:
                raise NoCondensationAvailableException("Cannot condense 0 events.")
            if len(fe) < len(view) * condenser.minimum_progress:
                raise NoCondensationAvailableException("events forgotten below minimum progress threshold.")
            path = "get_condensation"
        except ValueError as e:
            exception = f"NoCondensationAvailableException: Unable to compute forgotten events ({e})"
        except NoCondensationAvailableException as e:
            exception = f"NoCondensationAvailableException: {e}"
        if exception:
            path = "hard_context_reset" if requirement.value == "hard" else "soft_return_view"
    assert CALLS == calls, "re-derivation must not call the LLM"

    view_ids = [e.id for e in view.events]
    measures = {
        "events": {"measure": len(view), "threshold": condenser.max_size},
        "tokens": {"measure": view_tokens, "threshold": condenser._effective_max_tokens(agent_llm)},
    }
    reason_list = sorted(r.value for r in reasons)
    primary = None
    if reason_list:
        for r in ("request", "tokens", "events"):
            if r in reason_list:
                primary = r
                break

    kept, summarized, notes = set(), set(), []
    after_out = {"view_events": None, "persisted_events": None}
    summary_inserted = None
    compacted_sources = []
    condensation_out = None
    summ = None
    if fired:
        assert len(calls) >= 1
        if len(calls) > 1:
            notes.append(f"the summarizer was called {len(calls)} times; the last request is recorded")
        msgs, mnotes = summarizer_messages(calls[-1])
        notes += mnotes
        summ = {"messages": msgs}
        forgotten = set(result.forgotten_event_ids)
        # Apply the condensation the way the SDK does: it is appended to the event log and
        # the next View.from_events applies it.
        after = View.from_events([*loaded, result])
        view_by_id = {e.id: e for e in view.events}
        for pos, ev in enumerate(after.events):
            if isinstance(ev, CondensationSummaryEvent) and ev.id == f"{result.id}-summary":
                summary_inserted = {"role": ev.to_llm_message().role, "content": ev.summary, "position": pos}
                compacted_sources.append("summary")
                continue
            # identity: the very same object as in the pre-condensation view
            assert view_by_id.get(ev.id) is ev, f"{name}: kept event is not the original object"
            if isinstance(ev, CondensationSummaryEvent):
                k = src_index[ev.id[: -len("-summary")]]
            else:
                k = src_index[ev.id]
            kept.add(k)
            compacted_sources.append(k)
        user_text = msgs[-1]["content"]
        for vid in view_ids:
            if vid not in forgotten:
                continue
            ev = view_by_id[vid]
            s = str(ev)
            rendered = s in user_text  # hard reset may truncate; then check the head
            if not rendered and len(s) > 200:
                rendered = s[:150] in user_text
            k = src_index[vid[: -len("-summary")]] if isinstance(ev, CondensationSummaryEvent) else src_index[vid]
            if rendered:
                summarized.add(k)
            else:
                notes.append(f"forgotten event at source index {k} was not found rendered")
        condensation_out = {
            "forgotten_event_ids": sorted(result.forgotten_event_ids),
            "forgotten_source_indices": sorted(
                src_index[i[: -len("-summary")]] if i.endswith("-summary") else src_index[i] for i in result.forgotten_event_ids
            ),
            "summary": result.summary,
            "summary_offset": result.summary_offset,
            "llm_response_id": result.llm_response_id,
        }
        compacted_len = len(after.events)
        compacted_msgs = len(type(after.events[0]).events_to_messages(after.events)) if after.events else 0
        persisted, view_dump = persist(lines, result, set(src_index))
        assert [e.id for e in after.events] == [
            e["id"].replace(FRESH_ID, result.id) for e in view_dump
        ], f"{name}: the conversation's View differs from View.from_events"
        assert persisted[:-1] == [json.loads(line) for line in lines]
        after_out = {"view_events": view_dump, "persisted_events": persisted}
    else:
        assert not calls
        for pos, ev in enumerate(result.events):
            k = src_index[ev.id[: -len("-summary")]] if isinstance(ev, CondensationSummaryEvent) else src_index[ev.id]
            kept.add(k)
            compacted_sources.append(k)
        compacted_len = len(result.events)
        compacted_msgs = len(type(result.events[0]).events_to_messages(result.events)) if result.events else 0

    assert not (kept & summarized)
    dropped = sorted(set(range(len(loaded))) - kept - summarized)
    in_view = set(view_ids)
    not_convertible = [k for k in dropped if not isinstance(loaded[k], LLMConvertibleEvent) and not isinstance(loaded[k], Condensation)]
    earlier = [k for k in dropped if isinstance(loaded[k], LLMConvertibleEvent) and loaded[k].id not in in_view]
    other = [k for k in dropped if k not in not_convertible and k not in earlier]
    if not_convertible:
        notes.append(
            "dropped, not LLM-convertible so never in the View: "
            + ", ".join(f"{k} ({type(loaded[k]).__name__})" for k in not_convertible)
        )
    if earlier:
        notes.append(f"dropped, forgotten by an earlier Condensation in the input: {earlier}")
    if other:
        notes.append(f"dropped, other: " + ", ".join(f"{k} ({type(loaded[k]).__name__})" for k in other))
    for k in sorted(kept | summarized):
        if isinstance(loaded[k], Condensation):
            where = "kept (its CondensationSummaryEvent survives)" if k in kept else "summarized (its CondensationSummaryEvent was forgotten and rendered)"
            notes.append(f"source {k} is a Condensation: {where}")

    golden = {
        "framework": FRAMEWORK,
        "version": VERSION,
        "versions": {"openhands-sdk": VERSION, "openhands-tools": TOOLS_VERSION, "litellm": LITELLM_VERSION},
        "preset": "openhands",
        "case": name,
        "settings": settings,
        "model": MODEL,
        "context_window": agent_llm.effective_max_input_tokens,
        "token_counter": f"openhands LLM.get_token_count -> litellm.token_counter(model={MODEL!r}) (tiktoken o200k_base, litellm message/tool accounting), tools of the SystemPromptEvent included with add_security_risk_prediction=True",
        "expected": {
            "fired": fired,
            "reason": primary,
            "reasons": reason_list,
            "requirement": requirement.value if requirement else None,
            "path": path,
            "exception": exception,
            "measure": measures[primary]["measure"] if primary in measures else (len(view) if primary == "request" else None),
            "threshold": measures[primary]["threshold"] if primary in measures else None,
            "measures": measures,
            "view_len": len(view),
            "view_source_indices": [
                src_index[i[: -len("-summary")]] if i.endswith("-summary") else src_index[i] for i in view_ids
            ],
            "kept_source_indices": sorted(kept),
            "summarized_source_indices": sorted(summarized),
            "dropped_source_indices": dropped,
            "summarizer": summ,
            "summarizer_request": (
                {k: v for k, v in sorted(calls[-1].items()) if k not in ("messages", "api_key", "metadata", "extra_headers")}
                if fired
                else None
            ),
            "condensation": condensation_out,
            "summary_inserted": summary_inserted,
            "compacted_history_len": compacted_len,
            "compacted_history_sources": compacted_sources,
            "compacted_llm_messages_len": compacted_msgs,
            "fresh": {
                "Condensation": ["id", "timestamp", "llm_response_id"],
                "CondensationSummaryEvent": ["id", "timestamp"],
            },
            **after_out,
        },
        "notes": notes,
    }
    return lines, golden


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=OUT)
    ap.add_argument("--only", nargs="*")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    for name, build in CASES:
        if args.only and name not in args.only:
            continue
        lines, golden = run_case(name, build)
        with open(os.path.join(args.out, f"{name}.input.jsonl"), "w", encoding="utf-8", newline="\n") as f:
            for line in lines:
                f.write(line + "\n")
        with open(os.path.join(args.out, f"{name}.golden.json"), "w", encoding="utf-8", newline="\n") as f:
            json.dump(golden, f, indent=2, ensure_ascii=False, default=str)
            f.write("\n")
        e = golden["expected"]
        print(
            f"{name:32s} fired={e['fired']!s:5s} reasons={e['reasons']} path={e['path']} view={e['view_len']} "
            f"kept={len(e['kept_source_indices'])} summ={len(e['summarized_source_indices'])} drop={len(e['dropped_source_indices'])}"
        )


if __name__ == "__main__":
    main()
