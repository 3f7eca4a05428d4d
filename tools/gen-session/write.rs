//! Writes a generated agent session of a given size in one of three formats: Claude Code JSONL,
//! Codex rollout JSONL, or an OpenAI Chat Completions request (JSON).
//!
//! Owns: the record shapes of each format and the turn structure (user prompt, sometimes an
//! image; assistant reasoning and text; one to four parallel tool calls; their results, often
//! long logs or code). Must not: count tokens or parse what it writes.
#![allow(dead_code)]

use std::io::{self, Write};

use serde_json::{json, Value};

use crate::text::{self, Rng};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    ClaudeCode,
    Codex,
    OpenAiChat,
}

impl Shape {
    pub const ALL: [Shape; 3] = [Shape::ClaudeCode, Shape::Codex, Shape::OpenAiChat];

    pub fn name(self) -> &'static str {
        match self {
            Shape::ClaudeCode => "claude-code",
            Shape::Codex => "codex",
            Shape::OpenAiChat => "openai-chat",
        }
    }

    pub fn extension(self) -> &'static str {
        match self {
            Shape::OpenAiChat => "json",
            _ => "jsonl",
        }
    }

    pub fn parse(name: &str) -> Option<Shape> {
        Shape::ALL.into_iter().find(|s| s.name() == name)
    }
}

/// One generated turn, independent of format.
struct Turn {
    prompt: String,
    image: Option<String>,
    reasoning: Option<String>,
    preamble: String,
    calls: Vec<(String, String, String, String)>, // id, name, arguments, result
    answer: String,
}

fn turn(rng: &mut Rng, n: usize) -> Turn {
    let words = rng.range(5, 120);
    let prompt = text::prose(rng, words);
    let image = rng.chance(3).then(|| {
        let bytes = rng.range(20_000, 200_000);
        text::image_base64(rng, bytes)
    });
    let reasoning = rng.chance(60).then(|| {
        let words = rng.range(20, 200);
        text::prose(rng, words)
    });
    let preamble_words = rng.range(3, 40);
    let preamble = text::prose(rng, preamble_words);
    let parallel = match rng.range(0, 10) {
        0 => 0,
        1..=6 => 1,
        7..=8 => 2,
        _ => rng.range(3, 5),
    };
    let calls = (0..parallel)
        .map(|k| {
            let name = (*rng.pick(&["Bash", "Read", "Edit", "Grep"])).to_string();
            let result = text::any(rng);
            (
                format!("call_{n:06}_{k}_{:08x}", rng.next() as u32),
                name,
                text::json_args(rng),
                result,
            )
        })
        .collect();
    let answer_words = rng.range(10, 250);
    Turn {
        prompt,
        image,
        reasoning,
        preamble,
        calls,
        answer: text::prose(rng, answer_words),
    }
}

fn stamp(n: usize) -> String {
    let s = n as u64;
    format!(
        "2026-11-{:02}T{:02}:{:02}:{:02}.000Z",
        1 + (s / 86_400) % 28,
        (s / 3600) % 24,
        (s / 60) % 60,
        s % 60
    )
}

/// Writes a session of at least `target` bytes (stopping after the turn that crosses it) and
/// returns the bytes written.
pub fn write_session(shape: Shape, target: u64, seed: u64, out: &mut dyn Write) -> io::Result<u64> {
    let mut rng = Rng::new(seed);
    let mut w = Counting { out, written: 0 };
    let mut n = 0usize;
    let mut first = true;
    match shape {
        Shape::Codex => codex_head(&mut w)?,
        Shape::OpenAiChat => w.write_all(
            b"{\"model\":\"gpt-4o\",\"messages\":[{\"role\":\"system\",\"content\":\"You are a coding agent.\"}",
        )?,
        Shape::ClaudeCode => {}
    }
    while w.written < target || first {
        let t = turn(&mut rng, n);
        match shape {
            Shape::ClaudeCode => claude_turn(&mut w, &t, &mut n)?,
            Shape::Codex => codex_turn(&mut w, &t, &mut n)?,
            Shape::OpenAiChat => chat_turn(&mut w, &t, &mut n)?,
        }
        first = false;
    }
    if shape == Shape::OpenAiChat {
        w.write_all(b"]}\n")?;
    }
    Ok(w.written)
}

struct Counting<'a> {
    out: &'a mut dyn Write,
    written: u64,
}

