//! What a network summarizer sends: the plan's summarizer messages with secrets masked.
//!
//! Owns: `prepare`, run before anything leaves the machine, so the caller can say how many
//! secrets were masked before sending. With no secrets the messages are the plan's, byte for
//! byte. Pure.

use crate::compaction::PromptMessage;
use crate::secrets;

/// The messages to send and how many secrets were masked in them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prepared {
    pub messages: Vec<PromptMessage>,
    pub masked: usize,
}

/// Every message's content through `secrets::mask`; roles and order unchanged.
pub fn prepare(messages: &[PromptMessage]) -> Prepared {
    let mut masked = 0;
    let messages = messages
        .iter()
        .map(|m| {
            let (content, n) = secrets::mask(&m.content);
            masked += n;
            PromptMessage {
                role: m.role,
                content,
            }
        })
        .collect();
    Prepared { messages, masked }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compaction::PromptRole;

    #[test]
    fn secrets_are_masked_and_counted_the_rest_is_untouched() {
        let given = vec![
            PromptMessage {
                role: PromptRole::System,
                content: "Summarize.\n  keep\ttabs ✓".into(),
            },
            PromptMessage {
                role: PromptRole::User,
                content: "key sk-proj-abcDEF1234567890ghijKLMN and ghp_0123456789abcdefghijABCDEFGHIJ0123"
                    .into(),
            },
        ];
        let p = prepare(&given);
        assert_eq!(p.masked, 2);
        assert_eq!(p.messages[0], given[0]);
        assert_eq!(
            p.messages[1].content,
            "key [REDACTED:openai-key] and [REDACTED:github-token]"
        );
        assert_eq!(prepare(&given[..1]).masked, 0);
    }
}
