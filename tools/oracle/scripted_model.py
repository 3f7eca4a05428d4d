#!/usr/bin/env python3
"""A scripted model on loopback, so a real agent tool can be run offline and the session file it
writes kept as a fixture.

The tool under test is pointed at this server as its OpenAI-compatible or Anthropic provider.
Each model request takes the next turn of a script, whatever the request says; when the script
is used up the model answers "Done." with no tool call. Every request body is written to the log
directory (`NNN.json`), so what the tool sent is on record beside what it stored.

Speaks, streaming (`"stream": true`, server-sent events) and not:
  POST /v1/chat/completions, /chat/completions   OpenAI Chat Completions
  POST /v1/messages, /messages                   Anthropic Messages
  GET  /v1/models, /models                       one model, named by --model

Script: a JSON array of turns, each
  {"text": "...", "reasoning": "...", "tool_calls": [{"name": "...", "arguments": {...}}]}
(every key optional). With --tools-only, a request that offers no tools (a title, a summary, a
check the tool makes on the side) is answered with --side-text and takes no turn. Usage is reported as a quarter of the request's and the answer's bytes.

    python3 scripted_model.py --port 8765 --script turns.json --log-dir requests/
"""

import argparse
import json
import os
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Script:
    def __init__(self, turns, log_dir, side_text, tools_only):
        self.turns = turns
        self.tools_only = tools_only
        self.side_text = side_text
        self.logged = 0
        self.next = 0
        self.calls = 0
        self.lock = threading.Lock()
        self.log_dir = log_dir

    def take(self, body):
        with self.lock:
            self.logged += 1
            if self.log_dir:
                os.makedirs(self.log_dir, exist_ok=True)
                with open(os.path.join(self.log_dir, f"{self.logged:03}.json"), "w") as f:
                    json.dump(body, f, indent=1)
            if self.tools_only and not body.get("tools"):
                return {"text": self.side_text}, []
            n = self.next
            self.next += 1
            turn = self.turns[n] if n < len(self.turns) else {"text": "Done."}
            ids = []
            for _ in turn.get("tool_calls", []):
                self.calls += 1
                ids.append(self.calls)
            return turn, ids


