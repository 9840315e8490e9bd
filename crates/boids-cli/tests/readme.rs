//! The README's configuration examples work when pasted: every TOML block of it is a config file
//! that `--config` reads, with every obstacle table it shows. (Its Rust examples are doctests of
//! boids-core.)

mod common;

use common::ok;

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
fn every_toml_example_of_the_readme_is_a_config_that_reads() {
    let readme = include_str!("../../../README.md");
    let examples = blocks(readme, "toml");
    assert!(
        examples.iter().any(|b| b.contains("[[obstacles]]")),
        "the README shows an obstacle config"
    );
    let dir = tempfile::tempdir().unwrap();
    for (k, example) in examples.iter().enumerate() {
        let path = dir.path().join(format!("example{k}.toml"));
        std::fs::write(&path, example).unwrap();
        let written = ok(&["params", "--config", path.to_str().unwrap(), "--toml"]);
        assert_eq!(
            written.matches("[[obstacles]]").count(),
            example.matches("[[obstacles]]").count(),
            "example {k}:\n{example}\nread as:\n{written}"
        );
    }
}
