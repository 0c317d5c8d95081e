//! The gate of `dialect::gate` never shuts on a dialect that claims: over every object of every fixture and
//! corpus file, and over generated messages mixing the keys and values found there (fixed
//! seeds), each dialect's claims is asked whatever its gate says, and the gated answers
//! (`first_claim`, the foreign-message and unread-key checks) are compared with the ungated
//! ones, and the keys that rule out every tool key (`tool_keys::may_find`) are checked too.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::message_checks;
use crate::dialect::gate::{self, Keys, first_claim, may_claim};
use crate::dialect::tool_keys;
use crate::dialect::{Cursor, Dialect, ReadCx, all};
use crate::json::{Kind, NodeId, Tree, parse};
use crate::model::{Foreign, Message};

/// Fixture and corpus files holding JSON (the corpus only when it is there).
fn files() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else if p
                .extension()
                .is_some_and(|x| ["json", "jsonl", "ndjson", "traj"].iter().any(|e| x == *e))
            {
                out.push(p);
            }
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    walk(&root.join("fixtures"), &mut out);
    walk(&root.join("../shared/corpus"), &mut out);
    out.sort();
    out
}

/// The documents of a file: the whole file when it parses, else each line that does.
fn documents(bytes: &[u8]) -> Vec<&[u8]> {
    if parse(bytes).is_ok() {
        return vec![bytes];
    }
    bytes
        .split(|&b| b == b'\n')
        .filter(|l| parse(l).is_ok())
        .collect()
}

/// Every object at any depth under `node`.
fn objects(tree: &Tree<'_>, node: NodeId, out: &mut Vec<NodeId>) {
    if tree.kind(node) == Kind::Object {
        out.push(node);
    }
    for c in tree.children(node) {
        objects(tree, c, out);
    }
}

/// The foreign-message check as it was before the gate: every dialect asked.
fn foreign_ungated(
    tree: &Tree<'_>,
    node: NodeId,
    dialect: &dyn Dialect,
    cx: &ReadCx<'_>,
) -> Option<Foreign> {
    if dialect.claims(tree, node).is_some() {
        return None;
    }
    let tools =
        |m: Option<Message>| m.is_some_and(|m| !m.calls.is_empty() || !m.results.is_empty());
    let (other, why) = all().iter().find_map(|d| {
        let why = d.claims(tree, node)?;
        tools(d.read(tree, node, cx)).then_some((*d, why))
    })?;
    if tools(dialect.read(tree, node, cx)) {
        return None;
    }
    Some(Foreign {
        pos: cx.pos(tree, node, ""),
        dialect: other.name(),
        why,
    })
}

/// What was checked: how often each dialect claimed, and how many foreign messages were seen.
#[derive(Default)]
struct Tally {
    claimed: BTreeMap<&'static str, usize>,
    objects: usize,
    foreign: usize,
}

