//! The `dimos` preset against dimos' documented behaviour, on LangChain sessions built so that
//! the trigger, the split and the summarizer input are known by construction.

use ctxray::analysis::{Analysis, Options};
use ctxray::compaction::plan::source_fates;
use ctxray::compaction::preset::{self, PlanInput};
use ctxray::compaction::presets;
use ctxray::compaction::Plan;
use ctxray::formats::load_bytes;
use ctxray::tokens::Registry;
use serde_json::{json, Value};

fn msg(kind: &str, content: Value) -> Value {
    json!({"type": kind, "data": {"content": content, "additional_kwargs": {}, "response_metadata": {}, "type": kind, "name": null, "id": null}})
}

fn ai_call(id: &str, name: &str, args: Value) -> Value {
    json!({"type": "ai", "data": {"content": "", "additional_kwargs": {}, "response_metadata": {}, "type": "ai", "name": null, "id": null,
        "tool_calls": [{"name": name, "args": args, "id": id, "type": "tool_call"}], "invalid_tool_calls": []}})
}

fn tool(id: &str, content: &str) -> Value {
    json!({"type": "tool", "data": {"content": content, "additional_kwargs": {}, "response_metadata": {}, "type": "tool", "name": null, "id": null, "tool_call_id": id, "status": "success"}})
}

fn plan(history: &[Value], sets: &[&str]) -> (Analysis, Plan) {
    let bytes = serde_json::to_vec_pretty(history).unwrap();
    let session = load_bytes(bytes, None, "t.json", None).unwrap();
    assert_eq!(session.format.name(), "langchain");
    let a = Analysis::new(session, &Registry::bundled(), &Options::default());
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let p = preset::run(presets::find("dimos").unwrap(), &PlanInput::new(&a), &sets).unwrap();
    (a, p)
}

fn text(n: usize) -> String {
    "x".repeat(n)
}

#[test]
fn below_the_trigger_nothing_happens() {
    // 4+100 + 4+100 = 208 ≤ 1000 × 0.8
    let h = [msg("human", json!(text(400))), msg("ai", json!(text(400)))];
    let (_, p) = plan(&h, &["context_window=1000"]);
    assert!(!p.trigger.fired);
    assert_eq!(p.trigger.value, 208);
    assert_eq!(p.trigger.threshold, 800);
    assert_eq!(p.split.kept, vec![0, 1]);
    assert!(p.split.summarized.is_empty() && p.summarizer.is_empty());
}

#[test]
fn the_tail_that_fits_keep_ratio_is_kept_and_the_system_message_pinned() {
    // costs: system 4+10=14, then five messages of 4+100=104 each: 534 > 500 × 0.8 = 400.
    // keep budget int(500 × 0.35) = 175: walking back, 104 fits, 208 does not → keep 1.
    let mut h = vec![msg("system", json!(text(40)))];
    for i in 0..5 {
        h.push(msg(
            if i % 2 == 0 { "human" } else { "ai" },
            json!(format!("m{i}{}", text(398))),
        ));
    }
    let (a, p) = plan(&h, &["context_window=500"]);
    assert!(p.trigger.fired, "{}", p.trigger.reason);
    assert_eq!(p.trigger.value, 534);
    assert_eq!(p.split.pinned, vec![0]);
    assert_eq!(p.split.summarized, vec![1, 2, 3, 4]);
    assert_eq!(p.split.kept, vec![5]);
    let fates = source_fates(&a.session, &p.split);
    assert_eq!(fates.kept, vec![0, 5]);
    assert_eq!(fates.summarized, vec![1, 2, 3, 4]);
    assert!(fates.dropped.is_empty());
    let insertion = p.insertion.unwrap();
    assert_eq!(
        (insertion.position, insertion.prefix.as_str()),
        (1, "[compacted history]\n")
    );
    // One user message: the prompt, a blank line, then `ClassName: first text` lines.
    assert_eq!(p.summarizer.len(), 1);
    let want = format!(
        "{}\n\nHumanMessage: m0{x}\nAIMessage: m1{x}\nHumanMessage: m2{x}\nAIMessage: m3{x}",
        ctxray_prompt(),
        x = text(398)
    );
    assert_eq!(p.summarizer[0].content, want);
}

fn ctxray_prompt() -> &'static str {
    "Summarise the following portion of an agent conversation. It is being removed to free up context, so preserve anything the agent still needs: the user's goals, decisions taken, tools run and their outcomes, and any unfinished work. Be concise and factual."
}

