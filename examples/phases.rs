//! One workload's run split into its phases, in process: the payload's
//! parse, the resolve and plan of the parsed batch (files held in memory,
//! as `benches/engine.rs` holds them), and dropping the outcome. Medians
//! of N runs, in ms; criterion (`apply/*`) times the three together.
//!
//! ```sh
//! cargo run --release --example phases -- target/bench-data/W4-many-small [N]
//! taskset -c 0 target/release/examples/phases target/bench-data/W4-many-small   # one core
//! ```

use std::path::PathBuf;
use std::time::Instant;

use llm_edit_lsp::engine::{self, Options, SyntaxCheck};
use llm_edit_lsp::parse;

#[path = "../benches/common/workload.rs"]
mod workload;
use workload::Workload;

fn median(mut times: Vec<f64>) -> f64 {
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(dir) = args.next().map(PathBuf::from) else {
        eprintln!("usage: phases WORKLOAD_DIR [RUNS]");
        std::process::exit(2);
    };
    let runs: usize = args
        .next()
        .map_or(200, |n| n.parse().expect("a number of runs"));
    let Workload { payload, files } = Workload::load(&dir);
    let options = Options {
        fuzzy: dir
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with("W3"))
            .then_some(0.9),
        syntax_check: SyntaxCheck::Later,
        ..Options::default()
    };
    let (mut parses, mut plans, mut drops) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..runs {
        let start = Instant::now();
        let parsed = parse::parse(&payload, None);
        let parsed_at = Instant::now();
        let outcome = engine::plan_batch(
            parsed.batch,
            parsed.errors,
            parsed.formats,
            &options,
            &files,
        );
        let planned_at = Instant::now();
        assert!(outcome.errors.is_empty(), "errors: {:?}", outcome.errors);
        drop(outcome);
        let dropped_at = Instant::now();
        parses.push((parsed_at - start).as_secs_f64() * 1e3);
        plans.push((planned_at - parsed_at).as_secs_f64() * 1e3);
        drops.push((dropped_at - planned_at).as_secs_f64() * 1e3);
    }
    // The first run is the one a short-lived `apply` makes: nothing of
    // the engine's code or data is in the caches yet.
    println!(
        "first run: parse {:.3} ms, resolve + plan {:.3} ms, drop {:.3} ms",
        parses[0], plans[0], drops[0]
    );
    println!(
        "parse {:.3} ms, resolve + plan {:.3} ms, drop {:.3} ms (medians of {runs})",
        median(parses),
        median(plans),
        median(drops)
    );
}