/// Check one object: no dialect whose gate shuts claims it, and the gated first claim is the
/// ungated one. With `foreign`, the foreign-message check too, read as every dialect.
fn check(tree: &Tree<'_>, node: NodeId, what: &str, foreign: bool, tally: &mut Tally) {
    let keys = Keys::of(tree, node);
    tally.objects += 1;
    assert!(
        tool_keys::find(tree, node).is_none() || tool_keys::may_find(keys),
        "{what}: a tool key in {} but the keys {:?} rule them out",
        tree.raw_str(node),
        keys.names()
    );
    for d in all() {
        let claim = d.claims(tree, node);
        if claim.is_some() {
            *tally.claimed.entry(d.name()).or_default() += 1;
        }
        if let Some(by_keys) = d.claims_by_keys(keys) {
            assert_eq!(
                by_keys,
                claim.is_some(),
                "{what}: {} claims {} as its keys {:?} do not say",
                d.name(),
                tree.raw_str(node),
                keys.names()
            );
        }
        assert_eq!(
            gate::claimants(keys).any(|c| c.name() == d.name()),
            may_claim(*d, keys),
            "{what}: {} is not among the claimants of keys {:?}",
            d.name(),
            keys.names()
        );
        assert!(
            claim.is_none() || may_claim(*d, keys),
            "{what}: {} claims {} but its gate is shut (keys {:?})",
            d.name(),
            tree.raw_str(node),
            keys.names()
        );
    }
    let plain = all()
        .iter()
        .find_map(|d| d.claims(tree, node).map(|why| (d.name(), why)));
    let gated = first_claim(all(), tree, node, keys).map(|(d, why)| (d.name(), why));
    assert_eq!(gated, plain, "{what}: {}", tree.raw_str(node));
    if !foreign {
        return;
    }
    let cursor = Cursor::default();
    let cx = ReadCx::new(0, 1, &cursor);
    for d in all() {
        let want = foreign_ungated(tree, node, *d, &cx);
        tally.foreign += usize::from(want.is_some());
        let unread = match want {
            Some(_) => None,
            None => tool_keys::unread(tree, node, *d).map(|k| k.key),
        };
        let (foreign, gated_unread) = message_checks(tree, node, *d, &cx);
        assert_eq!(
            (foreign, gated_unread.map(|u| u.key)),
            (want, unread),
            "{what} read as {}: {}",
            d.name(),
            tree.raw_str(node)
        );
    }
}

#[test]
fn the_gate_never_shuts_on_a_claim_in_fixtures_and_corpus() {
    let mut tally = Tally::default();
    for path in files() {
        let bytes = std::fs::read(&path).unwrap();
        let what = path.display().to_string();
        for doc in documents(&bytes) {
            let tree = parse(doc).unwrap();
            let mut all_objects = Vec::new();
            objects(&tree, tree.root(), &mut all_objects);
            // The foreign check for the elements of arrays and the root (messages and lines).
            let mut listed = std::collections::HashSet::from([tree.root()]);
            for &o in &all_objects {
                for (_, v) in tree.members(o) {
                    if tree.kind(v) == Kind::Array {
                        listed.extend(tree.children(v));
                    }
                }
            }
            if tree.kind(tree.root()) == Kind::Array {
                listed.extend(tree.children(tree.root()));
            }
            for &o in &all_objects {
                check(&tree, o, &what, listed.contains(&o), &mut tally);
            }
        }
    }
    // Every dialect that claims anything claimed something here, so the check is not empty.
    for d in all() {
        if d.claim_keys().is_empty() {
            continue;
        }
        assert!(
            tally.claimed.get(d.name()).is_some_and(|&n| n > 0),
            "no fixture object is claimed by {}",
            d.name()
        );
    }
    // The fixtures alone hold some 3,800 objects; the shared corpus, when it is there, many
    // more.
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus");
    let least = if corpus.is_dir() { 10_000 } else { 2_000 };
    assert!(
        tally.objects > least && tally.foreign > 0,
        "{} objects, {} foreign",
        tally.objects,
        tally.foreign
    );
}

/// A small fixed-seed generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// A message being generated: its members (decoded key, whether to escape it, raw value).
type Members = Vec<(String, bool, String)>;

/// From the fixtures: the objects some dialect claims and every tenth other object, as
/// members (a few kilobytes at most), and the member values found under each key (a few
/// hundred bytes at most, a few dozen per key).
fn samples() -> (Vec<Members>, BTreeMap<String, Vec<String>>) {
    let mut seeds = Vec::new();
    let mut values: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut others = 0;
    for path in files() {
        let bytes = std::fs::read(&path).unwrap();
        for doc in documents(&bytes) {
            let tree = parse(doc).unwrap();
            let mut all_objects = Vec::new();
            objects(&tree, tree.root(), &mut all_objects);
            for o in all_objects {
                let members: Members = tree
                    .members(o)
                    .map(|(k, v)| {
                        let raw = String::from_utf8_lossy(tree.raw(v)).into_owned();
                        (k.into_owned(), false, raw)
                    })
                    .collect();
                for (k, _, raw) in &members {
                    let list = values.entry(k.clone()).or_default();
                    if raw.len() <= 600 && list.len() < 40 {
                        list.push(raw.clone());
                    }
                }
                let claimed = all().iter().any(|d| d.claims(&tree, o).is_some());
                others += usize::from(!claimed);
                if tree.raw(o).len() <= 4000 && (claimed || others % 10 == 0) {
                    seeds.push(members);
                }
            }
        }
    }
    (seeds, values)
}

