// SPDX-License-Identifier: MIT
//! refbench - the reference implementation's load + playback rate, for
//! bench/run.py --reference (docs/performance.md, "The reference measured in
//! the same run").  bench/reference/build.sh builds it against Agent
//! Harbor's ah-scenario-format crate, copied out of tree; none of that
//! crate's code is in this repository.
//!
//!   refbench check FILE...
//!       loads and plays each file once: `ok PATH` or `rejected PATH: MESSAGE`
//!       per file (the reference rejects some files scc accepts)
//!   refbench files [--runs N] [--warmup N] [--min-time S] FILE...
//!       every file must load; a pass loads each file with Scenario::from_file
//!       and plays it to the end with PlaybackIterator, counting events.
//!       Prints files, bytes, events (per pass), then load_play_*, load_*
//!       (from_file alone) and play_* (PlaybackIterator::new and iterating,
//!       of scenarios loaded once) as *_sec (median seconds per pass),
//!       *_scen_s and *_events_s, as bench/bench_vm does.
//!
//! Timing as bench/bench_util.h: one untimed pass fixes the repeat count so a
//! timed run lasts at least --min-time, --warmup passes in all before timing,
//! --runs timed runs, the median reported (defaults 7, 2, 0.1 s).

use ah_scenario_format::{PlaybackIterator, PlaybackOptions, Scenario};
use std::process::exit;
use std::time::Instant;

struct Opts {
    runs: usize,
    warmup: usize,
    min_time: f64,
}

fn usage() -> ! {
    eprintln!("usage: refbench check FILE... | refbench files [--runs N] [--warmup N] [--min-time S] FILE...");
    exit(2);
}

fn bad_value(opt: &str, v: &str) -> ! {
    eprintln!("refbench: bad value for {}: {}", opt, v);
    exit(2);
}

/// One file: load, then play to the end.  Returns the events played.
fn load_play(path: &str) -> Result<u64, String> {
    let s = Scenario::from_file(path).map_err(|e| e.to_string())?;
    let it = PlaybackIterator::new(&s, PlaybackOptions::default()).map_err(|e| e.to_string())?;
    Ok(it.count() as u64)
}

fn pass_load_play(files: &[String]) -> u64 {
    let mut events = 0;
    for f in files {
        match load_play(f) {
            Ok(n) => events += n,
            Err(e) => {
                eprintln!("refbench: {}: rejected: {}", f, e);
                exit(1);
            }
        }
    }
    events
}

fn pass_load(files: &[String]) -> u64 {
    let mut n = 0;
    for f in files {
        match Scenario::from_file(f) {
            Ok(s) => n += s.timeline.len() as u64,
            Err(e) => {
                eprintln!("refbench: {}: rejected: {}", f, e);
                exit(1);
            }
        }
    }
    n
}

/// Plays scenarios loaded once; returns the events.
fn play_all(loaded: &[Scenario]) -> u64 {
    let mut events = 0;
    for s in loaded {
        match PlaybackIterator::new(s, PlaybackOptions::default()) {
            Ok(it) => events += it.count() as u64,
            Err(e) => {
                eprintln!("refbench: playback: {}", e);
                exit(1);
            }
        }
    }
    events
}

/// Median seconds per call of pass(files), as bench_time() in bench_util.h.
fn time_it<T: ?Sized>(o: &Opts, files: &T, pass: fn(&T) -> u64) -> f64 {
    let mut sink = 0u64;
    let t0 = Instant::now();
    sink = sink.wrapping_add(pass(files));
    let one = t0.elapsed().as_secs_f64();
    for _ in 1..o.warmup {
        sink = sink.wrapping_add(pass(files));
    }
    let reps = if one > 0.0 { (o.min_time / one) as u64 + 1 } else { 1000 };
    let mut v = Vec::with_capacity(o.runs);
    for _ in 0..o.runs {
        let t0 = Instant::now();
        for _ in 0..reps {
            sink = sink.wrapping_add(pass(files));
        }
        v.push(t0.elapsed().as_secs_f64() / reps as f64);
    }
    // The passes read files and allocate, so none is optimised away; the
    // sum is kept so their results are used (std::hint::black_box needs a
    // newer rustc than Debian's).
    unsafe { std::ptr::read_volatile(&sink) };
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.is_empty() {
        usage();
    }
    let mode = args[0].as_str();
    let mut o = Opts { runs: 7, warmup: 2, min_time: 0.1 };
    let mut i = 1;
    while i + 1 < args.len() && args[i].starts_with("--") {
        let (k, v) = (&args[i], &args[i + 1]);
        match k.as_str() {
            "--runs" => o.runs = v.parse().unwrap_or_else(|_| bad_value(k, v)),
            "--warmup" => o.warmup = v.parse().unwrap_or_else(|_| bad_value(k, v)),
            "--min-time" => o.min_time = v.parse().unwrap_or_else(|_| bad_value(k, v)),
            _ => usage(),
        }
        i += 2;
    }
    o.runs = o.runs.clamp(1, 99);
    let files = &args[i..];
    if files.is_empty() {
        usage();
    }
    match mode {
        "check" => {
            for f in files {
                match load_play(f) {
                    Ok(_) => println!("ok {}", f),
                    Err(e) => println!("rejected {}: {}", f, e.replace('\n', " ")),
                }
            }
        }
        "files" => {
            let mut bytes = 0u64;
            for f in files {
                bytes += std::fs::metadata(f).map(|m| m.len()).unwrap_or_else(|e| {
                    eprintln!("refbench: {}: {}", f, e);
                    exit(1)
                });
            }
            let events = pass_load_play(files);
            println!("files {}\nbytes {}\nevents {}", files.len(), bytes, events);
            let n = files.len() as f64;
            for (name, pass) in [("load_play", pass_load_play as fn(&[String]) -> u64), ("load", pass_load)] {
                let s = time_it(&o, files, pass);
                let ev = if name == "load_play" { events as f64 / s } else { 0.0 };
                println!("{name}_sec {s:.9}\n{name}_scen_s {:.1}\n{name}_events_s {ev:.1}", n / s);
            }
            let loaded: Vec<Scenario> = files.iter().map(|f| Scenario::from_file(f).unwrap()).collect();
            let s = time_it(&o, &loaded[..], play_all);
            println!("play_sec {s:.9}\nplay_scen_s {:.1}\nplay_events_s {:.1}", n / s, events as f64 / s);
        }
        _ => usage(),
    }
}
