#!/usr/bin/env python3
"""Times the CLI on each workload against the whole-process floor; called by
scripts/bench (which builds both programs and runs criterion first).

For each workload, RUNS times: `llm-edit-lsp apply`, the floor
(examples/bench_floor.rs: one sync after the other) and the floor syncing
16 files at a time, taking turns (which goes first rotates too),
each on a fresh copy of before/ made and synced (`sync -f`) outside the
timing; every result is checked against after/. Then RUNS `apply --dry-run`
on before/ itself. Wall time is taken around the process (posix_spawn to
wait4), peak RSS from wait4's rusage. The floor's own untimed shortcut
(reading after/, which it prints as `shortcut_ns`) is subtracted from its
wall time, so both figures count process start, the work and exit.
Medians are reported. With --floor-static, the floor linked statically
(as scripts/shipped links ours) takes its turn too. With --baseline-bin, another build of apply (an
earlier commit) takes its turn too, on the same copies, for a side-by-side
comparison under the same load. stdlib only.
"""

import argparse
import datetime
import filecmp
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

WORKLOADS = [
    "W1-exact-10mb",
    "W2-200-edits-10mb",
    "W3-fuzzy-10k",
    "W3h-fuzzy-10k-hint",
    "W4-many-small",
    "W5-big-response",
]
TARGETS = [
    ("(a) exact 5-line SEARCH, 10 MB / 250k lines", "< 5 ms", "targets/a_exact_search_10mb"),
    ("(b) 200 edit_file edits on it, resolve + plan", "< 100 ms", "targets/b_edit_file_200_resolve_plan"),
    ("(c) 20-line fuzzy SEARCH (0.9, no hint), 10k lines", "< 50 ms", "targets/c_fuzzy_20_lines_10k"),
    ("(d) parse 5 MB response, 2,000 blocks", "< 50 ms", "targets/d_parse_5mb_2000_blocks"),
]
RATIO_TARGET = 1.5
# The in-process targets (ms), criterion `apply/*`.
IN_PROCESS_TARGETS = [("W1", 1), ("W2", 15), ("W3", 8), ("W3h", 0.5), ("W4", 6), ("W5", 20)]
PARALLEL_SYNCS = 16


def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def criterion_ms(criterion_dir, name):
    path = os.path.join(criterion_dir, name, "new", "estimates.json")
    try:
        with open(path) as f:
            return json.load(f)["mean"]["point_estimate"] / 1e6
    except (OSError, KeyError, ValueError):
        return None


def run(argv, out_path):
    """Runs argv with stdout to out_path; returns (wall ns, peak RSS KiB)."""
    with open(out_path, "wb") as out:
        actions = [(os.POSIX_SPAWN_DUP2, out.fileno(), 1)]
        start = time.perf_counter_ns()
        pid = os.posix_spawn(argv[0], argv, os.environ, file_actions=actions)
        _, status, usage = os.wait4(pid, 0)
        wall = time.perf_counter_ns() - start
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        with open(out_path, "rb") as f:
            sys.exit(f"bench: {' '.join(argv)} exited with {code}:\n{f.read().decode(errors='replace')}")
    return wall, usage.ru_maxrss


def same_tree(a, b):
    cmp = filecmp.dircmp(a, b)
    if cmp.left_only or cmp.right_only or cmp.funny_files:
        return False
    _, mismatch, errors = filecmp.cmpfiles(a, b, cmp.common_files, shallow=False)
    if mismatch or errors:
        return False
    return all(same_tree(os.path.join(a, d), os.path.join(b, d)) for d in cmp.common_dirs)


def fresh_copy(src, dst):
    shutil.rmtree(dst, ignore_errors=True)
    subprocess.run(["cp", "-r", src, dst], check=True)
    # Flush the copy now, so that its writeback does not land in a timed run.
    subprocess.run(["sync", "-f", dst], check=True)


def median_ms(ns):
    return statistics.median(ns) / 1e6


