//! Server-sent event streams as the providers send them: OpenAI Chat Completions chunks and
//! Anthropic Messages events, built from the text deltas a test wants streamed.

use serde_json::{json, Value};

/// OpenAI chunks as the API sends them: a role chunk, one chunk per delta, a finish chunk, the
/// usage chunk (`include_usage`), `[DONE]`.
pub fn openai_events(deltas: &[&str]) -> Vec<String> {
    let chunk = |choices: Value, usage: Value| {
        let c = json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1,
            "model": "gpt-test-2025-01-01", "choices": choices, "usage": usage});
        format!("data: {c}\n\n")
    };
    let mut out = vec![chunk(
        json!([{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": null}]),
        Value::Null,
    )];
    for d in deltas {
        out.push(chunk(
            json!([{"index": 0, "delta": {"content": d}, "finish_reason": null}]),
            Value::Null,
        ));
    }
    out.push(chunk(
        json!([{"index": 0, "delta": {}, "finish_reason": "stop"}]),
        Value::Null,
    ));
    out.push(chunk(
        json!([]),
        json!({"prompt_tokens": 5321, "completion_tokens": 17, "total_tokens": 5338}),
    ));
    out.push("data: [DONE]\n\n".into());
    out
}

/// Anthropic events as the API sends them.
pub fn anthropic_events(deltas: &[&str]) -> Vec<String> {
    let ev = |name: &str, data: Value| format!("event: {name}\ndata: {data}\n\n");
    let mut out = vec![
        ev(
            "message_start",
            json!({"type": "message_start", "message": {"id": "msg_1",
            "type": "message", "role": "assistant", "content": [], "model": "claude-test-20250101",
            "stop_reason": null, "usage": {"input_tokens": 4210, "output_tokens": 1}}}),
        ),
        ev(
            "content_block_start",
            json!({"type": "content_block_start", "index": 0,
            "content_block": {"type": "text", "text": ""}}),
        ),
        ev("ping", json!({"type": "ping"})),
    ];
    for d in deltas {
        out.push(ev(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0,
            "delta": {"type": "text_delta", "text": d}}),
        ));
    }
    out.push(ev(
        "content_block_stop",
        json!({"type": "content_block_stop", "index": 0}),
    ));
    out.push(ev("message_delta", json!({"type": "message_delta",
        "delta": {"stop_reason": "end_turn", "stop_sequence": null}, "usage": {"output_tokens": 23}})));
    out.push(ev("message_stop", json!({"type": "message_stop"})));
    out
}
