//! The one-pass annotation reader against `_read_group_annotation` read field by field (the
//! reader it replaced), and the estimate kept with shared contents against a fresh
//! serialisation, over many generated annotations and messages.

use serde_json::{json, Map, Value};

use super::*;
use crate::compaction::presets::agent_framework::estimate::{count_text, serialize_message};
use crate::compaction::presets::agent_framework::model::Contents;

/// The reader before: each field looked up on its own.
fn valid_oracle(m: &AfMsg) -> Option<&Map<String, Value>> {
    let a = raw(m)?;
    if a.get("token_count")
        .is_some_and(|t| !t.is_null() && !is_int(t))
    {
        return None;
    }
    let ok = a.get("id").is_some_and(Value::is_string)
        && a.get("kind")
            .and_then(Value::as_str)
            .and_then(GroupKind::parse)
            .is_some()
        && a.get("index").is_some_and(is_int)
        && a.get("has_reasoning").is_some_and(Value::is_boolean);
    ok.then_some(a)
}

fn token_count_oracle(m: &AfMsg, v: Version) -> Option<i64> {
    let a = valid_oracle(m)?;
    if !basis_current(a, v) {
        return None;
    }
    a.get("token_count")?.as_i64()
}

struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % n.max(1)
    }

    fn pick(&mut self, values: &[Value]) -> Option<Value> {
        let i = self.below(values.len() as u64 + 1) as usize;
        values.get(i).cloned()
    }
}

fn message(rng: &mut Lcg) -> AfMsg {
    let mut a = Map::new();
    let fields: [(&str, Vec<Value>); 6] = [
        (
            "id",
            vec![
                json!(format!("group_m{}", rng.below(4))),
                json!(4),
                Value::Null,
            ],
        ),
        (
            "kind",
            vec![json!("user"), json!("tool_call"), json!("other"), json!(1)],
        ),
        ("index", vec![json!(3), json!(-2), json!(2.5), json!("1")]),
        ("has_reasoning", vec![json!(false), json!(true), json!(0)]),
        (
            "token_count",
            vec![json!(12), Value::Null, json!(1.5), json!("7")],
        ),
        ("token_count_basis", vec![json!(2), json!(2.0), json!(1)]),
    ];
    let mut order: Vec<usize> = (0..fields.len()).collect();
    for i in (1..order.len()).rev() {
        order.swap(i, rng.below(i as u64 + 1) as usize);
    }
    // One in three well-formed (each field's first value), the rest drawn.
    let formed = rng.below(3) == 0;
    for i in order {
        let (k, values) = &fields[i];
        let v = if formed {
            values.first().cloned()
        } else {
            rng.pick(values)
        };
        if let Some(v) = v {
            a.insert((*k).into(), v);
        }
    }
    if rng.below(4) == 0 {
        a.insert("extra".into(), json!({"k": 1}));
    }
    let mut props = Map::new();
    match rng.below(6) {
        0 => {}
        1 => {
            props.insert(GROUP.into(), json!([1]));
        }
        _ => {
            props.insert(GROUP.into(), Value::Object(a));
        }
    }
    AfMsg {
        role: ["user", "assistant", "tool", "system"][rng.below(4) as usize].into(),
        id: (rng.below(3) > 0).then(|| format!("m{}", rng.below(5))),
        contents: Contents::new(vec![
            json!({"type": "text", "text": "x".repeat(rng.below(40) as usize),
                   "additional_properties": {}}),
        ]),
        props: props.into(),
        extra: Map::new(),
        origin: None,
        known: Default::default(),
    }
}

#[test]
fn the_one_pass_reader_reads_every_annotation_as_the_field_by_field_one() {
    let mut rng = Lcg(17);
    let mut valid_seen = 0;
    for _ in 0..20_000 {
        let m = message(&mut rng);
        let old = valid_oracle(&m);
        let new = valid(&m);
        assert_eq!(new.is_some(), old.is_some(), "{:?}", m.props);
        if let Some(a) = old {
            valid_seen += 1;
            assert_eq!(group_id(&m), a.get("id").and_then(Value::as_str));
            assert_eq!(
                group_kind(&m),
                a.get("kind")
                    .and_then(Value::as_str)
                    .and_then(GroupKind::parse)
            );
            assert_eq!(group_index(&m), a.get("index").and_then(Value::as_i64));
        }
        for v in [Version::V1_17, Version::V1_23] {
            assert_eq!(
                token_count(&m, v),
                token_count_oracle(&m, v),
                "{:?}",
                m.props
            );
        }
    }
    assert!(valid_seen > 500, "{valid_seen}");
}

