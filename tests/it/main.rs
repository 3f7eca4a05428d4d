//! Every integration test, in one crate: one link instead of one per file. Each module is
//! one file's tests, named as the file; `support` holds what they share.

#[path = "../../tools/gen-session/text.rs"]
mod text;
#[path = "../../tools/gen-session/write.rs"]
mod write;

mod support;

mod agent_framework_after;
mod agent_framework_carried;
mod bounded_input;
mod check;
mod cli;
mod compact;
mod compact_history;
mod compact_http;
mod compaction_props;
mod count_cache;
mod diff;
mod fast_count;
mod faults;
mod hermes_compacted;
mod hostile;
mod hostile_output;
mod layers;
mod live_discover;
mod live_session;
mod live_tail;
mod many;
mod offline_digest;
mod oracle_agent_framework;
mod oracle_hermes;
mod oracle_openhands;
mod oracle_openhands_after;
mod oracle_pydantic_ai_harness;
mod plan_dimos;
mod plan_documented;
mod presets_everywhere;
mod progress_line;
mod pty;
mod pty_faults;
mod pydantic_seed_003;
mod pyrepr_equality;
mod replay;
mod replay_fidelity;
mod replay_hermes;
mod replay_incremental;
mod replay_openhands;
mod replay_share;
mod samples;
mod secrets_env;
mod share_html;
mod share_md;
mod summarize_http;
mod tiktoken_equality;
mod timeline;
mod tui;
mod tui_headless;
mod tui_loading;
mod tui_picker;
mod tui_replay;
mod tui_snapshots;
mod tui_theme;
mod write_safe;
