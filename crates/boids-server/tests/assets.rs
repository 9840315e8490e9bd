//! The page's files: every file of `web/` (but its tests) is served, as it is on disk and with
//! its content type, so a module added to `web/js` without its line in the server's table of
//! assets fails here rather than in a browser.

mod common;

use std::path::{Path, PathBuf};

use common::*;

fn web() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../web")
}

/// The files under `dir`, as paths relative to `web/`, leaving out `web/tests`.
fn page_files(dir: &Path, out: &mut Vec<String>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let relative = path
            .strip_prefix(web())
            .unwrap()
            .to_str()
            .unwrap()
            .to_owned();
        if path.is_dir() {
            if relative != "tests" {
                page_files(&path, out);
            }
        } else {
            out.push(relative);
        }
    }
}

/// Where the server serves `web/<file>`, and the content type it must say.
fn route_and_type(file: &str) -> (String, &'static str) {
    let route = match file {
        "index.html" => "/".to_owned(),
        _ => format!("/{file}"),
    };
    let content_type = match Path::new(file).extension().and_then(|e| e.to_str()) {
        Some("html") => "text/html",
        Some("css") => "text/css",
        Some("js") => "text/javascript",
        other => panic!("web/{file}: no content type known for {other:?}"),
    };
    (route, content_type)
}

fn header<'a>(head: &'a str, name: &str) -> Option<&'a str> {
    head.lines().find_map(|line| {
        let (key, value) = line.split_once(':')?;
        key.eq_ignore_ascii_case(name).then(|| value.trim())
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_file_of_the_page_is_served_with_its_content_type() {
    let addr = start(params("cornell", &["count=50"]), 1000, false).await;
    let mut files = Vec::new();
    page_files(&web(), &mut files);
    files.sort();
    assert!(
        files.contains(&"js/main.js".to_owned()) && files.len() > 3,
        "{files:?}"
    );
    for file in &files {
        let (route, content_type) = route_and_type(file);
        let (status, head, body) = get_with(addr, &route, &[&format!("Host: {addr}")]).await;
        assert_eq!(status, 200, "web/{file} is not served at {route}: {head}");
        let served_type = header(&head, "content-type").unwrap_or_default();
        assert!(
            served_type.starts_with(content_type),
            "{route}: content type {served_type:?}, not {content_type}"
        );
        let on_disk = std::fs::read_to_string(web().join(file)).unwrap();
        assert!(
            body == on_disk,
            "{route} is not web/{file} as it is on disk"
        );
    }
}
