//! The README and the guide (`docs/`, an mdBook) say what the program does, so the suite holds
//! them to it: every TOML block is a config file that `--config` reads; every `boids` command
//! they show names a real command and real flags; every chapter is in the book's table of
//! contents and the book builds with its link check; every picture they show is made by
//! `docs/figures.sh`. (Their Rust examples are doctests of boids-core, their Python examples
//! run in the Python suite, and the wire format's requests are read by boids-server's tests.)

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;

use common::{boids, ok, skip_unless_ci, workspace};

/// The README and every chapter of the guide: (path relative to the workspace, text).
fn documents() -> Vec<(String, String)> {
    let mut docs = vec![("README.md".to_string(), read("README.md"))];
    let mut chapters: Vec<_> = std::fs::read_dir(workspace().join("docs/src"))
        .expect("the guide's chapters in docs/src")
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "md"))
        .collect();
    chapters.sort();
    for path in chapters {
        let name = format!("docs/src/{}", path.file_name().unwrap().to_string_lossy());
        docs.push((name.clone(), read(&name)));
    }
    docs
}

fn read(relative: &str) -> String {
    std::fs::read_to_string(workspace().join(relative))
        .unwrap_or_else(|e| panic!("{relative}: {e}"))
}

/// The text of every fenced block of `markdown` in the language `lang`.
fn blocks<'a>(markdown: &'a str, lang: &str) -> Vec<&'a str> {
    let fence = format!("```{lang}\n");
    markdown
        .split(fence.as_str())
        .skip(1)
        .map(|rest| rest.split("```").next().unwrap_or(""))
        .collect()
}

#[test]
fn every_toml_example_is_a_config_that_reads() {
    let dir = tempfile::tempdir().unwrap();
    let mut obstacle_examples = 0;
    for (name, text) in documents() {
        for (k, example) in blocks(&text, "toml").iter().enumerate() {
            let path = dir.path().join(format!("example{k}.toml"));
            std::fs::write(&path, example).unwrap();
            let written = ok(&["params", "--config", path.to_str().unwrap(), "--toml"]);
            let obstacles = example.matches("[[obstacles]]").count();
            obstacle_examples += usize::from(obstacles > 0);
            assert_eq!(
                written.matches("[[obstacles]]").count(),
                obstacles,
                "{name}, TOML example {k}:\n{example}\nread as:\n{written}"
            );
        }
    }
    assert!(obstacle_examples > 0, "the guide shows an obstacle config");
}

/// The `boids` command lines of a shell block: continuation lines joined, comments dropped.
fn command_lines(block: &str) -> Vec<String> {
    let joined = block.replace("\\\n", " ");
    joined
        .lines()
        .map(|line| line.split(" #").next().unwrap_or("").trim())
        .filter_map(|line| line.strip_prefix("target/release/boids"))
        .map(|rest| rest.trim().to_string())
        .collect()
}

/// Splits a command line into words as a shell would for these examples (single and double
/// quotes), up to a pipe or a redirection.
fn words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quote = None;
    for c in line.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.push(c),
            (None, '\'' | '"') => quote = Some(c),
            (None, '|' | '>') => break,
            (None, c) if c.is_whitespace() => {
                if !word.is_empty() {
                    words.push(std::mem::take(&mut word));
                }
            }
            (None, c) => word.push(c),
        }
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

#[test]
fn every_boids_command_shown_names_a_real_command_and_real_flags() {
    let mut helps: BTreeMap<String, String> = BTreeMap::new();
    let mut checked = 0;
    for (name, text) in documents() {
        for block in blocks(&text, "sh") {
            for line in command_lines(block) {
                let words = words(&line);
                let command = match words.first() {
                    Some(word) if !word.starts_with('-') => word.clone(),
                    _ => "serve".to_string(),
                };
                let help = helps.entry(command.clone()).or_insert_with(|| {
                    let out = boids(&[&command, "--help"]);
                    assert!(
                        out.status.success(),
                        "{name}: `boids {line}` names no command {command:?}"
                    );
                    String::from_utf8_lossy(&out.stdout).into_owned()
                });
                for flag in words.iter().filter(|w| w.starts_with("--")) {
                    let flag = flag.split('=').next().unwrap();
                    assert!(
                        help.contains(&format!("{flag} ")) || help.contains(&format!("{flag}\n")),
                        "{name}: `boids {line}`: `boids {command}` has no flag {flag}"
                    );
                }
                checked += 1;
            }
        }
    }
    assert!(checked > 40, "only {checked} commands found in the docs");
}

/// The chapter files the table of contents links to.
fn summary_chapters() -> BTreeSet<String> {
    let summary = read("docs/src/SUMMARY.md");
    summary
        .split("](")
        .skip(1)
        .map(|rest| rest.split(')').next().unwrap().to_string())
        .collect()
}

#[test]
fn every_chapter_is_in_the_table_of_contents() {
    let listed = summary_chapters();
    for (name, _) in documents() {
        let Some(chapter) = name.strip_prefix("docs/src/") else {
            continue;
        };
        if chapter != "SUMMARY.md" {
            assert!(
                listed.contains(chapter),
                "docs/src/SUMMARY.md does not list {chapter}"
            );
        }
    }
}

/// The pictures `text` shows from the guide's figures folder, as paths under docs/src.
fn figures_shown(text: &str) -> Vec<String> {
    text.split("](")
        .skip(1)
        .filter_map(|rest| rest.split(')').next())
        .filter_map(|link| {
            let path = link.strip_prefix("docs/src/").unwrap_or(link);
            path.starts_with("figures/").then(|| path.to_string())
        })
        .filter(|path| path.ends_with(".png") || path.ends_with(".gif"))
        .collect()
}

#[test]
fn every_picture_shown_exists_and_is_made_by_the_figures_script() {
    let script = read("docs/figures.sh");
    let mut shown = 0;
    for (name, text) in documents() {
        for figure in figures_shown(&text) {
            assert!(
                workspace().join("docs/src").join(&figure).is_file(),
                "{name} shows {figure}, which is not there"
            );
            // An experiment writes its plot beside the CSV the script names.
            let table = figure.replace(".png", ".csv");
            assert!(
                script.contains(&format!("docs/src/{figure}"))
                    || script.contains(&format!("docs/src/{table}")),
                "{name} shows {figure}, which docs/figures.sh does not make"
            );
            shown += 1;
        }
    }
    assert!(shown >= 8, "only {shown} pictures found");
}

/// Whether `program` runs here.
fn available(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .output()
        .is_ok_and(|out| out.status.success())
}

#[test]
fn the_guide_builds_with_every_link_resolved() {
    let missing: Vec<_> = ["mdbook", "mdbook-linkcheck2"]
        .into_iter()
        .filter(|p| !available(p))
        .collect();
    if !missing.is_empty() {
        skip_unless_ci(&format!(
            "the guide was not built: {} not installed (cargo install mdbook mdbook-linkcheck2 --locked)",
            missing.join(" and ")
        ));
        return;
    }
    let out_dir = tempfile::tempdir().unwrap();
    let out = Command::new("mdbook")
        .args(["build", "--dest-dir"])
        .arg(out_dir.path())
        .arg(workspace().join("docs"))
        .output()
        .expect("mdbook runs");
    let log = format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "mdbook build failed:\n{log}");
    assert!(!log.contains("WARN"), "mdbook build warned:\n{log}");
    assert!(
        out_dir.path().join("html/presets.html").is_file(),
        "no presets page in {log}"
    );
}