impl Counting<'_> {
    fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.written += bytes.len() as u64;
        self.out.write_all(bytes)
    }

    fn line(&mut self, v: &Value) -> io::Result<()> {
        let mut bytes = serde_json::to_vec(v).map_err(io::Error::other)?;
        bytes.push(b'\n');
        self.write_all(&bytes)
    }
}

fn claude_line(w: &mut Counting, n: &mut usize, kind: &str, message: Value) -> io::Result<()> {
    let uuid = |k: usize| format!("00000000-0000-4000-8000-{k:012x}");
    let parent = if *n == 0 {
        Value::Null
    } else {
        json!(uuid(*n - 1))
    };
    w.line(&json!({
        "parentUuid": parent, "isSidechain": false, "userType": "external", "cwd": "/home/dev/demo",
        "sessionId": "55550000-0000-4000-8000-00000000beef", "version": "2.0.5",
        "gitBranch": "main", "type": kind, "message": message, "uuid": uuid(*n),
        "timestamp": stamp(*n),
    }))?;
    *n += 1;
    Ok(())
}

fn claude_turn(w: &mut Counting, t: &Turn, n: &mut usize) -> io::Result<()> {
    let mut content = vec![json!({"type": "text", "text": t.prompt})];
    if let Some(data) = &t.image {
        content.push(json!({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": data}}));
    }
    claude_line(w, n, "user", json!({"role": "user", "content": content}))?;
    let id = format!("msg_{:024}", *n);
    let usage = json!({"input_tokens": 3, "cache_creation_input_tokens": 1200, "cache_read_input_tokens": 15000 + *n * 40, "output_tokens": 180});
    let assistant = |block: Value| {
        json!({"id": id, "type": "message", "role": "assistant", "model": "claude-sonnet-4-5-20250929",
               "content": [block], "stop_reason": null, "usage": usage})
    };
    if let Some(r) = &t.reasoning {
        let block = json!({"type": "thinking", "thinking": r, "signature": "c2lnbmF0dXJl"});
        claude_line(w, n, "assistant", assistant(block))?;
    }
    claude_line(
        w,
        n,
        "assistant",
        assistant(json!({"type": "text", "text": t.preamble})),
    )?;
    for (call_id, name, args, _) in &t.calls {
        let input: Value = serde_json::from_str(args).unwrap_or(Value::Null);
        let block = json!({"type": "tool_use", "id": call_id, "name": name, "input": input});
        claude_line(w, n, "assistant", assistant(block))?;
    }
    for (call_id, _, _, result) in &t.calls {
        let block = json!({"tool_use_id": call_id, "type": "tool_result", "content": result});
        claude_line(w, n, "user", json!({"role": "user", "content": [block]}))?;
    }
    let answer = json!({"id": format!("msg_{:024}", *n), "type": "message", "role": "assistant",
        "model": "claude-sonnet-4-5-20250929", "content": [{"type": "text", "text": t.answer}],
        "stop_reason": "end_turn", "usage": usage});
    claude_line(w, n, "assistant", answer)
}

fn codex_item(w: &mut Counting, n: &mut usize, kind: &str, payload: Value) -> io::Result<()> {
    w.line(&json!({"timestamp": stamp(*n), "type": kind, "payload": payload}))?;
    *n += 1;
    Ok(())
}

fn codex_head(w: &mut Counting) -> io::Result<()> {
    w.line(&json!({"timestamp": stamp(0), "type": "session_meta", "payload": {
        "id": "019c8a59-e9dd-71f0-9ae3-000000000001", "timestamp": stamp(0), "cwd": "/home/dev/demo",
        "originator": "codex_cli_rs", "cli_version": "0.104.0", "source": "cli",
        "model_provider": "openai", "base_instructions": {"text": "You are Codex, a coding agent."}}}))
}

fn codex_turn(w: &mut Counting, t: &Turn, n: &mut usize) -> io::Result<()> {
    codex_item(
        w,
        n,
        "turn_context",
        json!({"cwd": "/home/dev/demo", "approval_policy": "on-request",
        "model": "gpt-5.3-codex", "effort": "high", "summary": "auto"}),
    )?;
    codex_item(
        w,
        n,
        "event_msg",
        json!({"type": "user_message", "message": t.prompt, "images": []}),
    )?;
    let mut content = vec![json!({"type": "input_text", "text": t.prompt})];
    if let Some(data) = &t.image {
        content.push(
            json!({"type": "input_image", "image_url": format!("data:image/png;base64,{data}")}),
        );
    }
    codex_item(
        w,
        n,
        "response_item",
        json!({"type": "message", "role": "user", "content": content}),
    )?;
    if let Some(r) = &t.reasoning {
        codex_item(
            w,
            n,
            "response_item",
            json!({"type": "reasoning",
            "summary": [{"type": "summary_text", "text": r}], "content": null,
            "encrypted_content": "gAAAAABpm0000"}),
        )?;
    }
    codex_item(
        w,
        n,
        "response_item",
        json!({"type": "message", "role": "assistant",
        "content": [{"type": "output_text", "text": t.preamble}], "phase": "commentary"}),
    )?;
    for (call_id, name, args, _) in &t.calls {
        codex_item(
            w,
            n,
            "response_item",
            json!({"type": "function_call", "name": name,
            "arguments": args, "call_id": call_id}),
        )?;
    }
    for (call_id, _, _, result) in &t.calls {
        codex_item(
            w,
            n,
            "response_item",
            json!({"type": "function_call_output",
            "call_id": call_id, "output": result}),
        )?;
    }
    codex_item(
        w,
        n,
        "response_item",
        json!({"type": "message", "role": "assistant",
        "content": [{"type": "output_text", "text": t.answer}]}),
    )?;
    let usage = json!({"input_tokens": 17000 + *n * 50, "cached_input_tokens": 3456,
        "output_tokens": 350, "reasoning_output_tokens": 152, "total_tokens": 17350 + *n * 50});
    codex_item(
        w,
        n,
        "event_msg",
        json!({"type": "token_count", "info": {
        "total_token_usage": usage, "last_token_usage": usage, "model_context_window": 258_400}}),
    )
}

fn chat_message(w: &mut Counting, n: &mut usize, v: Value) -> io::Result<()> {
    w.write_all(b",\n")?;
    let bytes = serde_json::to_vec(&v).map_err(io::Error::other)?;
    w.write_all(&bytes)?;
    *n += 1;
    Ok(())
}

fn chat_turn(w: &mut Counting, t: &Turn, n: &mut usize) -> io::Result<()> {
    let user = match &t.image {
        Some(data) => json!({"role": "user", "content": [{"type": "text", "text": t.prompt},
            {"type": "image_url", "image_url": {"url": format!("data:image/png;base64,{data}")}}]}),
        None => json!({"role": "user", "content": t.prompt}),
    };
    chat_message(w, n, user)?;
    if t.calls.is_empty() {
        chat_message(w, n, json!({"role": "assistant", "content": t.preamble}))?;
    } else {
        let calls: Vec<Value> = t
            .calls
            .iter()
            .map(|(id, name, args, _)| {
                json!({"id": id, "type": "function",
                "function": {"name": name, "arguments": args}})
            })
            .collect();
        chat_message(
            w,
            n,
            json!({"role": "assistant", "content": t.preamble, "tool_calls": calls}),
        )?;
        for (id, _, _, result) in &t.calls {
            chat_message(
                w,
                n,
                json!({"role": "tool", "tool_call_id": id, "content": result}),
            )?;
        }
    }
    chat_message(w, n, json!({"role": "assistant", "content": t.answer}))
}

/// An OpenAI chat session of exactly `messages` short messages (user prompts, assistant replies
/// with a tool call now and then, tool results): the many-rows case for the list view.
pub fn write_many_messages(messages: usize, seed: u64, out: &mut dyn Write) -> io::Result<u64> {
    let mut rng = Rng::new(seed);
    let mut w = Counting { out, written: 0 };
    w.write_all(b"{\"model\":\"gpt-4o\",\"messages\":[{\"role\":\"system\",\"content\":\"You are a coding agent.\"}")?;
    let mut n = 1;
    while n < messages {
        let words = rng.range(3, 40);
        let text = text::prose(&mut rng, words);
        let left = messages - n;
        let v = match n % 4 {
            1 => json!({"role": "user", "content": text}),
            2 if left >= 2 => {
                let id = format!("call_{n:08}");
                chat_message(
                    &mut w,
                    &mut n,
                    json!({"role": "assistant", "content": text,
                    "tool_calls": [{"id": id, "type": "function",
                        "function": {"name": "Read", "arguments": text::json_args(&mut rng)}}]}),
                )?;
                json!({"role": "tool", "tool_call_id": id, "content": text::log(&mut rng, 2)})
            }
            _ => json!({"role": "assistant", "content": text}),
        };
        chat_message(&mut w, &mut n, v)?;
    }
    w.write_all(b"]}\n")?;
    Ok(w.written)
}
