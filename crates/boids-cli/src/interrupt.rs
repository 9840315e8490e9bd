//! Unfinished outputs are removed when the run is interrupted.
//!
//! Outputs are written into private temporary directories beside their targets and renamed into
//! place only when the whole run is complete ([`boids_io::output`]), which lists them
//! ([`boids_io::unfinished`]). A thread that waits for every signal whose default action ends
//! the process and that a process may catch ([`ENDING`]), started with the first output,
//! removes the listed directories, says that the run was interrupted and exits with 128 + the
//! signal's number (130 for Ctrl-C, 143 for SIGTERM), as a shell reports a process killed by
//! it. A command that writes no output keeps the signals' usual effect. (SIGKILL cannot be
//! caught; SIGPIPE is ignored by every Rust program, so a closed pipe is a write error.)

use boids_io::unfinished;
use signal_hook::consts::signal::{
    SIGALRM, SIGHUP, SIGINT, SIGPROF, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGVTALRM, SIGXCPU,
    SIGXFSZ,
};
use signal_hook::iterator::Signals;

/// The signals that end a process unless caught, by name.
const ENDING: [(i32, &str); 11] = [
    (SIGINT, "SIGINT"),
    (SIGTERM, "SIGTERM"),
    (SIGHUP, "SIGHUP"),
    (SIGQUIT, "SIGQUIT"),
    (SIGUSR1, "SIGUSR1"),
    (SIGUSR2, "SIGUSR2"),
    (SIGALRM, "SIGALRM"),
    (SIGVTALRM, "SIGVTALRM"),
    (SIGPROF, "SIGPROF"),
    (SIGXCPU, "SIGXCPU"),
    (SIGXFSZ, "SIGXFSZ"),
];

/// Makes a signal remove the unfinished outputs, from the first output on.
pub fn remove_outputs_on_signal() {
    unfinished::set_signal_watcher(listen);
}

fn listen() {
    // Without the handler a signal still ends the run, only without the clean-up.
    let Ok(mut signals) = Signals::new(ENDING.map(|(signal, _)| signal)) else {
        return;
    };
    std::thread::spawn(move || {
        if let Some(signal) = signals.forever().next() {
            let list = unfinished::lock();
            for dir in list.iter() {
                let _ = std::fs::remove_dir_all(dir);
            }
            let name = ENDING
                .iter()
                .find(|(s, _)| *s == signal)
                .map_or("a signal", |(_, name)| name);
            eprintln!(
                "error: interrupted by {name}; removed {} unfinished output(s)",
                list.len()
            );
            std::process::exit(128 + signal);
        }
    });
}
