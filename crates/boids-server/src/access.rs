//! Who may talk to the viewer: the checks every request passes before a route sees it.
//!
//! Listening on loopback keeps other machines out, but not other web pages in the user's own
//! browser, which can reach `127.0.0.1` too:
//!
//! - **Cross-site WebSocket hijacking.** Browsers let any page open a WebSocket to any address
//!   and send the page's `Origin` with it; the server must check it. A connection whose `Origin`
//!   is not the viewer's own (plain `http`, as the server serves its pages, and the host and port
//!   of the request's `Host`) is refused, so a page elsewhere cannot steer the flock. Clients that are
//!   not browsers (tests, scripts) send no `Origin` and are let in: anything that can open a raw
//!   connection can also send whatever `Origin` it likes, so refusing them protects nothing.
//! - **DNS rebinding.** A page from `evil.example` can make that name resolve to `127.0.0.1`,
//!   and then its requests to `evil.example:8000` reach the viewer as same-origin requests it
//!   may read. Browsers always send the name they resolved as `Host`, so a request is refused
//!   unless its `Host` is a loopback name (`localhost`, `127.x.x.x`, `[::1]`), the address the
//!   server listens on, or a name the operator allowed ([`Access::new`], `--allow-host`).
//!
//! Ports are not compared for `Host`: the port only says which server on a machine is meant, and
//! the attacks are about the name. An `Origin` is compared whole, whatever its name: an allowed
//! name on another port or scheme is another site's page. Refusals are `403 Forbidden` with the
//! reason.

use std::net::IpAddr;
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

/// The hosts a server answers to.
#[derive(Clone, Debug)]
pub struct Access {
    /// The listen address, when it is a specific address that is not loopback.
    listen: Option<IpAddr>,
    /// Names and addresses allowed by the operator, normalised ([`Host::name`]).
    allowed: Vec<String>,
}

impl Access {
    /// The access of a server listening on `listen` that also answers to `allowed` (host names
    /// or addresses, without scheme or port; IPv6 with or without brackets).
    pub fn new(listen: IpAddr, allowed: &[String]) -> Result<Access, crate::ServerError> {
        let allowed = allowed
            .iter()
            .map(|name| {
                allowed_name(name).map_err(|reason| crate::ServerError::AllowedHost {
                    name: name.clone(),
                    reason,
                })
            })
            .collect::<Result<_, _>>()?;
        Ok(Access {
            listen: (!listen.is_unspecified() && !listen.is_loopback()).then_some(listen),
            allowed,
        })
    }

    /// Whether requests may name `host` (a normalised name, without port).
    fn answers_to(&self, host: &str) -> bool {
        let ip = host.parse::<IpAddr>().ok();
        host == "localhost"
            || ip.is_some_and(|ip| ip.is_loopback() || Some(ip) == self.listen)
            || self.allowed.iter().any(|a| a == host)
    }

    /// Why a request with these headers is refused, if it is.
    pub fn refusal(&self, headers: &HeaderMap) -> Option<String> {
        let host = match headers.get(header::HOST).map(Host::parse_header) {
            None => None,
            Some(Some(host)) if self.answers_to(&host.name) => Some(host),
            Some(_) => {
                return Some(format!(
                    "Host {} is not allowed: this viewer answers to {} (start it with --allow-host NAME to allow a name)",
                    shown(headers.get(header::HOST)),
                    self.names()
                ));
            }
        };
        let origin = headers.get(header::ORIGIN)?;
        let own = matches!((Host::parse_origin(origin), &host), (Some(from), Some(host)) if from == *host);
        (!own).then(|| {
            format!(
                "Origin {} is not this viewer's own{}: pages from other sites may not use the viewer (start it with --allow-host NAME to allow a name)",
                shown(Some(origin)),
                host.map(|h| format!(" ({})", h.name))
                    .unwrap_or_default()
            )
        })
    }

    /// The names allowed, for messages.
    fn names(&self) -> String {
        let mut names = vec!["localhost".to_owned(), "127.x.x.x".into(), "[::1]".into()];
        names.extend(self.listen.map(|ip| ip.to_string()));
        names.extend(self.allowed.iter().cloned());
        names.join(", ")
    }
}

