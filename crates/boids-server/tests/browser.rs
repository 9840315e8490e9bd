//! The page itself, in headless Chromium: runs `web/tests/viewer.test.mjs` (playwright-core
//! driving Debian's chromium) against a server started here, once with the renderer the page
//! picks (canvas 2D in headless chromium, whose WebGL2 runs in software) and once with WebGL2
//! forced.
//!
//! Needs `node`, `/usr/bin/chromium` (or `BOIDS_CHROMIUM`) and `npm ci` run in `web/tests`. When
//! one is missing the test prints why and passes, unless `CI=true`, where it fails.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const TIMEOUT: Duration = Duration::from_secs(180);

fn web_tests() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../web/tests")
}

fn chromium() -> PathBuf {
    std::env::var_os("BOIDS_CHROMIUM")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/bin/chromium"))
}

/// What is missing to run the browser test.
fn missing() -> Vec<String> {
    let mut missing = Vec::new();
    let node = Command::new("node")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
    if !node.is_ok_and(|s| s.success()) {
        missing.push("node (apt-get install -y nodejs npm)".to_owned());
    }
    if !chromium().exists() {
        missing.push(format!(
            "{} (apt-get install -y chromium)",
            chromium().display()
        ));
    }
    if !web_tests().join("node_modules/playwright-core").exists() {
        missing
            .push("web/tests/node_modules/playwright-core (npm ci --prefix web/tests)".to_owned());
    }
    missing
}

fn run_page_test(renderer: Option<&str>) {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let flock = common::params("cornell", &["count=300"]);
    let addr = runtime.block_on(common::start(flock, 10_000, true));
    let mut command = Command::new("node");
    command
        .arg("viewer.test.mjs")
        .arg(format!("http://{addr}/"))
        .current_dir(web_tests())
        .env("BOIDS_CHROMIUM", chromium())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(r) = renderer {
        command.env("BOIDS_RENDERER", r);
    }
    let mut child = command.spawn().expect("node starts");
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > TIMEOUT {
            child.kill().unwrap();
            panic!("the browser test did not finish in {TIMEOUT:?}");
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let output = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    println!("{stdout}");
    assert!(
        status.success(),
        "browser test failed ({}):\n{stdout}\n{stderr}",
        renderer.unwrap_or("default renderer")
    );
}

#[test]
fn the_page_draws_the_flock_and_its_controls_work() {
    let missing = missing();
    if !missing.is_empty() {
        let message = format!("the browser test needs {}", missing.join(", "));
        if std::env::var("CI").is_ok_and(|v| v == "true") {
            panic!("{message}; CI=true, so this is a failure, not a skip");
        }
        eprintln!("SKIPPED: {message}");
        return;
    }
    run_page_test(None);
    run_page_test(Some("webgl"));
}
