"""Oracle goldens for pydantic-ai-harness compaction (SummarizingCompaction, SlidingWindowCompaction).

Runs the REAL framework: each case builds a history in pydantic-ai's own message types, runs an
`Agent` whose model is a `FunctionModel` with the compaction capability attached, and lets the
framework's own `before_model_request` hook decide whether to compact and how.  The summarizer is a
`FunctionModel` that records exactly what it receives and answers a fixed text.

Two observer capabilities sit around the compaction capability:
  * `_Before` (runs first) snapshots `ctx.messages` -- the history the compaction sees -- and
    evaluates the framework's own trigger functions (`exceeds`, `estimate_context_tokens`,
    `resolve_token_trigger`) with the same arguments the capability uses.
  * `_After` (runs after) snapshots the compacted history.
kept / summarized / dropped are then derived by object identity between the two snapshots and the
list of messages the framework handed to its summarizer (`write_summary`'s `messages` argument,
observed by wrapping the module attribute; nothing in the framework is changed).

Run through run.sh (creates a venv, installs requirements.txt).  Writes into
fixtures/oracle/pydantic-ai-harness/ and fixtures/oracle/pydantic-ai-harness-sliding/.
"""

from __future__ import annotations

import asyncio
import json
import sys
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta, timezone
from importlib.metadata import version
from pathlib import Path
from typing import Any, Callable

