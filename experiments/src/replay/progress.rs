// SPDX-License-Identifier: MIT OR Apache-2.0
//! Progress display: a live bar on a terminal, plain lines every two seconds otherwise.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::time::{Duration, Instant};

/// Reports replay progress on stderr.
pub struct Progress {
    bar: Option<ProgressBar>,
    quiet: bool,
    start: Instant,
    last_line: Instant,
    first_height: Option<u32>,
    total: Option<u64>,
    blocks: u64,
    inputs: u64,
}

impl Progress {
    /// `total`: blocks expected, when known. `quiet`: no output at all.
    pub fn new(total: Option<u64>, quiet: bool) -> Progress {
        let bar = (!quiet && std::io::stderr().is_terminal()).then(|| {
            let bar = match total {
                Some(n) => ProgressBar::new(n),
                None => ProgressBar::no_length(),
            };
            bar.set_draw_target(ProgressDrawTarget::stderr_with_hz(5));
            let template = if total.is_some() {
                "{elapsed_precise} [{bar:30}] {pos}/{len} blocks  {msg}  ETA {eta}"
            } else {
                "{elapsed_precise} {spinner} {pos} blocks  {msg}"
            };
            bar.set_style(
                ProgressStyle::with_template(template).expect("valid template").progress_chars("=> "),
            );
            bar
        });
        let now = Instant::now();
        Progress { bar, quiet, start: now, last_line: now, first_height: None, total, blocks: 0, inputs: 0 }
    }

    fn rates(&self) -> (f64, f64) {
        let s = self.start.elapsed().as_secs_f64().max(1e-9);
        (self.blocks as f64 / s, self.inputs as f64 / s)
    }

    /// One block connected at `height` with `inputs` non-coinbase inputs.
    pub fn block(&mut self, height: u32, inputs: u64) {
        self.first_height.get_or_insert(height);
        self.blocks += 1;
        self.inputs += inputs;
        if self.quiet {
            return;
        }
        let (bps, ips) = self.rates();
        if let Some(bar) = &self.bar {
            bar.set_position(self.blocks);
            bar.set_message(format!("height {height}  {bps:.1} blocks/s  {ips:.0} inputs/s"));
        } else if self.last_line.elapsed() >= Duration::from_secs(2) {
            self.last_line = Instant::now();
            let of = self.total.map(|t| format!("/{t}")).unwrap_or_default();
            eprintln!(
                "replay: height {height}  {}{of} blocks  {bps:.1} blocks/s  {ips:.0} inputs/s  {:.1} s",
                self.blocks,
                self.start.elapsed().as_secs_f64()
            );
        }
    }

    /// A line of text that should not be overwritten by the bar.
    pub fn println(&self, text: &str) {
        if self.quiet {
            return;
        }
        match &self.bar {
            Some(bar) => bar.println(text),
            None => eprintln!("{text}"),
        }
    }

    /// Removes the bar.
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
