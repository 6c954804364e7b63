//! The real-history stress run: payloads built from real commits
//! (`../shared/stress/pairs.jsonl`) in every format, each with one of the
//! mistakes models make, applied in process through `engine::run` and
//! judged against the real "after" file. See `docs/correctness.md`.
//!
//! ```text
//! cargo run --release --example stress -- [--seed N] [--cases N | --per-pair K]
//!     [--formats a,b] [--mistakes x,y] [--fuzzy T] [--jobs N]
//!     [--json FILE] [--markdown FILE] [--fail-on-wrong] [--show N] [--list VERDICT] [--one-place]
//!     [--cli BIN [--cli-every K]] [--mcp [--mcp-every K]] [--dump DIR --case ID] [--pairs FILE]
//! ```
//!
//! `--mcp` runs every `--mcp-every`-th case (default: all) again through the
//! MCP server's `apply_response` tool, in process, on a file in a scratch
//! folder, and counts the verdicts that differ from `engine::run`'s.

mod case;
mod definitions;
mod draft;
mod dump;
mod formats;
mod judge;
mod mistakes;
mod pairs;
mod places;
mod report;
mod rng;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use case::{known, Case, CaseId};
use judge::{Judged, Verdict};
use pairs::Pair;
use report::Report;
use rng::Rng;

/// Command-line settings.
struct Args {
    seed: u64,
    cases: Option<usize>,
    per_pair: Option<u64>,
    formats: Vec<&'static str>,
    mistakes: Vec<&'static str>,
    fuzzy: Option<f64>,
    jobs: usize,
    json: Option<PathBuf>,
    markdown: Option<PathBuf>,
    fail_on_wrong: bool,
    show: usize,
    list: Option<String>,
    /// List only the cases where one place fits (`places.rs`).
    one_place_only: bool,
    cli: Option<PathBuf>,
    cli_every: usize,
    /// Also run every `mcp_every`-th case through the MCP tool layer.
    mcp: bool,
    mcp_every: usize,
    dump: Option<PathBuf>,
    case: Option<String>,
    pairs: PathBuf,
}

const USAGE: &str = "usage: stress [--seed N] [--cases N | --per-pair K] [--formats a,b] [--mistakes x,y] \
[--fuzzy T] [--jobs N] [--json FILE] [--markdown FILE] [--fail-on-wrong] [--show N] [--list VERDICT] \
[--one-place] [--cli BIN [--cli-every K]] [--mcp [--mcp-every K]] [--dump DIR --case ID] [--pairs FILE]";