def quarter(value):
    return max(1, len(json.dumps(value)) // 4)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    script = None
    model = "scripted"

    def log_message(self, fmt, *args):
        pass

    def do_GET(self):
        if self.path.rstrip("/").endswith("/models"):
            now = int(time.time())
            self.send_json(
                {
                    "object": "list",
                    "data": [{"id": self.model, "object": "model", "created": now, "owned_by": "oracle"}],
                }
            )
        else:
            self.send_json({"error": {"message": "not found"}}, 404)

    def do_POST(self):
        length = int(self.headers.get("content-length", 0))
        raw = self.rfile.read(length)
        try:
            body = json.loads(raw)
        except ValueError:
            self.send_json({"error": {"message": "body is not JSON"}}, 400)
            return
        path = self.path.split("?")[0].rstrip("/")
        if path.endswith("/chat/completions"):
            self.chat(body)
        elif path.endswith("/messages"):
            self.messages(body)
        else:
            self.send_json({"error": {"message": f"no endpoint {path}"}}, 404)

    # --- OpenAI Chat Completions -------------------------------------------------------------

    def chat(self, body):
        turn, ids = self.script.take(body)
        text = turn.get("text", "")
        calls = [
            {
                "id": f"call_{i:04}",
                "type": "function",
                "function": {"name": c["name"], "arguments": json.dumps(c.get("arguments", {}))},
            }
            for i, c in zip(ids, turn.get("tool_calls", []))
        ]
        prompt = quarter(body.get("messages", []))
        completion = quarter(turn)
        usage = {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}
        finish = "tool_calls" if calls else "stop"
        created = int(time.time())
        rid = f"chatcmpl-{self.script.logged:04}"
        if not body.get("stream"):
            message = {"role": "assistant", "content": text or None}
            if calls:
                message["tool_calls"] = calls
            self.send_json(
                {
                    "id": rid,
                    "object": "chat.completion",
                    "created": created,
                    "model": body.get("model", self.model),
                    "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                    "usage": usage,
                }
            )
            return

        def chunk(delta, finish_reason=None, with_usage=False):
            out = {
                "id": rid,
                "object": "chat.completion.chunk",
                "created": created,
                "model": body.get("model", self.model),
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
            }
            if with_usage:
                out["usage"] = usage
            return out

        events = [chunk({"role": "assistant", "content": ""})]
        if turn.get("reasoning"):
            events.append(chunk({"reasoning_content": turn["reasoning"]}))
        for piece in split(text):
            events.append(chunk({"content": piece}))
        for index, call in enumerate(calls):
            events.append(
                chunk(
                    {
                        "tool_calls": [
                            {
                                "index": index,
                                "id": call["id"],
                                "type": "function",
                                "function": {"name": call["function"]["name"], "arguments": ""},
                            }
                        ]
                    }
                )
            )
            for piece in split(call["function"]["arguments"]):
                events.append(chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]}))
        events.append(chunk({}, finish))
        final = chunk({}, None, True)
        final["choices"] = []
        events.append(final)
        self.send_sse([(None, e) for e in events] + [(None, "[DONE]")])

    # --- Anthropic Messages --------------------------------------------------------------------

    def messages(self, body):
        turn, ids = self.script.take(body)
        text = turn.get("text", "")
        blocks = []
        if turn.get("reasoning"):
            blocks.append({"type": "thinking", "thinking": turn["reasoning"], "signature": "scripted"})
        if text:
            blocks.append({"type": "text", "text": text})
        for i, c in zip(ids, turn.get("tool_calls", [])):
            blocks.append({"type": "tool_use", "id": f"toolu_{i:04}", "name": c["name"], "input": c.get("arguments", {})})
        usage = {
            "input_tokens": quarter([body.get("system"), body.get("messages", [])]),
            "output_tokens": quarter(turn),
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
        }
        stop = "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"
        mid = f"msg_{self.script.logged:04}"
        model = body.get("model", self.model)
        if not body.get("stream"):
            self.send_json(
                {
                    "id": mid,
                    "type": "message",
                    "role": "assistant",
                    "model": model,
                    "content": blocks,
                    "stop_reason": stop,
                    "stop_sequence": None,
                    "usage": usage,
                }
            )
            return
        start_usage = dict(usage, output_tokens=1)
        events = [
            (
                "message_start",
                {
                    "type": "message_start",
                    "message": {
                        "id": mid,
                        "type": "message",
                        "role": "assistant",
                        "model": model,
                        "content": [],
                        "stop_reason": None,
                        "stop_sequence": None,
                        "usage": start_usage,
                    },
                },
            )
        ]
        for index, block in enumerate(blocks):
            if block["type"] == "text":
                start, deltas = {"type": "text", "text": ""}, [
                    {"type": "text_delta", "text": p} for p in split(block["text"])
                ]
            elif block["type"] == "thinking":
                start, deltas = {"type": "thinking", "thinking": ""}, [
                    {"type": "thinking_delta", "thinking": p} for p in split(block["thinking"])
                ] + [{"type": "signature_delta", "signature": block["signature"]}]
            else:
                start = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
                deltas = [{"type": "input_json_delta", "partial_json": p} for p in split(json.dumps(block["input"]))]
            events.append(("content_block_start", {"type": "content_block_start", "index": index, "content_block": start}))
            for d in deltas:
                events.append(("content_block_delta", {"type": "content_block_delta", "index": index, "delta": d}))
            events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
        events.append(
            (
                "message_delta",
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": stop, "stop_sequence": None},
                    "usage": {"output_tokens": usage["output_tokens"]},
                },
            )
        )
        events.append(("message_stop", {"type": "message_stop"}))
        self.send_sse(events)

    # --- wire -----------------------------------------------------------------------------------

    def send_json(self, value, status=200):
        data = json.dumps(value).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def send_sse(self, events):
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.send_header("connection", "close")
        self.end_headers()
        for name, value in events:
            data = value if isinstance(value, str) else json.dumps(value)
            line = (f"event: {name}\n" if name else "") + f"data: {data}\n\n"
            self.wfile.write(line.encode())
            self.wfile.flush()
        self.close_connection = True


def split(text, size=24):
    return [text[i : i + size] for i in range(0, len(text), size)] if text else []


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--script", required=True, help="JSON array of turns")
    parser.add_argument("--log-dir", help="write each request body here as NNN.json")
    parser.add_argument("--model", default="scripted")
    parser.add_argument("--tools-only", action="store_true", help="only requests offering tools take turns")
    parser.add_argument("--side-text", default="Scripted session", help="answer to the other requests")
    args = parser.parse_args()
    with open(args.script) as f:
        turns = json.load(f)
    Handler.script = Script(turns, args.log_dir, args.side_text, args.tools_only)
    Handler.model = args.model
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    print(f"scripted model on http://127.0.0.1:{args.port} ({len(turns)} turns)", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