def measure(args, w, work):
    wdir = os.path.join(args.data, w)
    payload = os.path.join(wdir, "payload.md")
    extra = ["--fuzzy", "0.9"] if w.startswith("W3") else []
    ours_cmd = [args.bin, "apply", "--root", os.path.join(work, "root")] + extra + [payload]
    base_cmd = [args.baseline_bin] + ours_cmd[1:] if args.baseline_bin else None
    floor_cmd = [args.floor, wdir, os.path.join(work, "root")]
    static_cmd = [args.floor_static] + floor_cmd[1:] if args.floor_static else None
    commands = {
        "ours": ours_cmd,
        "baseline": base_cmd,
        "floor": floor_cmd,
        "floor_parallel": floor_cmd + [str(PARALLEL_SYNCS)],
        "floor_static": static_cmd,
    }
    out = os.path.join(work, "out")
    ours, ours_rss, ok = [], 0, True
    floors = {"floor": [], "floor_parallel": [], "floor_static": [], "baseline": []}
    turn = ["ours", "floor", "floor_parallel"] + (["floor_static"] if static_cmd else []) + (["baseline"] if base_cmd else [])
    # One untimed round first: after the page cache is dropped (see
    # `settle_page_cache`), the first run of each program reads it back
    # from disk.
    for who in turn:
        fresh_copy(os.path.join(wdir, "before"), os.path.join(work, "root"))
        run(commands[who], out)
    for i in range(args.runs):
        k = i % len(turn)
        for who in turn[k:] + turn[:k]:
            fresh_copy(os.path.join(wdir, "before"), os.path.join(work, "root"))
            wall, rss = run(commands[who], out)
            if who == "ours":
                ours.append(wall)
                ours_rss = max(ours_rss, rss)
                ok = ok and same_tree(os.path.join(work, "root"), os.path.join(wdir, "after"))
            elif who == "baseline":
                floors[who].append(wall)
            else:
                with open(out) as f:
                    shortcut = int(f.read().split()[1])
                floors[who].append(wall - shortcut)
                if not same_tree(os.path.join(work, "root"), os.path.join(wdir, "after")):
                    sys.exit(f"bench: the floor did not produce {w}/after")
    dry, dry_rss = [], 0
    dry_cmd = [args.bin, "apply", "--dry-run", "--root", os.path.join(wdir, "before")] + extra + [payload]
    for _ in range(args.runs):
        wall, rss = run(dry_cmd, out)
        dry.append(wall)
        dry_rss = max(dry_rss, rss)
    size = sum(
        os.path.getsize(os.path.join(d, f))
        for d, _, fs in os.walk(os.path.join(wdir, "before"))
        for f in fs
    )
    short = w.split("-")[0]
    floor, parallel = floors["floor"], floors["floor_parallel"]
    return {
        "workload": w,
        "criterion_in_process_ms": criterion_ms(args.criterion, f"workloads/{short}"),
        "criterion_syntax_ms": criterion_ms(args.criterion, f"syntax/{short}"),
        "ours_ms": median_ms(ours),
        "floor_ms": median_ms(floor),
        "ratio": median_ms(ours) / median_ms(floor),
        "ours_runs_ms": [n / 1e6 for n in ours],
        "floor_runs_ms": [n / 1e6 for n in floor],
        "floor_parallel_syncs_ms": median_ms(parallel),
        "ratio_to_floor_parallel_syncs": median_ms(ours) / median_ms(parallel),
        "floor_parallel_syncs_runs_ms": [n / 1e6 for n in parallel],
        "floor_static_ms": median_ms(floors["floor_static"]) if static_cmd else None,
        "ratio_to_floor_static": median_ms(ours) / median_ms(floors["floor_static"]) if static_cmd else None,
        "floor_static_runs_ms": [n / 1e6 for n in floors["floor_static"]],
        "baseline_ms": median_ms(floors["baseline"]) if base_cmd else None,
        "baseline_ratio": median_ms(floors["baseline"]) / median_ms(floor) if base_cmd else None,
        "baseline_runs_ms": [n / 1e6 for n in floors["baseline"]],
        "apply_peak_rss_mb": ours_rss / 1024,
        "dry_run_ms": median_ms(dry),
        "dry_run_peak_rss_mb": dry_rss / 1024,
        "dry_run_rss_per_input": dry_rss * 1024 / size,
        "result_is_after": ok,
    }