fn names(list: &str, all: &[&'static str]) -> Result<Vec<&'static str>, String> {
    list.split(',')
        .map(|n| {
            known(all, n.trim())
                .ok_or_else(|| format!("unknown name `{n}`; known: {}", all.join(", ")))
        })
        .collect()
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        seed: 1,
        cases: None,
        per_pair: None,
        formats: formats::ALL.to_vec(),
        mistakes: mistakes::ALL.to_vec(),
        fuzzy: None,
        jobs: 1,
        json: None,
        markdown: None,
        fail_on_wrong: false,
        show: 10,
        list: None,
        one_place_only: false,
        cli: None,
        cli_every: 25,
        mcp: false,
        mcp_every: 1,
        dump: None,
        case: None,
        pairs: pairs::shared_dir().join("stress/pairs.jsonl"),
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || {
            it.next()
                .ok_or_else(|| format!("{flag} needs a value\n{USAGE}"))
        };
        let num = |v: String| {
            v.parse::<u64>()
                .map_err(|_| format!("{flag}: `{v}` is not a number"))
        };
        match flag.as_str() {
            "--seed" => args.seed = num(value()?)?,
            "--cases" => args.cases = Some(num(value()?)? as usize),
            "--per-pair" => args.per_pair = Some(num(value()?)?),
            "--formats" => args.formats = names(&value()?, &formats::ALL)?,
            "--mistakes" => args.mistakes = names(&value()?, &mistakes::ALL)?,
            "--fuzzy" => args.fuzzy = Some(value()?.parse().map_err(|_| "--fuzzy: not a number")?),
            "--jobs" => args.jobs = (num(value()?)? as usize).max(1),
            "--json" => args.json = Some(value()?.into()),
            "--markdown" => args.markdown = Some(value()?.into()),
            "--fail-on-wrong" => args.fail_on_wrong = true,
            "--show" => args.show = num(value()?)? as usize,
            "--list" => args.list = Some(value()?),
            "--one-place" => args.one_place_only = true,
            "--cli" => args.cli = Some(value()?.into()),
            "--cli-every" => args.cli_every = (num(value()?)? as usize).max(1),
            "--mcp" => args.mcp = true,
            "--mcp-every" => args.mcp_every = (num(value()?)? as usize).max(1),
            "--dump" => args.dump = Some(value()?.into()),
            "--case" => args.case = Some(value()?),
            "--pairs" => args.pairs = value()?.into(),
            "-h" | "--help" => return Err(USAGE.into()),
            other => return Err(format!("unknown argument `{other}`\n{USAGE}")),
        }
    }
    if args.cases.is_some() && args.per_pair.is_some() {
        return Err("--cases and --per-pair exclude each other".into());
    }
    Ok(args)
}

/// The ids of a run: every pair × format × mistake `per_pair` times, or
/// `cases` ids cycling through formats and mistakes over random pairs.
fn case_ids(args: &Args, pairs: usize) -> Vec<CaseId> {
    let id = |pair, format, mistake, variant| CaseId {
        seed: args.seed,
        pair,
        format,
        mistake,
        variant,
    };
    if let Some(k) = args.per_pair {
        let mut ids = Vec::new();
        for pair in 0..pairs {
            for &f in &args.formats {
                for &m in &args.mistakes {
                    ids.extend((0..k).map(|v| id(pair, f, m, v)));
                }
            }
        }
        return ids;
    }
    let (nf, nm) = (args.formats.len(), args.mistakes.len());
    (0..args.cases.unwrap_or(2000))
        .map(|i| {
            let pair = Rng::from_parts(&[args.seed, i as u64]).below(pairs);
            id(
                pair,
                args.formats[i % nf],
                args.mistakes[(i / nf) % nm],
                i as u64,
            )
        })
        .collect()
}

/// A judged case, the time its judgement took, and whether one place fits
/// (for the careful-reader mistakes).
type Run = (Judged, Duration, Option<bool>);

/// Builds and judges every id, on `jobs` threads, with the time each
/// judgement took; `None` for the ids that did not fit.
fn run_all(ids: &[CaseId], pairs: &[Pair], args: &Args) -> Vec<Option<Run>> {
    let mut results: Vec<Option<Run>> = vec![None; ids.len()];
    std::thread::scope(|scope| {
        let chunks: Vec<_> = (0..args.jobs)
            .map(|t| {
                scope.spawn(move || {
                    (t..ids.len())
                        .step_by(args.jobs)
                        .map(|i| {
                            (
                                i,
                                case::build(&ids[i], pairs).map(|c| {
                                    let started = Instant::now();
                                    let judged =
                                        judge::judge(&c.payload, &c.draft, c.id.format, args.fuzzy);
                                    let took = started.elapsed();
                                    (judged, took, places::one_place(c.id.mistake, &c.draft))
                                }),
                            )
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        for handle in chunks {
            for (i, judged) in handle
                .join()
                .expect("a stress thread never panics: the engine runs under catch_unwind")
            {
                results[i] = judged;
            }
        }
    });
    results
}

/// Whether a verdict is listed: `wrong` and `crash` by default, else the
/// class given (`unpinnable`, `refused`) or `refused:KIND`.
fn listed(verdict: &Verdict, list: Option<&str>) -> bool {
    match (list, verdict) {
        (None, v) => matches!(v, Verdict::Wrong | Verdict::Crash(_)),
        (Some(want), Verdict::Refused(kind)) if want.starts_with("refused:") => {
            want == format!("refused:{kind}")
        }
        (Some(want), v) => want == v.class(),
    }
}

fn describe(id: &CaseId, pair: &Pair, judged: &Judged) -> String {
    format!(
        "{id}  {} {}@{}:{}  {}",
        match &judged.verdict {
            Verdict::Crash(why) => format!("crash ({why})"),
            v => v.class().to_owned(),
        },
        pair.repo,
        &pair.commit[..12.min(pair.commit.len())],
        pair.path,
        judged.detail
    )
}

fn main() -> ExitCode {
    match run() {
        Ok(code) => code,
        Err(e) => {
            eprintln!("stress: {e}");
            ExitCode::from(2)
        }
    }
}

fn run() -> Result<ExitCode, String> {
    let args = parse_args()?;
    let pairs = pairs::load(&args.pairs)?;
    let skipped = pairs.iter().filter(|p| !p.is_consistent()).count();
    if let Some(dir) = &args.dump {
        let id = CaseId::parse(args.case.as_deref().ok_or("--dump needs --case ID")?)?;
        let case: Case =
            case::build(&id, &pairs).ok_or(format!("case {id} does not fit its pair"))?;
        dump::write_case(dir, &case, &pairs[id.pair])
            .map_err(|e| format!("{}: {e}", dir.display()))?;
        println!(
            "wrote {} (replay: ../shared/corpus/run BIN {})",
            dir.display(),
            dir.display()
        );
        return Ok(ExitCode::SUCCESS);
    }
    // A panic is a verdict (`crash`), not a message on stderr.
    std::panic::set_hook(Box::new(|_| {}));
    let started = Instant::now();
    let ids = case_ids(&args, pairs.len());
    let results = run_all(&ids, &pairs, &args);
    let mut report = Report::default();
    let mut failures = Vec::new();
    let mut slowest: Option<(Duration, &CaseId)> = None;
    for (id, judged) in ids.iter().zip(&results) {
        match judged {
            None => report.not_applicable += 1,
            Some((j, took, one_place)) => {
                if slowest.is_none_or(|(t, _)| took > &t) {
                    slowest = Some((*took, id));
                }
                report.add(id.format, id.mistake, j);
                if *one_place == Some(true) {
                    report.add_one_place(id.mistake, j);
                }
                let where_one_place = !args.one_place_only || *one_place == Some(true);
                if where_one_place && listed(&j.verdict, args.list.as_deref()) {
                    failures.push(describe(id, &pairs[id.pair], j));
                }
            }
        }
    }
    let elapsed = started.elapsed();
    print!("{}", report.text());
    println!(
        "{} cases judged ({} ids did not fit their pair/format; {skipped} inconsistent pairs give none) in {:.1}s, seed {}",
        report.total.cases,
        report.not_applicable,
        elapsed.as_secs_f64(),
        args.seed
    );
    if let Some((took, id)) = slowest {
        println!("slowest case: {id} ({:.1} ms)", took.as_secs_f64() * 1e3);
    }
    if !failures.is_empty() {
        let what = args.list.as_deref().unwrap_or("wrong/crash");
        if args.show == 0 {
            println!("{} {what} cases (--show N lists them)", failures.len());
        } else {
            let shown = args.show.min(failures.len());
            println!(
                "\nfirst {shown} of {} {what} cases (dump one: --dump DIR --case ID):",
                failures.len()
            );
            for f in failures.iter().take(args.show) {
                println!("  {f}");
            }
        }
    }
    let cli_mismatch = match &args.cli {
        Some(bin) => check_cli(bin, &ids, &results, &pairs, &args)?,
        None => 0,
    };
    let mcp_mismatch = if args.mcp {
        check_mcp(&ids, &results, &pairs, &args)?
    } else {
        0
    };
    write_outputs(&report, &args, elapsed)?;
    let failed =
        report.total.wrong + report.total.crash > 0 || cli_mismatch > 0 || mcp_mismatch > 0;
    Ok(if args.fail_on_wrong && failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// Runs every `--cli-every`-th judged case through the binary; returns how
/// many verdicts differ from the in-process ones.
fn check_cli(
    bin: &std::path::Path,
    ids: &[CaseId],
    results: &[Option<Run>],
    pairs: &[Pair],
    args: &Args,
) -> Result<usize, String> {
    let (mut checked, mut differ) = (0, 0);
    for (i, (id, judged)) in ids.iter().zip(results).enumerate() {
        let (Some((judged, _, _)), true) = (judged, i % args.cli_every == 0) else {
            continue;
        };
        let case = case::build(id, pairs).expect("it was built before");
        let via_cli = dump::run_cli(bin, &case, args.fuzzy)?;
        checked += 1;
        if via_cli.verdict != judged.verdict {
            differ += 1;
            println!(
                "cli differs on {id}: in process {:?}, binary {:?} ({})",
                judged.verdict, via_cli.verdict, via_cli.detail
            );
        }
    }
    println!(
        "cli: {checked} cases through {}, {differ} verdicts differ",
        bin.display()
    );
    Ok(differ)
}

/// Runs every `--mcp-every`-th judged case through the MCP server's
/// `apply_response` tool (in process, on files in a scratch directory);
/// prints the verdict counts of both ways and returns how many verdicts
/// differ from the in-process ones.
fn check_mcp(
    ids: &[CaseId],
    results: &[Option<Run>],
    pairs: &[Pair],
    args: &Args,
) -> Result<usize, String> {
    let picked: Vec<(usize, &Judged)> = results
        .iter()
        .enumerate()
        .filter_map(|(i, r)| r.as_ref().map(|(j, _, _)| (i, j)))
        .filter(|(i, _)| i % args.mcp_every == 0)
        .collect();
    let via_mcp: Vec<Result<Judged, String>> = std::thread::scope(|scope| {
        let chunks: Vec<_> = (0..args.jobs)
            .map(|t| {
                let picked = &picked;
                scope.spawn(move || {
                    (t..picked.len())
                        .step_by(args.jobs)
                        .map(|k| {
                            let case =
                                case::build(&ids[picked[k].0], pairs).expect("it was built before");
                            (k, dump::run_mcp(&case, args.fuzzy))
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        let mut out: Vec<Option<Result<Judged, String>>> = vec![None; picked.len()];
        for handle in chunks {
            for (k, judged) in handle.join().expect("an MCP check thread never panics") {
                out[k] = Some(judged);
            }
        }
        out.into_iter()
            .map(|j| j.expect("every case judged"))
            .collect()
    });
    let (mut differ, mut engine_counts, mut mcp_counts) = (0, BTreeMap::new(), BTreeMap::new());
    for ((i, judged), via) in picked.iter().zip(via_mcp) {
        let via = via?;
        *engine_counts
            .entry(judged.verdict.class())
            .or_insert(0usize) += 1;
        *mcp_counts.entry(via.verdict.class()).or_insert(0usize) += 1;
        if via.verdict != judged.verdict {
            differ += 1;
            println!(
                "mcp differs on {}: engine {:?}, MCP tool {:?} ({})",
                ids[*i], judged.verdict, via.verdict, via.detail
            );
        }
    }
    let counts = |m: &BTreeMap<&str, usize>| {
        m.iter()
            .map(|(k, v)| format!("{v} {k}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    println!(
        "mcp: {} cases through the apply_response tool: engine {}; MCP {}; {differ} verdicts differ",
        picked.len(),
        counts(&engine_counts),
        counts(&mcp_counts)
    );
    Ok(differ)
}

/// Writes `--markdown` and `--json`.
fn write_outputs(report: &Report, args: &Args, elapsed: Duration) -> Result<(), String> {
    let matching = args
        .fuzzy
        .map_or("tolerant".to_owned(), |t| format!("fuzzy {t}"));
    if let Some(path) = &args.markdown {
        let head = format!(
            "Seed {}, {matching} matching, {} cases, {:.0}s.\n\n",
            args.seed,
            report.total.cases,
            elapsed.as_secs_f64()
        );
        std::fs::write(path, head + &report.markdown())
            .map_err(|e| format!("{}: {e}", path.display()))?;
    }
    if let Some(path) = &args.json {
        let mut value = serde_json::to_value(report).map_err(|e| e.to_string())?;
        value["seed"] = args.seed.into();
        value["matching"] = matching.into();
        value["seconds"] = elapsed.as_secs_f64().into();
        let text = serde_json::to_string_pretty(&value).map_err(|e| e.to_string())?;
        std::fs::write(path, text + "\n").map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(())
}
