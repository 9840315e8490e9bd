//! No crate of the workspace has an import cycle between its modules.
//!
//! A cycle means two modules that cannot be understood, tested or moved apart, so each crate's
//! modules must form layers. This test reads the production code of every crate's `src/` (the
//! Python package's too), takes each top-level module's references to another (`use crate::…`,
//! `pub use`, a path `crate::…` in the code, `super::…` from a top-level module), and fails
//! naming every cycle it finds. Test code (from a file's first `#[cfg(test)]` on, and files
//! named `tests.rs`) may import freely.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fs;
use std::path::{Path, PathBuf};

/// A top-level module and the top-level modules it refers to.
type Graph = BTreeMap<String, BTreeSet<String>>;

#[test]
fn no_crate_has_an_import_cycle_between_its_modules() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut sources: Vec<(String, PathBuf)> = fs::read_dir(root.join("crates"))
        .expect("the workspace's crates")
        .map(|entry| entry.expect("a crate").path())
        .map(|dir| (name_of(&dir), dir.join("src")))
        .collect();
    sources.push(("python".to_owned(), root.join("python/src")));
    sources.retain(|(_, src)| src.is_dir());
    assert!(sources.len() >= 7, "the crates' sources: {sources:?}");
    let mut cycles = Vec::new();
    for (krate, src) in &sources {
        let graph = module_graph(src);
        for cycle in cycles_of(&graph) {
            cycles.push(format!("{krate}: {} -> {}", cycle.join(" -> "), cycle[0]));
        }
    }
    assert!(cycles.is_empty(), "import cycles:\n{}", cycles.join("\n"));
}

/// The test's own reader, held to a graph written by hand.
#[test]
fn the_reader_finds_every_kind_of_reference() {
    let code = "use crate::{alpha::A, beta::{B, C}};\n\
                pub use super::gamma;\n\
                // use crate::delta;\n\
                fn f() { crate::epsilon::g(); crate::zeta!(); }\n\
                #[cfg(test)]\nmod tests { use crate::eta; }";
    let mut found = BTreeSet::new();
    references(code, &["x".to_owned()], &mut found);
    let want = ["alpha", "beta", "epsilon", "gamma", "zeta"];
    assert_eq!(found, want.iter().map(|s| s.to_string()).collect());
    let graph: Graph = [("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")]
        .iter()
        .fold(Graph::new(), |mut g, &(from, to)| {
            g.entry(from.into()).or_default().insert(to.into());
            g.entry(to.into()).or_default();
            g
        });
    let cycles = cycles_of(&graph);
    assert_eq!(cycles.len(), 1);
    assert_eq!(cycles[0], ["a", "b", "c"]);
}

fn name_of(dir: &Path) -> String {
    dir.file_name()
        .expect("a directory name")
        .to_string_lossy()
        .into_owned()
}

/// The references between the top-level modules of the crate whose sources are in `src`.
fn module_graph(src: &Path) -> Graph {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let mut graph = Graph::new();
    let modules: Vec<(Vec<String>, PathBuf)> = files
        .into_iter()
        .filter(|file| file.file_name().is_some_and(|name| name != "tests.rs"))
        .map(|file| (module_path(src, &file), file))
        .filter(|(path, _)| !path.is_empty())
        .collect();
    for (path, _) in &modules {
        graph.entry(path[0].clone()).or_default();
    }
    for (path, file) in &modules {
        let code = fs::read_to_string(file).expect("a readable source file");
        let mut found = BTreeSet::new();
        references(&code, path, &mut found);
        let targets: Vec<String> = found
            .into_iter()
            .filter(|target| *target != path[0] && graph.contains_key(target))
            .collect();
        graph.get_mut(&path[0]).expect("listed").extend(targets);
    }
    graph
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).expect("a source directory") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// A file's module path below the crate root (`world/pass.rs` is `[world, pass]`, `world/mod.rs`
/// is `[world]`, the crate root is empty).
fn module_path(src: &Path, file: &Path) -> Vec<String> {
    let relative = file.strip_prefix(src).expect("a file under src");
    let mut path: Vec<String> = relative
        .with_extension("")
        .iter()
        .map(|part| part.to_string_lossy().into_owned())
        .collect();
    if matches!(
        path.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        path.pop();
    }
    path
}