/// A key token; `escape` writes its first letter as a `\u` escape.
fn key_token(key: &str, escape: bool) -> String {
    match key.chars().next() {
        Some(c) if c.is_ascii() && escape => format!("\"\\u{:04x}{}\"", c as u32, &key[1..]),
        _ => serde_json::to_string(key).unwrap(),
    }
}

/// Change `m` in one of six ways: drop a member, add one, repeat a key with another value,
/// change a value, escape a key, swap two members.
fn mutate(
    rng: &mut Rng,
    m: &mut Members,
    keys: &[&str],
    values: &BTreeMap<String, Vec<String>>,
    any: &[&String],
) {
    const SHAPES: [&str; 9] = [
        "\"function\"",
        "\"fun\\u0063tion\"",
        "\"gemini\"",
        "\"tool\"",
        "\"1\"",
        "[]",
        "{}",
        "1",
        "null",
    ];
    let value = |rng: &mut Rng, key: &str| match (rng.below(10), values.get(key)) {
        (0..=5, Some(list)) if !list.is_empty() => list[rng.below(list.len())].clone(),
        (6..=7, _) => SHAPES[rng.below(SHAPES.len())].to_string(),
        _ => any[rng.below(any.len())].clone(),
    };
    let len = m.len();
    match rng.below(6) {
        0 if !m.is_empty() => {
            m.remove(rng.below(len));
        }
        1 | 2 if !m.is_empty() && rng.below(2) == 0 => {
            let key = m[rng.below(len)].0.clone();
            let v = value(rng, &key);
            m.insert(rng.below(len + 1), (key, false, v));
        }
        1 | 2 => {
            let key = keys[rng.below(keys.len())].to_string();
            let v = value(rng, &key);
            m.insert(rng.below(len + 1), (key, false, v));
        }
        3 if !m.is_empty() => {
            let at = rng.below(len);
            m[at].2 = value(rng, &m[at].0.clone());
        }
        4 if !m.is_empty() => m[rng.below(len)].1 = true,
        5 if m.len() > 1 => m.swap(rng.below(len), rng.below(len)),
        _ => {}
    }
}

#[test]
fn the_gate_never_shuts_on_a_claim_of_generated_messages() {
    let (seeds, values) = samples();
    let mut keys: Vec<&str> = Keys::plain_names().to_vec();
    keys.extend([
        "uuid",
        "parentUuid",
        "session_id",
        "subtype",
        "llm_message",
        "name",
    ]);
    let any: Vec<&String> = values.values().flatten().collect();
    let mut tally = Tally::default();
    for seed in 1..=4u64 {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ seed);
        for n in 0..8_000 {
            let mut m = seeds[rng.below(seeds.len())].clone();
            for _ in 0..1 + rng.below(3) {
                mutate(&mut rng, &mut m, &keys, &values, &any);
            }
            let members: Vec<String> = m
                .iter()
                .map(|(k, escape, v)| format!("{}:{v}", key_token(k, *escape)))
                .collect();
            let text = format!("{{{}}}", members.join(","));
            let tree = parse(text.as_bytes()).unwrap();
            check(
                &tree,
                tree.root(),
                &format!("seed {seed} message {n}"),
                n % 4 == 0,
                &mut tally,
            );
        }
    }
    // Most dialects claim some of them, so the check is not empty.
    let claimed: usize = tally.claimed.values().sum();
    assert!(
        tally.claimed.len() >= 15 && claimed > 5_000,
        "{:?}",
        tally.claimed
    );
}