from pydantic_ai import Agent
from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.messages import (
    CompactionPart,
    ModelMessage,
    ModelMessagesTypeAdapter,
    ModelRequest,
    ModelResponse,
    RetryInfo,
    SystemPromptPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models import _conversation_summary_text  # pyright: ignore[reportPrivateUsage]
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage

import pydantic_ai_harness.compaction._summarizing_compaction as _sc_mod
from pydantic_ai_harness.compaction import SlidingWindowCompaction, SummarizingCompaction
from pydantic_ai_harness.compaction._shared import (
    estimate_context_tokens,
    estimate_token_count,
    exceeds,
    resolve_token_trigger,
)
from pydantic_ai_harness.compaction._summarizing_compaction import format_transcript

ROOT = Path(__file__).resolve().parents[3]
OUT = {
    'pydantic-ai-harness': ROOT / 'fixtures' / 'oracle' / 'pydantic-ai-harness',
    'pydantic-ai-harness-sliding': ROOT / 'fixtures' / 'oracle' / 'pydantic-ai-harness-sliding',
}
HARNESS_VERSION = version('pydantic-ai-harness')
CORE_VERSION = version('pydantic-ai-slim')

T0 = datetime(2025, 3, 14, 9, 0, 0, tzinfo=timezone.utc)
CONV = 'conv-0001'
RUN = 'run-0001'
RUN_MODEL = 'gpt-4o'  # the run's FunctionModel model_name (model_id is 'function:gpt-4o')
SUMMARIZER_MODEL = 'summarizer-mini'
AGENT_INSTRUCTIONS = 'You are a careful coding agent working in the repository at /srv/app. Use the tools.'


# ---------------------------------------------------------------------------
# History building (pydantic-ai native types, fixed ids and timestamps)
# ---------------------------------------------------------------------------


class H:
    """A history builder: every message and part gets a fixed, increasing timestamp."""

    def __init__(self) -> None:
        self.msgs: list[ModelMessage] = []
        self.tick = 0

    def ts(self) -> datetime:
        self.tick += 1
        return T0 + timedelta(seconds=13 * self.tick)

    def req(self, *parts: Any, instructions: str | None = AGENT_INSTRUCTIONS) -> H:
        t = self.ts()
        fixed = [replace(p, timestamp=t) if hasattr(p, 'timestamp') else p for p in parts]
        self.msgs.append(
            ModelRequest(parts=fixed, timestamp=t, instructions=instructions, run_id=RUN, conversation_id=CONV)
        )
        return self

    def resp(self, *parts: Any, usage: tuple[int, int] | None = None, rid: str | None = None) -> H:
        t = self.ts()
        u = RequestUsage(input_tokens=usage[0], output_tokens=usage[1]) if usage else RequestUsage()
        self.msgs.append(
            ModelResponse(
                parts=list(parts),
                usage=u,
                model_name=RUN_MODEL,
                timestamp=t,
                provider_name='openai' if usage else None,
                provider_response_id=rid,
                finish_reason='tool_call' if any(isinstance(p, ToolCallPart) for p in parts) else 'stop',
                run_id=RUN,
                conversation_id=CONV,
            )
        )
        return self


def sysp(text: str) -> SystemPromptPart:
    return SystemPromptPart(content=text, timestamp=T0)


def user(text: Any) -> UserPromptPart:
    return UserPromptPart(content=text, timestamp=T0)


def call(name: str, args: Any, cid: str) -> ToolCallPart:
    return ToolCallPart(tool_name=name, args=args, tool_call_id=cid)


def ret(name: str, content: Any, cid: str) -> ToolReturnPart:
    return ToolReturnPart(tool_name=name, content=content, tool_call_id=cid, timestamp=T0)


def text(t: str) -> TextPart:
    return TextPart(content=t)


def think(t: str, sig: str | None = None) -> ThinkingPart:
    return ThinkingPart(content=t, signature=sig, provider_name='openai' if sig else None)


SYSTEM = 'You are Harness-Coder. Work in small verified steps and explain what you change.'

FILES = ['src/app/config.py', 'src/app/db.py', 'src/app/api/users.py', 'tests/test_users.py', 'src/app/cache.py']


def opening(h: H, prompt: str) -> H:
    return h.req(sysp(SYSTEM), user(prompt))


def tool_round(h: H, k: int, *, usage: tuple[int, int] | None = None, big: str | None = None) -> H:
    """One assistant tool call and its return, varied by k."""
    f = FILES[k % len(FILES)]
    cid = f'call_{k:03d}'
    kind = k % 3
    if kind == 0:
        h.resp(text(f'Let me read {f}.'), call('read_file', {'path': f, 'start': 1, 'end': 80}, cid), usage=usage)
        body = big if big is not None else '\n'.join(f'{n:>4}  line {n} of {f}' for n in range(1, 9))
        h.req(ret('read_file', body, cid))
    elif kind == 1:
        h.resp(call('grep', {'pattern': 'def get_user', 'paths': [f], 'ignore_case': False}, cid), usage=usage)
        h.req(ret('grep', big if big is not None else f'{f}:42:def get_user(user_id: int) -> User | None:', cid))
    else:
        h.resp(call('run_tests', '{"selector": "tests/test_users.py", "verbose": true}', cid), usage=usage)
        h.req(ret('run_tests', big if big is not None else {'passed': 11 + k, 'failed': 1, 'errors': [], 'ok': False}, cid))
    return h


# ---------------------------------------------------------------------------
# Fake models
# ---------------------------------------------------------------------------


@dataclass
class Fakes:
    summary_texts: list[str]
    main_script: list[ModelResponse] = field(default_factory=list)
    summarizer_calls: list[tuple[list[ModelMessage], AgentInfo]] = field(default_factory=list)
    main_calls: list[list[ModelMessage]] = field(default_factory=list)
    summarizer_instructions: str = _sc_mod._DEFAULT_INSTRUCTIONS

    def summarize(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        n = len(self.summarizer_calls)
        self.summarizer_calls.append((messages, info))
        return ModelResponse(parts=[TextPart(self.summary_texts[min(n, len(self.summary_texts) - 1)])])

    def main(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        # With no `model=` on the compaction the run's own model writes the summary: tell it apart by
        # the summarizer agent's instructions.
        if info.instructions == self.summarizer_instructions:
            return self.summarize(messages, info)
        self.main_calls.append(list(messages))
        if len(self.main_calls) <= len(self.main_script):
            return self.main_script[len(self.main_calls) - 1]
        return ModelResponse(parts=[TextPart('Done.')])


@dataclass
class _Before(AbstractCapability[Any]):
    rec: dict[str, Any] = field(default_factory=dict)
    strategy: Any = None

    async def before_model_request(self, ctx: Any, request_context: Any) -> Any:
        calls = self.rec.setdefault('calls', [])
        if not calls:
            # Core copies the request being sent with a fresh timestamp/run_id; pin them so the
            # input file is deterministic.  Only metadata changes; no counted text.
            last = ctx.messages[-1]
            if isinstance(last, ModelRequest):
                ctx.messages[-1] = replace(last, timestamp=self.rec['last_ts'], run_id=RUN, conversation_id=CONV)
        messages = list(ctx.messages)
        s = self.strategy
        trig = resolve_token_trigger(
            s.max_tokens, s.max_fraction, request_context.model, s.fallback_context_window, s.context_window
        )
        mrp = request_context.model_request_parameters
        calls.append(
            {
                'messages': messages,
                'fired': exceeds(messages, s.max_messages, trig, s.tokenizer, model_request_parameters=mrp),
                'tokens': estimate_context_tokens(messages, s.tokenizer, model_request_parameters=mrp),
                'token_trigger': trig,
                'n': len(messages),
            }
        )
        return request_context


@dataclass
class _After(AbstractCapability[Any]):
    rec: dict[str, Any] = field(default_factory=dict)

    async def before_model_request(self, ctx: Any, request_context: Any) -> Any:
        self.rec.setdefault('after', []).append(list(ctx.messages))
        return request_context


_SUMMARIZED: list[list[ModelMessage]] = []
_orig_write_summary = _sc_mod.write_summary


async def _observed_write_summary(summarizer: Any, messages: list[ModelMessage], ctx: Any, **kw: Any) -> str:
    _SUMMARIZED.append(list(messages))
    return await _orig_write_summary(summarizer, messages, ctx, **kw)


_sc_mod.write_summary = _observed_write_summary  # observation only: records the argument, then calls the original


# ---------------------------------------------------------------------------
# Cases
# ---------------------------------------------------------------------------


@dataclass
class Case:
    name: str
    preset: str
    build: Callable[[], list[ModelMessage]]
    settings: dict[str, Any]  # constructor kwargs, JSON-able (the summarizer model is added separately)
    summary_texts: list[str] = field(default_factory=lambda: ['SUMMARY-1'])
    summarizer_model: bool = True  # pass model=FunctionModel(...) ; False: the run's model summarizes
    main_script: list[ModelResponse] = field(default_factory=list)
    tools: bool = False
    guard: bool = False
    description: str = ''
    agent_instructions: str | None = AGENT_INSTRUCTIONS
    summarizer_name: str | None = SUMMARIZER_MODEL  # None: FunctionModel's default name, as seed 003 builds it


def _strategy(case: Case, fakes: Fakes) -> Any:
    kwargs = dict(case.settings)
    if case.preset == 'pydantic-ai-harness':
        if case.summarizer_model:
            kwargs['model'] = FunctionModel(fakes.summarize, model_name=case.summarizer_name)
        return SummarizingCompaction(**kwargs)
    return SlidingWindowCompaction(**kwargs)


def history_default_parallel() -> list[ModelMessage]:
    h = opening(H(), 'The /users endpoint returns 500 for deleted users. Find the bug and fix it; keep the API stable.')
    h.resp(
        text('I will look at the handler, the model and the test in parallel.'),
        call('read_file', {'path': 'src/app/api/users.py'}, 'call_p1'),
        call('read_file', {'path': 'src/app/db.py'}, 'call_p2'),
        call('grep', {'pattern': 'deleted_at', 'paths': ['src', 'tests']}, 'call_p3'),
    )
    h.req(
        ret('read_file', 'def get_user(user_id):\n    row = db.fetch(user_id)\n    return row.to_dict()', 'call_p1'),
        ret('read_file', 'class Row:\n    deleted_at: datetime | None', 'call_p2'),
        ret('grep', ['src/app/db.py:3:deleted_at', 'tests/test_users.py:88:deleted_at'], 'call_p3'),
    )
    for k in range(9):
        tool_round(h, k)
    h.resp(
        call('write_file', {'path': 'src/app/api/users.py', 'content': 'if row is None or row.deleted_at:\n    raise NotFound()'}, 'call_w1'),
        call('run_tests', {'selector': 'tests/test_users.py::test_deleted'}, 'call_w2'),
    )
    h.req(ret('write_file', 'ok: 2 lines changed', 'call_w1'), ret('run_tests', {'passed': 1, 'failed': 0}, 'call_w2'))
    h.resp(text('The handler now returns 404 for deleted users. Want me to add a regression test for restore?'))
    h.req(user('Yes, add the regression test and run the whole suite.'))
    return h.msgs


def history_huge_result() -> list[ModelMessage]:
    h = opening(H(), 'Why is the nightly import job slow? The log is in /var/log/import.log.')
    h.resp(text('Reading the import log.'), call('read_file', {'path': '/var/log/import.log'}, 'call_big'))
    lines = [f'2025-03-13T02:{(n // 60) % 60:02d}:{n % 60:02d}Z INFO import batch={n} rows=500 took={(n * 37) % 900}ms' for n in range(600)]
    big = '\n'.join(lines)[:30000]
    h.req(ret('read_file', big, 'call_big'))
    h.resp(text('Batches slow down every 60 batches; checking the cache flush.'), call('grep', {'pattern': 'flush', 'paths': ['src/app/cache.py']}, 'call_g'))
    h.req(ret('grep', 'src/app/cache.py:17:    self.flush(every=60)', 'call_g'))
    for k in range(3, 6):
        tool_round(h, k)
    h.req(user('Can you make the flush interval configurable?'))
    return h.msgs


def history_unicode() -> list[ModelMessage]:
    h = opening(H(), '请把用户名规范化：去掉首尾空格，NFC 归一化。例如 "Cafe\u0301" → "Café"。🙂')
    h.resp(
        think('用户想要 NFC 规范化；先看看现有的 normalize 函数。'),
        text('好的，我先查找现有的实现。🔍'),
        call('grep', {'pattern': 'normalize', 'paths': ['src/app/users/名前.py'], 'note': 'e\u0301\u0301 — ✓'}, 'call_u1'),
    )
    h.req(ret('grep', 'src/app/users/名前.py:12:def normalize(s): return s.strip()  # TODO: NFC 👩\u200d💻', 'call_u1'))
    h.resp(
        call('write_file', {'path': 'src/app/users/名前.py', 'content': 'import unicodedata\ndef normalize(s):\n    return unicodedata.normalize("NFC", s.strip())  # 👨\u200d👩\u200d👧'}, 'call_u2'),
    )
    h.req(ret('write_file', '書き込み完了 ✅', 'call_u2'))
    h.resp(call('run_tests', '{"selector": "tests/test_名前.py", "emoji": "🧪"}', 'call_u3'))
    h.req(ret('run_tests', {'passed': 3, 'failed': 0, 'names': ['test_nfc', 'test_strip', 'test_emoji_🙂']}, 'call_u3'))
    h.resp(text('测试全部通过 ✅。Ünïcödé handled; zero-width joiner kept in 👩\u200d💻.'))
    h.req(user('太好了！再加一个韩文测试：한국어 이름 "김\u1100\u1161" 也要归一化。'))
    h.resp(call('write_file', {'path': 'tests/test_名前.py', 'content': 'assert normalize("\u1100\u1161") == "가"'}, 'call_u4'))
    h.req(ret('write_file', 'ok', 'call_u4'))
    h.resp(call('run_tests', {'selector': 'tests/test_名前.py::test_hangul'}, 'call_u5'))
    h.req(ret('run_tests', {'passed': 1, 'failed': 0}, 'call_u5'))
    return h.msgs


def history_previous_summary() -> list[ModelMessage]:
    """A history continued after an earlier SummarizingCompaction: its summary CompactionPart is in it."""
    h = H()
    h.req(sysp(SYSTEM), user('Migrate the settings loader from INI to TOML without breaking old configs.'))
    h.req(
        CompactionPart(
            content='## Intent\nMigrate settings loader INI -> TOML, keep old configs working.\n\n## Current state\nParser written in src/app/config.py; 2 tests failing.',
            metadata={
                'pydantic-ai-harness.compaction.summary.v1': True,
                'pydantic-ai-harness.compaction.summary.created_at': '2025-03-14T08:30:00+00:00',
            },
        )
    )
    for k in range(10, 19):
        tool_round(h, k)
    h.resp(text('Both failing tests pass now; remaining: docs.'))
    h.req(user('Update docs/configuration.md with the TOML example.'))
    return h.msgs


def history_tool_group_cut() -> list[ModelMessage]:
    h = opening(H(), 'Add rate limiting to the login endpoint (5 attempts per minute).')
    for k in range(2):
        tool_round(h, k)
    # a retried call: the tool's argument validation asked the model to try again
    h.resp(call('write_file', {'path': 'src/app/api/login.py'}, 'call_r1'))
    h.req(
        ToolReturnPart(
            tool_name='write_file',
            content='missing required field: content',
            tool_call_id='call_r1',
            outcome='retried',
            retry=RetryInfo(cause='validation_error', attempt=1, max_retries=1),
            timestamp=T0,
        )
    )
    h.resp(call('write_file', {'path': 'src/app/api/login.py', 'content': '@limit(5, per=60)\ndef login(req): ...'}, 'call_r2'))
    h.req(ret('write_file', 'ok', 'call_r2'))
    for k in range(2, 4):
        tool_round(h, k)
    # an assistant turn with 3 parallel calls whose returns come in one request
    h.resp(
        call('read_file', {'path': 'src/app/api/login.py'}, 'call_g1'),
        call('read_file', {'path': 'src/app/ratelimit.py'}, 'call_g2'),
        call('grep', {'pattern': 'RateLimiter', 'paths': ['src']}, 'call_g3'),
    )
    h.req(
        ret('read_file', '@limit(5, per=60)\ndef login(req): ...', 'call_g1'),
        ret('read_file', 'class RateLimiter: ...', 'call_g2'),
        ret('grep', 'src/app/ratelimit.py:1:class RateLimiter', 'call_g3'),
    )
    h.resp(text('Rate limit added and verified.'))
    h.req(user('Run the tests please.'))
    return h.msgs


def history_thinking() -> list[ModelMessage]:
    h = opening(H(), 'Our p99 latency doubled after the ORM upgrade. Investigate.')
    h.resp(think('The ORM upgrade may have changed lazy loading defaults. Check the query log first.', sig='sig-AAA1'))
    h.req(user('Go ahead, you have read access to the query log.'))
    h.resp(
        think('Look for N+1 patterns: repeated SELECT on the same table within one request.', sig='sig-AAA2'),
        text('Reading the query log.'),
        call('read_file', {'path': '/var/log/queries.log', 'tail': 200}, 'call_t1'),
    )
    h.req(ret('read_file', '\n'.join(f'SELECT * FROM orders WHERE user_id={n}' for n in range(40)), 'call_t1'))
    h.resp(think('Classic N+1 on orders. selectinload fixes it.', sig='sig-AAA3'), call('grep', {'pattern': 'relationship\\(', 'paths': ['src/app/models.py']}, 'call_t2'))
    h.req(ret('grep', "src/app/models.py:30:    orders = relationship('Order', lazy='select')", 'call_t2'))
    h.resp(think('', sig='sig-REDACTED'), call('write_file', {'path': 'src/app/models.py', 'content': "lazy='selectin'"}, 'call_t3'))
    h.req(ret('write_file', 'ok', 'call_t3'))
    h.resp(think('Re-run the benchmark to confirm.'), call('run_tests', {'selector': 'bench/test_latency.py'}, 'call_t4'))
    h.req(ret('run_tests', {'p99_ms': 41, 'before_p99_ms': 88}, 'call_t4'))
    h.resp(text('p99 back to 41 ms.'))
    h.req(user('Great. Write up the root cause for the incident doc.'))
    return h.msgs


def history_with_usage() -> list[ModelMessage]:
    h = opening(H(), 'Refactor the cache module to use dependency injection.')
    inp = 1800
    for k in range(8):
        tool_round(h, k, usage=(inp, 60 + k))
        inp += 900
    h.resp(text('Refactor done; all call sites updated.'), usage=(inp, 40))
    h.req(user('Now remove the old global CACHE singleton.'))
    return h.msgs


def history_tail_heavy() -> list[ModelMessage]:
    """Small prefix; the last few messages alone are far above max_tokens."""
    h = opening(H(), 'Summarize the three design docs in docs/design/.')
    tool_round(h, 1)
    for i, cid in enumerate(['call_d1', 'call_d2']):
        h.resp(call('read_file', {'path': f'docs/design/{i + 1}.md'}, cid))
        h.req(ret('read_file', (f'# Design {i + 1}\n' + f'Paragraph {i + 1}: the storage layer shards by tenant id. ' * 60), cid))
    return h.msgs


def history_summary_longer() -> list[ModelMessage]:
    h = opening(H(), 'Bump the version to 2.4.1.')
    h.resp(call('read_file', {'path': 'pyproject.toml'}, 'call_v1'))
    h.req(ret('read_file', 'version = "2.4.0"', 'call_v1'))
    h.resp(call('write_file', {'path': 'pyproject.toml', 'content': 'version = "2.4.1"'}, 'call_v2'))
    h.req(ret('write_file', 'ok', 'call_v2'))
    h.resp(text('Bumped.'))
    h.req(user('Also tag it.'))
    h.resp(call('shell', {'cmd': 'git tag v2.4.1'}, 'call_v3'))
    h.req(ret('shell', '', 'call_v3'))
    h.resp(text('Tagged v2.4.1.'))
    h.req(user('Push the tag.'))
    return h.msgs


LONG_SUMMARY = (
    '## Intent\nBump the package version to 2.4.1 and tag the release.\n\n'
    + '## Key decisions\n'
    + ''.join(f'- Decision {n}: the version lives only in pyproject.toml; no __version__ constant is kept in sync.\n' for n in range(30))
    + '\n## Current state\nVersion bumped and tagged locally; not pushed.'
)


def _pad_to(build: Callable[[str], list[ModelMessage]], target: int, tokenizer: Any = None) -> Callable[[], list[ModelMessage]]:
    """Find the padding length for which the framework's own estimate (estimate_context_tokens of the history as
    the hook sees it) equals *target*; used to put a case exactly at or one above a max_tokens trigger."""

    def make() -> list[ModelMessage]:
        for n in range(0, 4000):
            msgs = build('x' * n)
            if estimate_context_tokens(msgs, tokenizer) == target:
                return msgs
        raise RuntimeError('no padding hits the target')

    return make


def history_boundary(pad: str) -> list[ModelMessage]:
    h = opening(H(), 'List the migrations that have not been applied yet.')
    for k in range(5):
        tool_round(h, k)
    h.resp(text('Two migrations are pending: 0042_add_index and 0043_drop_legacy.' + (' ' + pad if pad else '')))
    h.req(user('Apply 0042 only.'))
    return h.msgs


def history_long(n_rounds: int) -> Callable[[], list[ModelMessage]]:
    def make() -> list[ModelMessage]:
        h = opening(H(), 'Port the CLI from argparse to click, one subcommand at a time.')
        for k in range(n_rounds):
            tool_round(h, k)
        h.resp(text('All subcommands ported.'))
        h.req(user('Now update the README usage section.'))
        return h.msgs

    return make


def history_keep_users() -> list[ModelMessage]:
    h = opening(H(), 'Set up CI for the repo (GitHub Actions).')
    tool_round(h, 0)
    h.resp(text('Workflow file drafted.'))
    h.req(user('Use Python 3.12 and 3.13 in the matrix.'))
    tool_round(h, 1)
    h.resp(text('Matrix updated.'))
    h.req(user('Cache pip downloads too. ' + 'Keep the cache key stable across branches. ' * 3))
    tool_round(h, 2)
    h.resp(text('Cache added.'))
    h.req(user('Finally, add a lint job.'))
    return h.msgs


def history_seed003(large: bool = False) -> Callable[[], list[ModelMessage]]:
    """Seed 003's fixture: five tiny rounds ("topic N" / "noted N"; "noted N" x120 when large), then the
    request "continue". No instructions, no system prompt, no usage, as the seed builds it."""

    def make() -> list[ModelMessage]:
        h = H()
        for n in range(5):
            h.req(user(f'topic {n}'), instructions=None)
            h.resp(text(f'noted {n}' * (120 if large else 1)))
        h.req(user('continue'), instructions=None)
        return h.msgs

    return make


SEED_LONG_SUMMARY = 'retained note ' * 240
SEED_SHORT_SUMMARY = 'brief'


SEED003 = {'max_messages': 4, 'keep_messages': 2, 'receipts': True}


def cases() -> list[Case]:
    S = 'pydantic-ai-harness'
    W = 'pydantic-ai-harness-sliding'
    return [
        Case('default_parallel_tools', S, history_default_parallel, {'max_messages': 20}, summarizer_model=False,
             description='Only the required trigger (max_messages=20) with every other parameter default; keep_messages=20 default; the run model writes the summary; parallel tool calls in one assistant turn; leading system prompt and first user turn carried.'),
        Case('huge_tool_result', S, history_huge_result, {'max_tokens': 4000, 'keep_messages': 4},
             description='A 30,000-char tool return inside the summarized span: the transcript cuts it to 495 chars + "[...]"; the estimate counts it whole.'),
        Case('unicode', S, history_unicode, {'max_messages': 12, 'keep_messages': 4},
             description='CJK, emoji, ZWJ sequences, combining marks and Hangul jamo in user text, thinking, dict and JSON-string args; dict args render as Python repr (ZWJ escaped as \\u200d).'),
        Case('previous_summary', S, history_previous_summary, {'max_messages': 16, 'keep_messages': 6},
             description='History holds a summary CompactionPart from an earlier compaction: incremental=True (default) feeds it back as <previous-summary> and leaves it out of the transcript.'),
        Case('previous_summary_not_incremental', S, history_previous_summary, {'max_messages': 16, 'keep_messages': 6, 'incremental': False},
             description='Same history with incremental=False: the old summary is rendered as role="summary" in the transcript.'),
        Case('cut_in_tool_group', S, history_tool_group_cut, {'max_messages': 14, 'keep_messages': 3},
             description='len-keep (17-3=14) lands between a 3-call parallel response (13) and its returns (14); the cut walks back to 13 to keep the group whole. A retried call (ToolReturnPart outcome="retried") in the summarized span renders as role="retry_feedback" with cause.'),
        Case('below_trigger', S, _pad_to(history_boundary, 700), {'max_tokens': 700, 'keep_messages': 4},
             description='Estimate exactly equals max_tokens: the trigger is strict (>), so it does not fire.'),
        Case('above_trigger', S, _pad_to(history_boundary, 701), {'max_tokens': 700, 'keep_messages': 4},
             description='Estimate is max_tokens+1: fires.'),
        Case('thinking', S, history_thinking, {'max_messages': 10, 'keep_messages': 4},
             description='ThinkingPart (with signatures, one redacted/empty) is counted by the estimate but never rendered; a thinking-only response in the summarized span is neither kept nor rendered.'),
        Case('usage_anchor_fraction', S, history_with_usage, {'max_fraction': 0.5, 'context_window': 16000, 'keep_messages': 6},
             description='Responses carry provider usage: the trigger measure is the last response\'s input+output tokens plus char/4 of later messages; threshold = int(16000*0.5).'),
        Case('tail_exceeds_trigger', S, history_tail_heavy, {'max_tokens': 500, 'keep_messages': 3},
             summary_texts=['SUMMARY-1', 'SUMMARY-2'], tools=True,
             main_script=[ModelResponse(parts=[TextPart('Reading the third doc.'), ToolCallPart('read_file', {'path': 'docs/design/3.md'}, 'call_d3')])],
             description='The kept tail alone exceeds max_tokens, so after compacting the next request of the same run compacts again (a second summarizer call): 0.62 has no shrink check.'),
        Case('summary_longer', S, history_summary_longer, {'max_messages': 10, 'keep_messages': 3},
             summary_texts=[LONG_SUMMARY],
             description='The summary is longer than everything it replaces; 0.62 inserts it anyway (compacted estimate > original).'),
        Case('receipts_keep_tokens', S, history_long(12), {'max_tokens': 500, 'keep_tokens': 300, 'receipts': True},
             description='keep_tokens picks the tail by tokens; receipts=True inserts a receipt request after the summary.'),
        Case('keep_user_messages', S, history_keep_users, {'max_messages': 12, 'keep_messages': 5, 'keep_user_messages': True, 'tool_return_max_chars': 40},
             description='keep_user_messages=True keeps copies of summarized user turns after the summary (supersedes preserve_first_user_message); tool_return_max_chars=40.'),
        Case('guard_shrink_rejects', S, history_summary_longer, {'max_messages': 10, 'keep_messages': 3},
             summary_texts=[LONG_SUMMARY], guard=True,
             description='0.63 shrink guard (see notes: 0.63 not on PyPI, run with 0.62.0): a summary that makes the request larger.'),
        Case('guard_shrink_accepts', S, history_long(12), {'max_messages': 20, 'keep_messages': 6}, guard=True,
             description='0.63 shrink guard (see notes): a short summary that does shrink the request.'),
        Case('seed003_long', S, history_seed003(), SEED003, summary_texts=[SEED_LONG_SUMMARY], agent_instructions=None, summarizer_name=None,
             description='Seed 003 "long": max_messages=4, keep_messages=2, receipts=True and a 3,360-char summary: 0.62 grows the request estimate 19 -> 889.'),
        Case('seed003_short', S, history_seed003(), SEED003, summary_texts=[SEED_SHORT_SUMMARY], agent_instructions=None, summarizer_name=None,
             description='Seed 003 "short": a one-word summary with its receipt still grows the tiny request, 19 -> 50.'),
        Case('seed003_below_trigger', S, history_seed003(), {**SEED003, 'max_messages': 200}, summary_texts=[SEED_LONG_SUMMARY],
             agent_instructions=None, summarizer_name=None, description='Seed 003 control: max_messages=200, not fired; the request stays at 19.'),
        Case('seed003_short_large', S, history_seed003(large=True), SEED003, summary_texts=[SEED_SHORT_SUMMARY], agent_instructions=None, summarizer_name=None,
             description='Seed 003 "short_large": the same one-word summary on a history estimated at 1060 shrinks it to 259.'),
        Case('seed003_guard_rejects', S, history_seed003(), SEED003, summary_texts=[SEED_LONG_SUMMARY], agent_instructions=None, summarizer_name=None,
             guard=True, description='Seed 003 "long" under guard=shrink (see notes: the seed reports 0.63 keeps the request at 19).'),
        Case('seed003_guard_rejects_short', S, history_seed003(), SEED003, summary_texts=[SEED_SHORT_SUMMARY], agent_instructions=None, summarizer_name=None,
             guard=True, description='Seed 003 "short" under guard=shrink (the seed reports 0.63 keeps the request at 19).'),
        Case('seed003_guard_accepts', S, history_seed003(large=True), SEED003, summary_texts=[SEED_SHORT_SUMMARY], agent_instructions=None, summarizer_name=None,
             guard=True, description='Seed 003 "short_large" under guard=shrink (the seed reports 0.63 accepts it: 1060 -> 259).'),
        Case('sliding_default', W, history_long(22), {'max_messages': 44},
             description='SlidingWindowCompaction with only max_messages; keep_messages=40 default; first user request re-prepended.'),
        Case('sliding_tool_group_cut', W, history_tool_group_cut, {'max_messages': 14, 'keep_messages': 3},
             description='Cut walks back to keep a parallel tool group whole; dropped prefix is not rendered anywhere.'),
        Case('sliding_receipts', W, history_long(10), {'max_messages': 16, 'keep_messages': 8, 'receipts': True},
             description='receipts=True: keeps keep_messages-1 and prepends a receipt request.'),
        Case('sliding_keep_tokens', W, history_huge_result, {'max_tokens': 3000, 'keep_tokens': 200, 'preserve_first_user_message': False},
             description='keep_tokens tail; preserve_first_user_message=False so the first request (with the system prompt) is dropped too.'),
        Case('sliding_below_trigger', W, _pad_to(history_boundary, 700), {'max_tokens': 700, 'keep_messages': 4},
             description='Estimate equals max_tokens: not fired.'),
        Case('sliding_seed003_window_only', W, history_seed003(), SEED003, agent_instructions=None, summarizer_name=None,
             description='Seed 003 "window_only": SlidingWindowCompaction alone with receipts grows the tiny request 19 -> 46.'),
    ]


# ---------------------------------------------------------------------------
# Running and deriving the golden
# ---------------------------------------------------------------------------


def _contains(seq: list[Any], obj: Any) -> bool:
    return any(x is obj for x in seq)


def _provider_text_parts(m: ModelMessage) -> str:
    """The text of a request's user prompt (summarizer input): joined the way format_transcript joins items."""
    out: list[str] = []
    for p in m.parts:
        if isinstance(p, UserPromptPart):
            out.append(p.content if isinstance(p.content, str) else ' '.join(str(getattr(i, 'content', i)) for i in p.content))
    return '\n\n'.join(out)


def _summarizer_messages(msgs: list[ModelMessage], info: AgentInfo) -> list[dict[str, str]]:
    out: list[dict[str, str]] = []
    if info.instructions:
        out.append({'role': 'system', 'content': info.instructions})
    for m in msgs:
        if isinstance(m, ModelRequest):
            for p in m.parts:
                if isinstance(p, SystemPromptPart):
                    out.append({'role': 'system', 'content': p.content})
                elif isinstance(p, UserPromptPart):
                    assert isinstance(p.content, str), 'summarizer prompt is a plain string'
                    out.append({'role': 'user', 'content': p.content})
                else:
                    raise AssertionError(f'unexpected part in summarizer request: {p!r}')
        else:
            out.append({'role': 'assistant', 'content': ''.join(p.content for p in m.parts if isinstance(p, TextPart))})
    return out


def _part_text(p: Any) -> str | None:
    if isinstance(p, UserPromptPart):
        return ' '.join(_user_texts(p))
    c = getattr(p, 'content', None)
    return c if isinstance(c, str) else None


def _user_texts(p: UserPromptPart) -> list[str]:
    if isinstance(p.content, str):
        return [p.content]
    return [i if isinstance(i, str) else getattr(i, 'content', '') for i in p.content if isinstance(i, str) or hasattr(i, 'content')]


def _describe(msg: ModelMessage, src: list[ModelMessage]) -> dict[str, Any]:
    """One compacted-history message: which source record it is (identity), and for each part which source
    record the part object came from; parts the compaction created carry their text."""
    src_idx = next((i for i, s in enumerate(src) if s is msg), None)
    parts = []
    for p in msg.parts:
        pidx = next((i for i, s in enumerate(src) if any(q is p for q in s.parts)), None)
        d: dict[str, Any] = {'part_kind': p.part_kind, 'source_index': pidx}
        if pidx is None:
            d['content'] = _part_text(p)
            if isinstance(p, UserPromptPart) and not isinstance(p.content, str):
                d['items_metadata'] = [getattr(i, 'metadata', None) for i in p.content]
        parts.append(d)
    out: dict[str, Any] = {'kind': msg.kind, 'source_index': src_idx, 'parts': parts}
    if isinstance(msg, ModelRequest) and msg.metadata:
        out['metadata'] = msg.metadata
    return out


CLOCK = '<made up: clock>'


def _history_json(after: list[ModelMessage], before: list[ModelMessage]) -> tuple[Any, list[str]]:
    """`ModelMessagesTypeAdapter.dump_json` of the compacted history, exactly as the framework returns it,
    with the values the framework makes up at that moment (clock readings) replaced by CLOCK; returns the
    document and the JSON pointers replaced.  Everything else is byte for byte what pydantic serialises.
    Made up: the summary request's `timestamp` and its part's `created_at` metadata (`datetime.now`), and
    the `timestamp` of a new receipt `UserPromptPart` (its default factory)."""
    doc = json.loads(ModelMessagesTypeAdapter.dump_json(after))
    before_parts = [p for m in before for p in m.parts]
    made_up: list[str] = []
    for i, (m, d) in enumerate(zip(after, doc)):
        if _contains(before, m):
            continue
        for j, (p, pd) in enumerate(zip(m.parts, d['parts'])):
            if _contains(before_parts, p):
                continue
            if isinstance(p, CompactionPart) and (p.metadata or {}).get('pydantic-ai-harness.compaction.summary.v1'):
                if d.get('timestamp') is not None:
                    d['timestamp'] = CLOCK
                    made_up.append(f'/{i}/timestamp')
                key = 'pydantic-ai-harness.compaction.summary.created_at'
                if key in (pd.get('metadata') or {}):
                    pd['metadata'][key] = CLOCK
                    made_up.append(f'/{i}/parts/{j}/metadata/{key}')
            elif isinstance(p, UserPromptPart) and not isinstance(p.content, str) and any(
                getattr(c, 'metadata', None) == 'pydantic-ai-harness.compaction.receipt.v1' for c in p.content
            ):
                pd['timestamp'] = CLOCK
                made_up.append(f'/{i}/parts/{j}/timestamp')
    return doc, made_up


async def run_case(case: Case) -> tuple[bytes, dict[str, Any]]:
    history = case.build()
    fakes = Fakes(summary_texts=case.summary_texts, main_script=case.main_script)
    strategy = _strategy(case, fakes)
    rec: dict[str, Any] = {'last_ts': history[-1].timestamp}
    main_model = FunctionModel(fakes.main, model_name=RUN_MODEL)
    agent = Agent(
        main_model,
        instructions=case.agent_instructions,
        capabilities=[_Before(rec=rec, strategy=strategy), strategy, _After(rec=rec)],
    )
    if case.tools:

        @agent.tool_plain
        def read_file(path: str) -> str:
            return f'# {path}\n' + 'Paragraph 3: compaction must keep tool pairs together. ' * 60

    _SUMMARIZED.clear()
    await agent.run(None, message_history=history, conversation_id=CONV)

    first = rec['calls'][0]
    before: list[ModelMessage] = first['messages']
    after: list[ModelMessage] = rec['after'][0]
    changed = before != after
    summarized_msgs = _SUMMARIZED[0] if (_SUMMARIZED and case.preset == 'pydantic-ai-harness' and changed) else []

    after_parts = [p for m in after for p in m.parts]
    kept, summarized, dropped, notes = [], [], [], []
    rendered_and_kept, partially_kept = [], []
    tmax = getattr(strategy, 'tool_return_max_chars', 500)
    for i, m in enumerate(before):
        whole = _contains(after, m)
        parts_alive = [p for p in m.parts if _contains(after_parts, p)]
        is_kept = whole or (m.parts and len(parts_alive) == len(m.parts))
        rendered = _contains(summarized_msgs, m) and format_transcript([m], tool_return_max_chars=tmax) != ''
        if not is_kept and parts_alive:
            partially_kept.append(i)
        if is_kept:
            kept.append(i)
            if rendered:
                rendered_and_kept.append(i)
        elif rendered:
            summarized.append(i)
        else:
            dropped.append(i)
    if not changed:
        kept, summarized, dropped, rendered_and_kept, partially_kept = list(range(len(before))), [], [], [], []
    if rendered_and_kept:
        notes.append(
            f'source indices {rendered_and_kept} are both rendered into the summarizer transcript and kept (their parts '
            'survive by identity, possibly re-wrapped in a new ModelRequest: leading system prompts go into a standing '
            'request and the first user turn is kept as its own request).'
        )
    prompt = ''
    if fakes.summarizer_calls and changed:
        prompt = _summarizer_messages(*fakes.summarizer_calls[0])[-1]['content']
    part_fates: dict[str, list[dict[str, Any]]] = {}
    for i in partially_kept:
        fates = []
        for j, p in enumerate(before[i].parts):
            if _contains(after_parts, p):
                fate = 'kept'
            else:
                el = format_transcript([ModelRequest(parts=[p])], tool_return_max_chars=tmax)
                body = _part_text(p) or ''
                fate = 'rendered' if (el and el in prompt) or (isinstance(p, CompactionPart) and body and body in prompt) else 'dropped'
            fates.append({'part_index': j, 'part_kind': p.part_kind, 'fate': fate})
        part_fates[str(i)] = fates
    if partially_kept:
        notes.append(
            f'source indices {partially_kept} keep some parts and lose others; they are listed as summarized if any '
            'part is rendered, else dropped. expected.part_fates gives each part\'s fate (rendered = its element, or '
            'for an earlier summary its text, appears in the summarizer prompt).'
        )
    user_copies = []
    for pos, m in enumerate(after):
        if _contains(before, m) or not isinstance(m, ModelRequest):
            continue
        for p in m.parts:
            if isinstance(p, UserPromptPart) and not _contains(after_parts_src := [q for b in before for q in b.parts], p):
                t = ' '.join(_user_texts(p))
                srcs = [k for k, b in enumerate(before) for q in b.parts if isinstance(q, UserPromptPart) and ' '.join(_user_texts(q)) == t]
                if srcs:
                    user_copies.append({'position': pos, 'source_index': srcs[0]})
    if user_copies:
        notes.append(
            'expected.user_copies: user turns re-inserted as marked copies (new UserPromptPart objects, text unchanged, '
            'content re-wrapped as TextContent with keep_user_messages metadata); their sources are counted as summarized.'
        )

    summarizer = None
    if fakes.summarizer_calls and changed:
        msgs, info = fakes.summarizer_calls[0]
        summarizer = {'messages': _summarizer_messages(msgs, info)}
        notes.append(
            'summarizer.messages: the summary agent\'s `instructions` (sent by providers as the system message) then the '
            'one user prompt, exactly as the FunctionModel received them.'
        )

    summary_inserted = None
    for pos, m in enumerate(after):
        for p in m.parts:
            if isinstance(p, CompactionPart) and not _contains(before, m) and (p.metadata or {}).get('pydantic-ai-harness.compaction.summary.v1'):
                summary_inserted = {
                    'role': 'user',
                    'content': _conversation_summary_text(p.content),
                    'summary_text': p.content,
                    'position': pos,
                    'part_kind': 'compaction',
                    'metadata_keys': sorted((p.metadata or {}).keys()),
                }
    s = strategy
    if s.max_tokens is not None or s.max_fraction is not None:
        measure, threshold = first['tokens'], first['token_trigger']
    else:
        measure, threshold = first['n'], s.max_messages

    settings = dict(case.settings)
    if case.preset == 'pydantic-ai-harness' and case.summarizer_model:
        settings['model'] = 'FunctionModel'
    expected: dict[str, Any] = {
        'fired': bool(first['fired']),
        'reason': None,
        'measure': measure,
        'threshold': threshold,
        'trigger_detail': {
            'messages': first['n'],
            'max_messages': s.max_messages,
            'estimate_context_tokens': first['tokens'],
            'token_trigger': first['token_trigger'],
            'comparison': 'strict: len(messages) > max_messages or estimate > token_trigger',
        },
        'kept_source_indices': kept,
        'summarized_source_indices': summarized,
        'dropped_source_indices': dropped,
        'summarizer': summarizer,
        'summary_inserted': summary_inserted,
        'compacted_history_len': len(after),
        'part_fates': part_fates,
        'user_copies': user_copies,
        'compacted_history': [_describe(m, before) for m in after],
        'tokens_before': estimate_token_count(before, s.tokenizer),
        'tokens_after': estimate_token_count(after, s.tokenizer),
    }
    expected['history'], expected['history_made_up'] = _history_json(after, before)
    if changed and summarizer is None and case.preset == 'pydantic-ai-harness':
        notes.append('history changed without a summarizer call')
    if not changed and first['fired']:
        notes.append('trigger fired but the strategy returned the history unchanged')
    # every further request the run made (re-compaction)
    followups = []
    for k, c in enumerate(rec['calls'][1:], start=1):
        fu: dict[str, Any] = {'request': k, 'messages': c['n'], 'estimate_context_tokens': c['tokens'], 'fired': bool(c['fired'])}
        followups.append(fu)
    if followups:
        expected['followup_requests'] = followups
        expected['summarizer_calls_total'] = len(fakes.summarizer_calls)
        if len(fakes.summarizer_calls) > 1:
            expected['followup_summarizer'] = [
                {'messages': _summarizer_messages(m, i)} for m, i in fakes.summarizer_calls[1:]
            ]

    golden: dict[str, Any] = {
        'framework': 'pydantic-ai-harness',
        'version': HARNESS_VERSION,
        'core_version': CORE_VERSION,
        'preset': case.preset,
        'case': case.name,
        'strategy': type(strategy).__name__,
        'description': case.description,
        'settings': settings,
        'model': RUN_MODEL,
        'summarizer_model': (strategy.model.model_name if case.summarizer_model else RUN_MODEL) if case.preset == 'pydantic-ai-harness' else None,
        'context_window': case.settings.get('context_window'),
        'instructions': case.agent_instructions,
        'expected': expected,
    }
    if case.guard:
        golden['settings'] = {**settings, 'guard': 'shrink'}
        golden['guard_version'] = '0.63'
        golden['guard_verified'] = False
        before_tok, after_tok = expected['tokens_before'], expected['tokens_after']
        notes.append(
            'guard=shrink emulates the 0.63 rule "keep the history when the compacted request is not smaller". '
            f'pydantic-ai-harness 0.63 is not on PyPI, so this case was RUN with {HARNESS_VERSION}; everything in '
            f'"expected" is what {HARNESS_VERSION} did. "guard" gives the framework\'s own estimate_token_count of the '
            'request before and after (the figures seed 003 reports 0.63 compares: 19 kept at 19, 1060 -> 259 accepted).'
        )
        golden['guard'] = {
            'tokens_before': before_tok,
            'tokens_after': after_tok,
            'shrank': after_tok < before_tok,
            'estimator': 'pydantic_ai_harness.compaction._shared.estimate_token_count (char/4 incl. latest instructions)',
        }
    golden['notes'] = notes
    data = ModelMessagesTypeAdapter.dump_json(before, indent=2)
    return data, golden


def write_seed_fixtures(data: bytes) -> None:
    """Seed 003's history as a native pydantic-ai file (the framework's own dump of what the hook saw) and the
    same turns as OpenAI chat."""
    (ROOT / 'fixtures' / 'pydantic-ai' / 'seed-003-tiny-rounds.json').write_bytes(data + b'\n')
    chat = []
    for m in ModelMessagesTypeAdapter.validate_json(data):
        for p in m.parts:
            role = 'user' if isinstance(m, ModelRequest) else 'assistant'
            chat.append({'role': role, 'content': p.content})
    text = json.dumps(chat, indent=2) + '\n'
    (ROOT / 'fixtures' / 'openai-chat' / 'seed-003-tiny-rounds.json').write_text(text, encoding='utf-8')


def main() -> int:
    only = set(sys.argv[1:])
    for d in OUT.values():
        d.mkdir(parents=True, exist_ok=True)
    for case in cases():
        if only and case.name not in only:
            continue
        data, golden = asyncio.run(run_case(case))
        out = OUT[case.preset]
        (out / f'{case.name}.input.json').write_bytes(data + b'\n')
        if case.name == 'seed003_long':
            write_seed_fixtures(data)
        (out / f'{case.name}.golden.json').write_text(json.dumps(golden, indent=2, ensure_ascii=False) + '\n', encoding='utf-8')
        e = golden['expected']
        print(
            f'{case.preset:28} {case.name:34} fired={e["fired"]!s:5} measure={e["measure"]}/{e["threshold"]} '
            f'kept={len(e["kept_source_indices"])} summ={len(e["summarized_source_indices"])} drop={len(e["dropped_source_indices"])} '
            f'after={e["compacted_history_len"]} calls={e.get("summarizer_calls_total", "")}'
        )
    return 0


if __name__ == '__main__':
    raise SystemExit(main())