/// Adds to `found` the top-level modules that the production code of the module at `path`
/// names through `crate::` or, reaching the crate root, `super::`.
fn references(code: &str, path: &[String], found: &mut BTreeSet<String>) {
    let production = code.split("#[cfg(test)]").next().unwrap_or_default();
    for line in production.lines() {
        let line = line.split("//").next().unwrap_or_default();
        for (at, _) in line.match_indices("crate::") {
            names_after(&line[at + "crate::".len()..], found);
        }
        for (at, _) in line.match_indices("super::") {
            let before = &line[..at];
            if before.ends_with("super::") || before.ends_with(|c: char| c.is_alphanumeric()) {
                continue;
            }
            let mut rest = &line[at..];
            let mut depth = 0;
            while let Some(after) = rest.strip_prefix("super::") {
                (rest, depth) = (after, depth + 1);
            }
            if depth == path.len() {
                names_after(rest, found);
            }
        }
    }
}

/// The first names of a path or a `{…}` group of paths: `a::b` gives `a`, `{a::b, c}` gives
/// `a` and `c`.
fn names_after(rest: &str, found: &mut BTreeSet<String>) {
    let ident = |s: &str| -> String {
        s.trim_start()
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect()
    };
    let Some(group) = rest.strip_prefix('{') else {
        found.insert(ident(rest));
        return;
    };
    let mut depth = 0;
    let mut start = true;
    for (i, c) in group.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => break,
            '}' => depth -= 1,
            ',' if depth == 0 => start = true,
            c if start && !c.is_whitespace() => {
                found.insert(ident(&group[i..]));
                start = false;
            }
            _ => {}
        }
    }
    found.remove("");
}

/// For each group of modules that reach each other, a shortest cycle through it from its first
/// module.
fn cycles_of(graph: &Graph) -> Vec<Vec<String>> {
    let reach: BTreeMap<&String, BTreeSet<&String>> =
        graph.keys().map(|m| (m, reachable(graph, m))).collect();
    let mut seen = BTreeSet::new();
    let mut cycles = Vec::new();
    for module in graph.keys() {
        if seen.contains(module) || !reach[module].contains(module) {
            continue;
        }
        let group: BTreeSet<&String> = reach[module]
            .iter()
            .copied()
            .filter(|other| reach[other].contains(module))
            .collect();
        seen.extend(group.iter().copied());
        let cycle = cycle_through(graph, module, &group);
        cycles.push(cycle);
    }
    cycles
}

/// Every module reachable from `from` in one step or more.
fn reachable<'g>(graph: &'g Graph, from: &'g String) -> BTreeSet<&'g String> {
    let mut seen = BTreeSet::new();
    let mut queue: VecDeque<&String> = graph[from].iter().collect();
    while let Some(next) = queue.pop_front() {
        if seen.insert(next) {
            queue.extend(graph[next].iter());
        }
    }
    seen
}

/// A shortest cycle from `start` back to it through the modules of `group`.
fn cycle_through(graph: &Graph, start: &String, group: &BTreeSet<&String>) -> Vec<String> {
    let mut before: BTreeMap<&String, &String> = BTreeMap::new();
    let mut queue = VecDeque::from([start]);
    while let Some(at) = queue.pop_front() {
        for next in graph[at].iter().filter(|n| group.contains(n)) {
            if next == start {
                let mut cycle = vec![at.clone()];
                let mut back = at;
                while back != start {
                    back = before[back];
                    cycle.push(back.clone());
                }
                cycle.reverse();
                return cycle;
            }
            if !before.contains_key(next) {
                before.insert(next, at);
                queue.push_back(next);
            }
        }
    }
    unreachable!("{start} is on a cycle of its group")
}