def fmt(x, digits=2):
    return "-" if x is None else f"{x:.{digits}f}"


def git_commit(root):
    try:
        head = subprocess.run(["git", "-C", root, "rev-parse", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", root, "status", "--porcelain", "--untracked-files=no"], capture_output=True, text=True).stdout.strip()
        return head + ("-dirty" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return None


def settle_page_cache():
    """Drops the page cache when this process may (root), so that every
    binary timed is read back from disk the same way. Identical copies of
    one binary were seen 0.17 ms apart on W3 depending on how their pages
    sat in the page cache (a copy just written against one read back:
    docs/benchmarks.md, twelfth stop). Returns what was done, for the
    report."""
    try:
        os.sync()
        with open("/proc/sys/vm/drop_caches", "w") as f:
            f.write("3\n")
        return "dropped before timing"
    except OSError:
        return "as found (could not drop it: not root)"


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bin", required=True)
    p.add_argument("--floor", required=True)
    p.add_argument("--floor-static", help="the floor linked statically, timed in turn too")
    p.add_argument("--data", required=True)
    p.add_argument("--criterion", required=True, help="criterion's output folder")
    p.add_argument("--runs", type=int, default=11)
    p.add_argument("--json", help="write every figure to this file")
    p.add_argument("--compare", help="a file written by --json earlier: show its ratios beside")
    p.add_argument("--load-start", help="the load average when the run began")
    p.add_argument("--baseline-bin", help="another llm-edit-lsp build, timed in turn with the others")
    p.add_argument("--only", help="comma-separated workload ids (W1,W4) or folder names under --data")
    args = p.parse_args()

    load_start = args.load_start or loadavg()
    page_cache = settle_page_cache()
    print(f"== page cache: {page_cache}", file=sys.stderr)
    workloads = WORKLOADS
    if args.only:
        # Any workload folder of the data (a case made by hand too).
        wanted = args.only.split(",")
        present = sorted(d for d in os.listdir(args.data) if os.path.isfile(os.path.join(args.data, d, "payload.md")))
        workloads = [w for w in present if w.split("-")[0] in wanted or w in wanted]
    with tempfile.TemporaryDirectory(prefix="bench-cli-", dir=os.environ.get("BENCH_WORK")) as work:
        rows = []
        for w in workloads:
            print(f"== {w}: {args.runs} runs of apply and of each floor, taking turns", file=sys.stderr)
            rows.append(measure(args, w, work))
    load_end = loadavg()
    old = {}
    if args.compare:
        with open(args.compare) as f:
            old = {r["workload"]: r for r in json.load(f)["workloads"]}

    print()
    print("Targets (criterion mean, in process):")
    print()
    print("| target | goal | measured (ms) |")
    print("|---|---|---|")
    targets = []
    for label, goal, name in TARGETS:
        ms = criterion_ms(args.criterion, name)
        targets.append({"target": label, "goal": goal, "criterion_ms": ms})
        print(f"| {label} | {goal} | {fmt(ms)} |")
    print()
    print("In process, beside the no-check applier (criterion means of the same run: `apply/*` is ours, parse + resolve + plan with every check, the syntax check left to run beside the writes; `peer/*` is the method of the fastest other appliers, one substring search per block from where the last one ended, blocks split per file beforehand, no check; W3's typos need a fuzzy applier):")
    print()
    print("| workload | target (ms) | ours (ms) | met | no-check applier (ms) | ours / it |")
    print("|---|---|---|---|---|---|")
    in_process = []
    for short, goal in IN_PROCESS_TARGETS:
        ours = criterion_ms(args.criterion, f"apply/{short}")
        peer = criterion_ms(args.criterion, f"peer/{short}")
        in_process.append({"workload": short, "target_ms": goal, "ours_ms": ours, "no_check_applier_ms": peer})
        met = "-" if ours is None else ("yes" if ours <= goal else "NO")
        ratio = f"{ours / peer:.2f}x" if ours and peer else "-"
        print(f"| {short} | ≤ {goal:g} | {fmt(ours)} | {met} | {fmt(peer)} | {ratio} |")
    print()
    print(f"Workloads (in process = criterion mean of parse+resolve+plan; CLI = median wall time of {args.runs} runs incl. process start, reads, writes):")
    print()
    print("| workload | in process (ms) | of which syntax check (ms) | CLI apply (ms) | apply peak RSS (MB) | CLI --dry-run (ms) | dry-run peak RSS (MB) | dry-run RSS / input size | result = after/ |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['workload']} | {fmt(r['criterion_in_process_ms'])} | {fmt(r['criterion_syntax_ms'])} "
            f"| {fmt(r['ours_ms'], 1)} | {r['apply_peak_rss_mb']:.0f} | {fmt(r['dry_run_ms'], 1)} "
            f"| {r['dry_run_peak_rss_mb']:.0f} | {r['dry_run_rss_per_input']:.2f} | {'yes' if r['result_is_after'] else 'NO'} |"
        )
    print()
    print(f"Whole process, ratio to the floor (median of {args.runs} runs each, taking turns; the floor reads the payload and the changed files, writes temps, fsyncs them, renames, fsyncs each folder once; 'parallel syncs': the same, {PARALLEL_SYNCS} fsyncs at a time; 'linked statically': the floor built with `crt-static`, as scripts/shipped builds ours; ours is {os.environ.get('BENCH_LINKING') or 'as built'}):")
    print()
    head = "| workload | ours (ms) | floor (ms) | ratio | target ≤ 1.5x | floor, parallel syncs (ms) | ratio to it |"
    static = args.floor_static is not None
    if static:
        head += " floor, linked statically (ms) | ratio to it |"
    base = args.baseline_bin is not None
    if base:
        head += " baseline build (ms) | its ratio |"
    if old:
        head += " ratio before |"
    print(head)
    print("|---|---|---|---|---|---|---|" + ("---|---|" if static else "") + ("---|---|" if base else "") + ("---|" if old else ""))
    for r in rows:
        line = (
            f"| {r['workload']} | {r['ours_ms']:.1f} | {r['floor_ms']:.1f} | {r['ratio']:.2f}x | {'yes' if r['ratio'] <= RATIO_TARGET else 'NO'} "
            f"| {r['floor_parallel_syncs_ms']:.1f} | {r['ratio_to_floor_parallel_syncs']:.2f}x |"
        )
        if static:
            line += f" {r['floor_static_ms']:.1f} | {r['ratio_to_floor_static']:.2f}x |"
        if base:
            line += f" {r['baseline_ms']:.1f} | {r['baseline_ratio']:.2f}x |"
        if old:
            before = old.get(r["workload"], {}).get("ratio")
            line += f" {fmt(before)}{'x' if before else ''} |"
        print(line)
    print()
    print(f"Load average (1, 5, 15 min): {load_start} at start, {load_end} at end")

    if args.json:
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        report = {
            "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "git_commit": git_commit(root),
            "runs": args.runs,
            "loadavg_start": load_start,
            "loadavg_end": load_end,
            "ratio_target": RATIO_TARGET,
            # The build given, not its installed copy (scripts/bench).
            "baseline_bin": os.environ.get("BENCH_BASELINE_GIVEN", args.baseline_bin),
            "timed_as": "installed copies (scripts/bench copies each binary before timing)",
            "page_cache": page_cache,
            # The Cargo profile ours was built with (scripts/bench: release-lto).
            "profile": os.environ.get("BENCH_PROFILE_USED"),
            # How ours is linked (scripts/shipped linking): static-pie or dynamic.
            "linking": os.environ.get("BENCH_LINKING"),
            "targets": targets,
            "in_process": in_process,
            "workloads": rows,
        }
        with open(args.json, "w") as f:
            json.dump(report, f, indent=2)
            f.write("\n")
        print(f"figures written to {args.json}", file=sys.stderr)


if __name__ == "__main__":
    main()
