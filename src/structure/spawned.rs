//! Which subagent a tool call started: a `Task`/`Agent` call's prompt is the first user turn
//! of the child it spawned, so the child is found by that text, whatever the format records
//! of the link.
//!
//! Owns: matching a call to a child session. Pure; linear in the call's prompt and the
//! children's first turns.

use crate::session::{Message, Part, Role, Session};

/// The argument that carries a subagent's prompt, in the order tried.
const PROMPT_KEYS: &[&str] = &["prompt", "task", "message", "input"];

/// How much of a prompt is compared (a child's first turn may add framing after it).
const COMPARED: usize = 400;

/// Which of `children` (by position) a tool call of `m` started, when one call's prompt opens
/// exactly one child's first user turn.
pub fn child_of<'a>(
    m: &Message,
    children: impl Iterator<Item = &'a Session> + Clone,
) -> Option<usize> {
    m.parts.iter().find_map(|p| match p {
        Part::ToolCall { arguments, .. } => {
            let prompt = prompt_of(arguments)?;
            let head: String = prompt.trim().chars().take(COMPARED).collect();
            let mut found = children
                .clone()
                .enumerate()
                .filter(|(_, c)| first_turn(c).is_some_and(|t| t.trim().starts_with(&head)));
            let (slot, _) = found.next()?;
            found.next().is_none().then_some(slot)
        }
        _ => None,
    })
}

fn prompt_of(arguments: &str) -> Option<String> {
    let v: serde_json::Value = serde_json::from_str(arguments).ok()?;
    PROMPT_KEYS
        .iter()
        .find_map(|k| v.get(k)?.as_str())
        .filter(|p| !p.trim().is_empty())
        .map(str::to_string)
}

fn first_turn(child: &Session) -> Option<String> {
    let m = child.messages.iter().find(|m| m.role == Role::User)?;
    let text: String = m
        .parts
        .iter()
        .map(Part::plain_text)
        .collect::<Vec<_>>()
        .join("\n");
    Some(text)
}

#[cfg(test)]
mod tests {
    #[test]
    fn each_task_call_of_the_demo_opens_the_child_it_started() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/samples/claude-code-demo.jsonl");
        let s = crate::formats::load_path(&path, None).unwrap();
        let calls: Vec<usize> = (s.messages.iter())
            .filter(|m| m.tool_names().iter().any(|n| n == "Task"))
            .map(|m| m.index)
            .collect();
        assert_eq!(calls, vec![7, 13]);
        let opened: Vec<Option<usize>> = calls
            .iter()
            .map(|&i| super::child_of(&s.messages[i], s.children.iter()))
            .collect();
        // Message 7 calls Task three times: the first call's child; 13 once.
        assert!(opened.iter().all(Option::is_some), "{opened:?}");
        assert_ne!(opened[0], opened[1]);
        for (&i, slot) in calls.iter().zip(&opened) {
            let child = &s.children[slot.unwrap()];
            let first = child.messages[0].parts[0].plain_text();
            let args = s.messages[i].parts.iter().find_map(|p| match p {
                crate::session::Part::ToolCall { arguments, .. } => Some(arguments.clone()),
                _ => None,
            });
            let prompt = super::prompt_of(&args.unwrap()).unwrap();
            assert!(first.starts_with(prompt.trim()), "{first}");
        }
        assert_eq!(super::child_of(&s.messages[0], s.children.iter()), None);
    }
}