#[test]
fn the_split_moves_past_leading_tool_messages_and_tool_calls_are_not_shown() {
    // human 104, ai call {'path': 'a.txt'} → 4 + 0 + 17//4 + 9//4 = 10, tool 4+50 = 54,
    // ai 104, tool-less human 104 … budget int(1000 × 0.35) = 350.
    let h = [
        msg("human", json!(text(400))),
        msg("ai", json!(text(400))),
        msg("human", json!(text(400))),
        ai_call("c1", "read_file", json!({"path": "a.txt"})),
        tool("c1", &text(200)),
        msg("ai", json!(text(400))),
        msg("human", json!(text(400))),
        msg("ai", json!(text(400))),
    ];
    // total: 6×104 + 10 + 54 = 688 > 1000 × 0.6
    let (_, p) = plan(&h, &["context_window=1000", "trigger_ratio=0.6"]);
    assert_eq!(p.trigger.value, 688);
    assert!(p.trigger.fired);
    // walking back: 104, 208, 312 fit (≤ 350); + tool 54 = 366 does not → tail starts at the
    // tool message (index 4), which is then skipped: the tail starts at 5.
    assert_eq!(p.split.kept, vec![5, 6, 7]);
    assert_eq!(p.split.summarized, vec![0, 1, 2, 3, 4]);
    let content = &p.summarizer[0].content;
    assert!(!content.contains("read_file") && !content.contains("a.txt"));
    assert!(content.contains(&format!("\nToolMessage: {}", text(200))));
    assert!(p
        .findings
        .iter()
        .any(|f| f.code == "tool-arguments-dropped" && f.messages == vec![3]));
}

#[test]
fn a_trailing_lone_tool_message_stays_orphaned() {
    let h = [
        msg("human", json!(text(400))),
        ai_call("c1", "run", json!({"cmd": "ls"})),
        tool("c1", &text(4000)),
    ];
    let (_, p) = plan(&h, &["context_window=1000"]);
    assert!(p.trigger.fired, "{}", p.trigger.reason);
    assert_eq!(p.split.kept, vec![2]);
    assert_eq!(p.split.summarized, vec![0, 1]);
    let orphan = p
        .findings
        .iter()
        .find(|f| f.code == "orphaned-tool-result")
        .unwrap();
    assert_eq!(orphan.messages, vec![2]);
    assert!(p.findings.iter().any(|f| f.code == "compacts-every-turn"));
}

#[test]
fn the_transcript_keeps_only_its_last_max_chars() {
    let h = [
        msg("human", json!(format!("HEAD{}", text(396)))),
        msg("ai", json!(format!("{}TAIL", text(396)))),
        msg("human", json!(text(400))),
    ];
    let (_, p) = plan(
        &h,
        &["context_window=300", "keep_ratio=0.2", "max_chars=50"],
    );
    assert_eq!(p.split.summarized, vec![0, 1]);
    let transcript = format!(
        "HumanMessage: HEAD{}\nAIMessage: {}TAIL",
        text(396),
        text(396)
    );
    let tail: String = transcript
        .chars()
        .skip(transcript.chars().count() - 50)
        .collect();
    assert_eq!(
        p.summarizer[0].content,
        format!("{}\n\n...\n{tail}", ctxray_prompt())
    );
    assert!(p.findings.iter().any(|f| f.code == "message-truncated"));
}

#[test]
fn the_window_comes_from_dimos_own_model_table() {
    let h = [msg("human", json!("hi")), msg("ai", json!("hello"))];
    let bytes = serde_json::to_vec(&h).unwrap();
    for (model, window) in [
        ("openai:gpt-4o-mini", 128_000u64),
        ("gpt-5.6-luna", 400_000),
        ("qwen2.5:7b", 128_000),
        ("llama3.1:8b", 128_000), // text up to the first colon is dropped: "8b"
        ("ollama:llama3.1", 131_072),
        ("claude-sonnet-4-5", 200_000),
    ] {
        let session = load_bytes(bytes.clone(), None, "t.json", None).unwrap();
        let opts = Options {
            model: Some(model.into()),
            ..Options::default()
        };
        let a = Analysis::new(session, &Registry::bundled(), &opts);
        let p = preset::run(presets::find("dimos").unwrap(), &PlanInput::new(&a), &[]).unwrap();
        assert_eq!(p.trigger.threshold, (window as f64 * 0.8) as u64, "{model}");
    }
}

#[test]
fn bad_settings_are_refused() {
    let h = [msg("human", json!("hi"))];
    let bytes = serde_json::to_vec(&h).unwrap();
    let session = load_bytes(bytes, None, "t.json", None).unwrap();
    let a = Analysis::new(session, &Registry::bundled(), &Options::default());
    let dimos = presets::find("dimos").unwrap();
    let input = PlanInput::new(&a);
    assert!(preset::run(dimos, &input, &["keep_ratio=0.9".into()]).is_err());
    assert!(preset::run(dimos, &input, &["max_size=3".into()]).is_err());
    assert!(presets::find("nonesuch").is_err());
}

#[test]
fn a_secret_in_the_summarizer_input_is_flagged() {
    let h = [
        msg(
            "human",
            json!(format!(
                "deploy with OPENAI_API_KEY=sk-proj-abcDEF1234567890ghijKLMN {}",
                text(300)
            )),
        ),
        msg("ai", json!(text(400))),
        msg("human", json!(text(400))),
    ];
    let (_, p) = plan(&h, &["context_window=300"]);
    assert_eq!(p.split.summarized, vec![0, 1]);
    let f = p
        .findings
        .iter()
        .find(|f| f.code == "secret-in-summarizer-input")
        .unwrap();
    assert_eq!(f.messages, vec![0]);
    assert!(f.detail.contains("openai-key"), "{}", f.detail);
    assert!(
        p.summarizer[0]
            .content
            .contains("sk-proj-abcDEF1234567890ghijKLMN"),
        "plan shows the exact input"
    );
}