/// The middleware that refuses what [`Access::refusal`] refuses.
pub(crate) async fn guard(
    State(access): State<Arc<Access>>,
    request: Request,
    next: Next,
) -> Response {
    match access.refusal(request.headers()) {
        Some(reason) => (StatusCode::FORBIDDEN, reason).into_response(),
        None => next.run(request).await,
    }
}

/// A header value as it is shown in a message.
fn shown(value: Option<&HeaderValue>) -> String {
    let text = value.map_or("", |v| v.to_str().unwrap_or("(not text)"));
    format!("{:?}", text.chars().take(100).collect::<String>())
}

/// A host and port, from a `Host` header or an `Origin`.
#[derive(Debug, PartialEq)]
struct Host {
    /// Lowercase, without a final dot; an IPv6 address without brackets.
    name: String,
    /// The port, or the scheme's default.
    port: u16,
}

impl Host {
    /// `name[:port]` as in a `Host` header of a request made over plain HTTP (port 80 when
    /// none is given).
    fn parse_header(value: &HeaderValue) -> Option<Host> {
        Host::parse(value.to_str().ok()?, 80)
    }

    /// `http://name[:port]`, the `Origin` of a page this server could have served (it serves
    /// plain HTTP); `None` for any other scheme.
    fn parse_origin(value: &HeaderValue) -> Option<Host> {
        let (scheme, rest) = value.to_str().ok()?.split_once("://")?;
        if !scheme.eq_ignore_ascii_case("http") {
            return None;
        }
        Host::parse(rest, 80)
    }

    fn parse(authority: &str, default_port: u16) -> Option<Host> {
        let (name, port) = match authority.strip_prefix('[') {
            Some(v6) => {
                let (name, rest) = v6.split_once(']')?;
                name.parse::<std::net::Ipv6Addr>().ok()?;
                (name, rest)
            }
            None => authority.split_at(authority.find(':').unwrap_or(authority.len())),
        };
        let port = match port {
            "" => default_port,
            _ => port.strip_prefix(':')?.parse().ok()?,
        };
        Some(Host {
            name: normalise(name)?,
            port,
        })
    }
}

/// A host name or address in one spelling: lowercase, no final dot, IP addresses as Rust prints
/// them. `None` for anything else.
fn normalise(name: &str) -> Option<String> {
    if let Ok(ip) = name.parse::<IpAddr>() {
        return Some(ip.to_string());
    }
    let name = name.strip_suffix('.').unwrap_or(name).to_ascii_lowercase();
    let valid = !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'.' || b == b'_');
    valid.then_some(name)
}

