//! Who may use a server on a loopback port: pages of other sites cannot open its WebSocket
//! (cross-site WebSocket hijacking), and requests for other host names are refused (DNS
//! rebinding), unless the operator allowed the name.

mod common;

use common::*;
use serde_json::json;
use tokio_tungstenite::tungstenite;

/// The status and body of a refused WebSocket handshake.
fn refused_with(result: Result<Client, tungstenite::Error>) -> (u16, String) {
    match result {
        Err(tungstenite::Error::Http(response)) => (
            response.status().as_u16(),
            String::from_utf8_lossy(response.body().as_deref().unwrap_or_default()).into_owned(),
        ),
        Err(e) => panic!("refused without an HTTP response: {e}"),
        Ok(_) => panic!("the connection was accepted"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_from_another_site_cannot_open_the_websocket() {
    let addr = start(params("cornell", &["count=50"]), 1000, false).await;
    let port = addr.port();
    for origin in [
        "http://evil.example".to_owned(),
        format!("http://evil.example:{port}"),
        // Another server on this machine is another site too.
        format!("http://localhost:{}", port.wrapping_add(1)),
        "null".to_owned(),
    ] {
        let (status, body) = refused_with(connect_with(addr, &[("origin", &origin)]).await);
        assert_eq!(status, 403, "{origin}: {body}");
        assert!(
            body.contains("Origin") && body.contains("--allow-host"),
            "{origin}: {body}"
        );
    }
    // Nothing was changed by the attempts; the page's own origin (either loopback spelling)
    // connects and steers.
    let own = format!("http://127.0.0.1:{port}");
    let mut page = connect_with(addr, &[("origin", &own)]).await.unwrap();
    let r = page
        .call(1, json!({"type": "set", "key": "margin", "value": 70}))
        .await;
    assert_eq!(r["type"], "ok", "{r}");
    let host = format!("localhost:{port}");
    let own = format!("http://localhost:{port}");
    let mut page = connect_with(addr, &[("host", &host), ("origin", &own)])
        .await
        .unwrap();
    assert_eq!(
        page.next_json("state", |_| true).await["params"]["margin"],
        70.0
    );
    // A client that is not a browser sends no Origin.
    let mut script = connect(addr).await;
    let r = script.call(2, json!({"type": "step"})).await;
    assert_eq!(r["type"], "ok", "{r}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_for_another_host_name_are_refused() {
    let addr = start(params("cornell", &["count=50"]), 1000, false).await;
    let port = addr.port();
    for host in [
        "evil.example".to_owned(),
        format!("evil.example:{port}"),
        format!("localhost.evil.example:{port}"),
        format!("10.1.2.3:{port}"),
    ] {
        for path in ["/api/state", "/api/events", "/", "/js/main.js"] {
            let (status, head, body) = get_with(addr, path, &[&format!("Host: {host}")]).await;
            assert_eq!(status, 403, "{host} {path}: {head}");
            assert!(
                body.contains("Host") && body.contains("--allow-host"),
                "{body}"
            );
        }
        let (status, _) = refused_with(connect_with(addr, &[("host", &host)]).await);
        assert_eq!(status, 403, "{host}");
    }
    for host in [
        format!("127.0.0.1:{port}"),
        format!("localhost:{port}"),
        format!("[::1]:{port}"),
        "localhost".to_owned(),
    ] {
        let (status, head, _) = get_with(addr, "/api/state", &[&format!("Host: {host}")]).await;
        assert_eq!(status, 200, "{host}: {head}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn names_the_operator_allows_are_answered() {
    let mut config = config(params("cornell", &["count=50"]), 1000, false);
    config.allowed_hosts = vec!["Boids.Example.org".into()];
    let addr = start_with(config).await;
    let host = format!("boids.example.org:{}", addr.port());
    let (status, head, _) = get_with(addr, "/api/params", &[&format!("Host: {host}")]).await;
    assert_eq!(status, 200, "{head}");
    let origin = format!("http://{host}");
    let mut page = connect_with(addr, &[("host", &host), ("origin", &origin)])
        .await
        .unwrap();
    let r = page.call(1, json!({"type": "step"})).await;
    assert_eq!(r["type"], "ok", "{r}");
    let (status, _, _) = get_with(addr, "/api/params", &["Host: evil.example"]).await;
    assert_eq!(status, 403);
    let (status, _) = refused_with(connect_with(addr, &[("origin", "http://evil.example")]).await);
    assert_eq!(status, 403);
}
