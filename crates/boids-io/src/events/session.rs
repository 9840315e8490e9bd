//! The current flock's log as the viewer keeps it: the JSON text it exports, bounded, so that a
//! client flooding changes cannot make it grow without end, and a change that cannot be logged
//! is refused rather than applied unlogged.

use bytes::Bytes;

use super::log::{Event, FORMAT, VERSION};

/// Most bytes of events the server keeps for one flock: its `start`/`reset` event (every
/// parameter, about 2 kB) and then about 90,000 `set` events of about 90 bytes. A person moving
/// sliders makes a few changes a second, so this is hours of steady tweaking, while a client
/// flooding changes cannot make the log (and every download of it) grow without bound.
pub const LOG_LIMIT_BYTES: usize = 8 * 1024 * 1024;

/// The events of the current flock as the server keeps them: the JSON text they export to, one
/// event a line, so an export copies no event and the size is known exactly.
#[derive(Debug)]
pub struct SessionLog {
    /// The events, each as `  {...}`, separated by `",\n"`.
    text: String,
    events: usize,
    limit: usize,
    /// `text` as shared bytes, made on the first export after a change.
    shared: Option<Bytes>,
}

/// An event that fits in a [`SessionLog`], ready to log.
#[derive(Debug)]
pub struct LogLine(String);

impl SessionLog {
    /// A log that starts with `first` (a `start` or `reset`) and holds at most `limit` bytes.
    pub fn new(first: &Event, limit: usize) -> SessionLog {
        let mut log = SessionLog {
            text: String::new(),
            events: 0,
            limit,
            shared: None,
        };
        log.restart(first);
        log
    }

    /// A log that carries a session on: `first` (a `start` or `reset`) and the `changes` the
    /// flock has been through since, if they fit in `limit` bytes.
    pub fn carrying_on(
        first: &Event,
        changes: &[Event],
        limit: usize,
    ) -> Result<SessionLog, LogFull> {
        let mut log = SessionLog::new(first, limit);
        for change in changes {
            let line = log.line(change)?;
            log.push(line);
        }
        Ok(log)
    }

    /// Forgets every event and starts again from `first`: what a reset does.
    pub fn restart(&mut self, first: &Event) {
        self.text.clear();
        self.text.shrink_to(64 * 1024);
        self.events = 0;
        self.append(&first.to_line());
    }

    /// `event` as a line to [`push`](SessionLog::push), if it fits: a change is checked before
    /// it is applied, and logged once it has been.
    pub fn line(&self, event: &Event) -> Result<LogLine, LogFull> {
        let line = event.to_line();
        if self.text.len() + 2 + line.len() > self.limit {
            return Err(LogFull {
                events: self.events,
                bytes: self.text.len(),
                limit: self.limit,
            });
        }
        Ok(LogLine(line))
    }

    /// Logs a line made by [`line`](SessionLog::line) since the last change to the log.
    pub fn push(&mut self, line: LogLine) {
        self.append(&line.0);
    }

    fn append(&mut self, line: &str) {
        if self.events > 0 {
            self.text.push_str(",\n");
        }
        self.text.push_str(line);
        self.events += 1;
        self.shared = None;
    }

    /// Events logged.
    pub fn events(&self) -> usize {
        self.events
    }

    /// Bytes of events logged.
    pub fn bytes(&self) -> usize {
        self.text.len()
    }

    /// The events' text, shared: parallel exports of an unchanged log share one copy.
    pub fn shared(&mut self) -> Bytes {
        self.shared
            .get_or_insert_with(|| Bytes::copy_from_slice(self.text.as_bytes()))
            .clone()
    }

    /// The whole exported document at `step`, in the parts an HTTP body streams: a header,
    /// the events ([`SessionLog::shared`]) and the closing brackets.
    pub fn export(&mut self, step: u64) -> [Bytes; 3] {
        [
            Bytes::from(export_header(step)),
            self.shared(),
            Bytes::from_static(b"]}\n"),
        ]
    }
}

/// The start of an exported log, up to the events' opening bracket.
fn export_header(step: u64) -> String {
    let replay = format!("boids run --events boids-events.json --steps {step}");
    format!(
        "{{\"format\": {}, \"version\": {VERSION}, \"exported_at_step\": {step},\n \"replay\": {},\n \"events\": [\n",
        serde_json::Value::from(FORMAT),
        serde_json::Value::from(replay),
    )
}

/// A `set` event that would take the log past its limit.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error(
    "the event log of this flock is full ({events} events, {bytes} bytes; at most {limit}), and a \
     change that is not logged would not replay; reset to start a new log"
)]
pub struct LogFull {
    /// Events logged.
    pub events: usize,
    /// Their size.
    pub bytes: usize,
    /// The limit.
    pub limit: usize,
}