#[test]
fn an_estimate_kept_with_shared_contents_equals_a_fresh_one() {
    let mut rng = Lcg(5);
    for _ in 0..2_000 {
        let m = message(&mut rng);
        let mut copy = m.clone();
        for v in [Version::V1_23, Version::V1_17] {
            let fresh = |m: &AfMsg| count_text(&serialize_message(m, v));
            assert_eq!(count_message(&m, v), fresh(&m));
            // A copy with another id or role shares the contents, not the estimate.
            copy.id = Some(format!("n{}", rng.below(3)));
            if rng.below(2) == 0 {
                copy.role = "user".into();
            }
            assert_eq!(count_message(&copy, v), fresh(&copy));
            assert_eq!(count_message(&m, v), fresh(&m));
        }
    }
}

/// The group maps as built before: each map filled on its own, an id copied for each.
fn group_maps_oracle(msgs: &[AfMsg]) -> ById {
    let (mut members, mut kinds, mut starts) = (HashMap::new(), HashMap::new(), HashMap::new());
    for (i, m) in msgs.iter().enumerate() {
        let Some(id) = group_id(m) else { continue };
        members
            .entry(id.to_string())
            .or_insert_with(Vec::new)
            .push(i);
        starts.entry(id.to_string()).or_insert(i);
        if let Some(k) = group_kind(m) {
            kinds.entry(id.to_string()).or_insert(k);
        }
    }
    (members, kinds, starts)
}

#[test]
fn group_maps_and_order_equal_the_map_by_map_build() {
    let mut rng = Lcg(29);
    for _ in 0..300 {
        let msgs: Vec<AfMsg> = (0..rng.below(40)).map(|_| message(&mut rng)).collect();
        let (new, old) = (group_maps(&msgs).by_id(), group_maps_oracle(&msgs));
        assert_eq!(new, old);
        let mut seen = std::collections::HashSet::new();
        let order: Vec<String> = msgs
            .iter()
            .filter_map(group_id)
            .filter(|id| seen.insert(id.to_string()))
            .map(str::to_string)
            .collect();
        assert_eq!(ordered_group_ids(&msgs), order);
    }
}

/// The one-pass count of included groups equals `_included_group_ids` over the group maps,
/// filtered by kind, on lists with excluded members, system groups and broken annotations.
#[test]
fn included_groups_counted_in_one_pass_equal_the_included_ids_by_kind() {
    let mut rng = Lcg(31);
    for _ in 0..500 {
        let msgs: Vec<AfMsg> = (0..rng.below(40))
            .map(|_| {
                let mut m = message(&mut rng);
                let props = m.props_mut();
                if let Some(Value::Object(a)) = props.get_mut(GROUP) {
                    if rng.below(4) == 0 {
                        a.insert("kind".into(), json!("system"));
                    }
                }
                if rng.below(2) == 0 {
                    props.insert(EXCLUDED.into(), json!(rng.below(2) == 0));
                }
                m
            })
            .collect();
        let g = group_maps(&msgs);
        let included = included_group_ids(&msgs, &ordered_group_ids(&msgs), &g);
        let filters: [&dyn Fn(GroupKind) -> bool; 3] = [
            &|k| k != GroupKind::System,
            &|k| k == GroupKind::ToolCall,
            &|k| k == GroupKind::User,
        ];
        for keep in filters {
            let by_maps = included
                .iter()
                .filter(|id| g.kind(id).is_some_and(keep))
                .count();
            assert_eq!(count_included_groups(&msgs, keep), by_maps);
        }
    }
}

