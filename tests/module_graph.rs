//! The library's modules depend on each other one way: the graph drawn from every `crate::`
//! path in `src/` (the CLI in `src/app/` and `src/main.rs` is a separate crate) has no circle.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// Top-level module → the top-level modules its code names through `crate::`.
fn module_graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in rust_files(&src) {
        let rel = file.strip_prefix(&src).unwrap();
        let first = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy();
        let module = first.trim_end_matches(".rs").to_string();
        if module == "main" || module == "app" || module == "lib" {
            continue;
        }
        let edges = graph.entry(module.clone()).or_default();
        for target in crate_paths(&fs::read_to_string(&file).unwrap()) {
            if target != module {
                edges.insert(target);
            }
        }
    }
    graph
}

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out
}

/// The first segment after every `crate::` in code (comments skipped), including each
/// member of a `use crate::{a, b::c}` group.
fn crate_paths(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines() {
        let code = line.split("//").next().unwrap();
        let mut rest = code;
        while let Some(at) = rest.find("crate::") {
            let after = &rest[at + "crate::".len()..];
            if let Some(group) = after.strip_prefix('{') {
                let inner = group.split('}').next().unwrap();
                out.extend(
                    inner
                        .split(',')
                        .map(first_segment)
                        .filter(|s| !s.is_empty()),
                );
            } else {
                out.push(first_segment(after));
            }
            rest = after;
        }
    }
    out
}

fn first_segment(path: &str) -> String {
    path.trim()
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect()
}

/// A circle in `graph`, if there is one (as the list of modules along it).
fn find_cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|n| n == node) {
            let mut cycle = path[at..].to_vec();
            cycle.push(node.to_string());
            return Some(cycle);
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_string());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(cycle) = visit(next, graph, path, done) {
                return Some(cycle);
            }
        }
        path.pop();
        done.insert(node.to_string());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|n| visit(n, graph, &mut Vec::new(), &mut done))
}

#[test]
fn no_module_depends_on_itself_through_others() {
    let graph = module_graph();
    assert!(graph.len() > 5, "the walk found the modules: {graph:?}");
    if let Some(cycle) = find_cycle(&graph) {
        panic!("import circle: {}", cycle.join(" -> "));
    }
}

#[test]
fn dialects_know_nothing_of_repair_or_lint() {
    let graph = module_graph();
    let dialect = &graph["dialect"];
    assert!(dialect.contains("edit"), "{dialect:?}");
    for upper in ["repair", "lint", "read", "render", "stream"] {
        assert!(!dialect.contains(upper), "dialect imports {upper}");
    }
}

#[test]
fn the_cycle_finder_finds_a_planted_circle() {
    let mut graph = module_graph();
    graph.get_mut("edit").unwrap().insert("repair".to_string());
    let cycle = find_cycle(&graph).expect("edit -> repair -> ... -> edit");
    assert_eq!(cycle.first(), cycle.last());
    assert_eq!(
        crate_paths("use crate::{a::b, c};\n// crate::z\nlet x = crate::d::e;"),
        ["a", "c", "d"]
    );
}