/// An `--allow-host` value, normalised.
fn allowed_name(name: &str) -> Result<String, &'static str> {
    let bare = name
        .strip_prefix('[')
        .and_then(|n| n.strip_suffix(']'))
        .unwrap_or(name);
    if bare.contains("://") {
        return Err("give the name alone, without a scheme");
    }
    if bare.parse::<IpAddr>().is_err() && bare.contains(':') {
        return Err("give the name alone, without a port (any port is allowed)");
    }
    normalise(bare).ok_or("a name has only letters, digits, '-', '_' and '.'")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(host: Option<&str>, origin: Option<&str>) -> HeaderMap {
        let mut map = HeaderMap::new();
        if let Some(h) = host {
            map.insert(header::HOST, HeaderValue::from_str(h).unwrap());
        }
        if let Some(o) = origin {
            map.insert(header::ORIGIN, HeaderValue::from_str(o).unwrap());
        }
        map
    }

    fn loopback() -> Access {
        Access::new("127.0.0.1".parse().unwrap(), &[]).unwrap()
    }

    #[test]
    fn loopback_names_with_any_port_are_answered() {
        let access = loopback();
        for host in [
            "localhost",
            "localhost:8000",
            "LOCALHOST.:1",
            "127.0.0.1:8000",
            "127.1.2.3",
            "[::1]:8000",
            "[::1]",
        ] {
            assert_eq!(access.refusal(&headers(Some(host), None)), None, "{host}");
        }
        assert_eq!(access.refusal(&headers(None, None)), None);
    }

    #[test]
    fn other_hosts_are_refused_unless_allowed() {
        let access = loopback();
        for host in [
            "evil.example",
            "evil.example:8000",
            "localhost.evil.example",
            "127.0.0.1.evil.example",
            "192.168.1.20:8000",
            "[::2]:8000",
            "",
            "local host",
            "localhost:80:80",
            "[::1",
        ] {
            let refusal = access.refusal(&headers(Some(host), None));
            assert!(
                refusal
                    .as_ref()
                    .is_some_and(|r| r.contains("--allow-host") && r.contains("localhost")),
                "{host}: {refusal:?}"
            );
        }
        let open = Access::new(
            "0.0.0.0".parse().unwrap(),
            &["Boids.Example.org".into(), "[fe80::1]".into()],
        )
        .unwrap();
        for host in [
            "boids.example.org:8000",
            "boids.example.org",
            "[fe80::1]:80",
        ] {
            assert_eq!(open.refusal(&headers(Some(host), None)), None, "{host}");
        }
        assert!(open.refusal(&headers(Some("0.0.0.0:8000"), None)).is_some());
        // A specific listen address is answered to without being named.
        let lan = Access::new("192.168.1.20".parse().unwrap(), &[]).unwrap();
        assert_eq!(lan.refusal(&headers(Some("192.168.1.20:8000"), None)), None);
        assert!(
            lan.refusal(&headers(Some("192.168.1.21:8000"), None))
                .is_some()
        );
    }

    #[test]
    fn only_the_viewers_own_origin_may_connect() {
        let access = loopback();
        for (host, origin) in [
            ("127.0.0.1:8000", "http://127.0.0.1:8000"),
            ("localhost:8000", "http://localhost:8000"),
            ("[::1]:8000", "http://[::1]:8000"),
            ("localhost", "http://localhost"),
            ("localhost:80", "http://localhost"),
            ("LocalHost:8000", "HTTP://localhost:8000"),
        ] {
            let refusal = access.refusal(&headers(Some(host), Some(origin)));
            assert_eq!(refusal, None, "{host} {origin}");
        }
        for (host, origin) in [
            ("127.0.0.1:8000", "http://evil.example"),
            ("127.0.0.1:8000", "http://evil.example:8000"),
            ("127.0.0.1:8000", "http://localhost:8000"),
            ("localhost:8000", "http://localhost:3000"),
            ("localhost:8000", "https://localhost"),
            ("localhost:8000", "https://localhost:8000"),
            ("localhost:8000", "null"),
            ("localhost:8000", "file://"),
        ] {
            let refusal = access.refusal(&headers(Some(host), Some(origin)));
            assert!(
                refusal.as_ref().is_some_and(|r| r.contains("Origin")),
                "{host} {origin}: {refusal:?}"
            );
        }
        // Without a Host there is nothing to be the same origin as.
        assert!(
            access
                .refusal(&headers(None, Some("http://localhost:8000")))
                .is_some()
        );
        // An allowed name's pages are compared as the server serves them, like any other.
        let named = Access::new("0.0.0.0".parse().unwrap(), &["boids.example.org".into()]).unwrap();
        let host = "boids.example.org:8000";
        let ok = headers(Some(host), Some("http://boids.example.org:8000"));
        assert_eq!(named.refusal(&ok), None);
        for origin in [
            "http://boids.example.org:3000",
            "http://boids.example.org",
            "https://boids.example.org:8000",
            "https://boids.example.org",
        ] {
            let refusal = named.refusal(&headers(Some(host), Some(origin)));
            assert!(refusal.is_some(), "{origin}");
        }
        let elsewhere = headers(Some("127.0.0.1:8000"), Some("http://boids.example.org"));
        assert!(named.refusal(&elsewhere).is_some());
    }

    #[test]
    fn bad_allowed_names_say_why() {
        for (name, expected) in [
            ("http://boids.example.org", "without a scheme"),
            ("boids.example.org:8000", "without a port"),
            ("", "letters, digits"),
            ("a/b", "letters, digits"),
        ] {
            let err = Access::new("127.0.0.1".parse().unwrap(), &[name.to_owned()])
                .unwrap_err()
                .to_string();
            assert!(
                err.contains(expected) && err.contains("--allow-host"),
                "{name}: {err}"
            );
        }
        let v6 = Access::new("127.0.0.1".parse().unwrap(), &["fe80::1".into()]).unwrap();
        assert_eq!(v6.allowed, ["fe80::1"]);
    }
}