/// Skipping a write is right exactly when the write would leave the annotation as it was, in
/// its fields' order too (compared as text: the maps compare equal in any order): over the
/// annotations a write makes, each then changed in one field, and generated ones.
#[test]
fn an_annotation_is_left_alone_exactly_when_writing_it_changes_nothing() {
    let mut rng = Lcg(11);
    let kinds = [
        GroupKind::System,
        GroupKind::User,
        GroupKind::AssistantText,
        GroupKind::ToolCall,
    ];
    let changes: [(&str, Value); 9] = [
        ("id", json!("group_m9")),
        ("kind", json!("user")),
        ("index", json!(2.0)),
        ("index", json!(7)),
        ("has_reasoning", json!(true)),
        ("token_count", json!(12)),
        ("token_count", json!(1.5)),
        ("token_count_basis", json!(2.0)),
        ("extra", json!(1)),
    ];
    let (mut skipped, mut written) = (0, 0);
    for round in 0..4000 {
        let v = if rng.below(2) == 0 {
            Version::V1_23
        } else {
            Version::V1_17
        };
        let id = format!("group_m{}", rng.below(3));
        let kind = kinds[rng.below(4) as usize];
        let index = rng.below(3) as i64;
        let reasoning = rng.below(2) == 0;
        let annotation = if round % 2 == 0 {
            // One the framework wrote, perhaps with a token count, perhaps changed since.
            let mut a = rewritten(None, &id, kind, index, reasoning, v);
            if rng.below(2) == 0 {
                a.insert("token_count".into(), json!(rng.below(50)));
                if v == Version::V1_23 {
                    a.insert("token_count_basis".into(), json!(BASIS));
                }
            }
            if rng.below(3) > 0 {
                let (k, value) = &changes[rng.below(changes.len() as u64) as usize];
                a.insert((*k).into(), value.clone());
            }
            a
        } else {
            match raw(&message(&mut rng)) {
                Some(a) => a.clone(),
                None => continue,
            }
        };
        let unchanged = serde_json::to_string(&rewritten(
            Some(&annotation),
            &id,
            kind,
            index,
            reasoning,
            v,
        ))
        .unwrap()
            == serde_json::to_string(&annotation).unwrap();
        let skip = written_already(&annotation, &id, kind, index, reasoning, v);
        assert_eq!(
            skip, unchanged,
            "{annotation:?} for {id} {kind:?} {index} {reasoning} {v:?}"
        );
        if skip {
            skipped += 1;
        } else {
            written += 1;
        }
    }
    assert!(
        skipped > 300 && written > 300,
        "{skipped} skipped, {written} written"
    );
}

/// What a message's cached reads say, and what a copy that never read anything says.
fn reads(m: &AfMsg) -> String {
    format!(
        "{:?} {:?} {:?} {:?} {:?} {}",
        group_id(m),
        group_kind(m),
        group_index(m),
        token_count(m, Version::V1_23),
        token_count(m, Version::V1_17),
        m.excluded()
    )
}

fn fresh_reads(m: &AfMsg) -> String {
    let mut copy = m.clone();
    copy.known = Default::default();
    reads(&copy)
}

/// A write keeps what was read of the properties only where it leaves it true: after every
/// write of a random sequence (annotations, token counts, exclusion with and without a reason,
/// a summary's back-link), read at random points in between, the cached reads equal a fresh
/// copy's.
#[test]
fn reads_kept_across_writes_equal_reads_made_afresh() {
    let mut rng = Lcg(23);
    let kinds = [
        GroupKind::User,
        GroupKind::AssistantText,
        GroupKind::ToolCall,
    ];
    let mut steps = 0;
    for _ in 0..3000 {
        let mut m = message(&mut rng);
        for _ in 0..8 {
            if rng.below(2) == 0 {
                assert_eq!(reads(&m), fresh_reads(&m), "{:?}", m.props);
            }
            let v = if rng.below(2) == 0 {
                Version::V1_23
            } else {
                Version::V1_17
            };
            match rng.below(6) {
                0 => {
                    let id = format!("group_m{}", rng.below(3));
                    let kind = kinds[rng.below(3) as usize];
                    write_annotation(&mut m, &id, kind, rng.below(3) as i64, false, v);
                }
                1 => write_token_count(&mut m, rng.below(90) as i64, v),
                2 => {
                    let reason = (rng.below(2) == 0).then_some("why");
                    set_excluded(&mut m, rng.below(2) == 0, reason);
                }
                3 => m.set_excluded_flag(rng.below(2) == 0),
                4 => super::super::summarize::mark_summarized(&mut m, "summary_1"),
                _ => {
                    m.props_mut().insert(
                        GROUP.into(),
                        json!({"id": "g", "kind": "user", "index": 1, "has_reasoning": false, "token_count": "7"}),
                    );
                }
            }
            steps += 1;
            assert_eq!(reads(&m), fresh_reads(&m), "{:?}", m.props);
        }
    }
    assert!(steps > 20_000);
}
