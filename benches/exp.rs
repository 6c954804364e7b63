use std::collections::HashMap;
use std::time::Instant;
use similar::{capture_diff_deadline, Algorithm, algorithms::{myers, Capture, Compact, Replace}};

fn main() {
    let lines: Vec<String> = (0..100_000).map(|i| match i % 10 { 0 => String::new(), 9 => "}".into(), _ => format!("    let value_{i} = compute({i}, \"item {}\");", i % 97)}).collect();
    let mut side = lines.clone();
    for h in 0..50 { let i = h * 2000 + 3; side[i].push_str(" changed"); side.insert(i + 1, format!("added {h}")); }
    let base: Vec<&str> = lines.iter().map(|s| s.as_str()).collect();
    let new: Vec<&str> = side.iter().map(|s| s.as_str()).collect();
    for alg in [Algorithm::Myers, Algorithm::Patience, Algorithm::Histogram] {
        let t = Instant::now();
        let ops = capture_diff_deadline(alg, &base, 0..base.len(), &new, 0..new.len(), None);
        println!("{alg:?} str: {:?} ops {}", t.elapsed(), ops.len());
    }
    let t = Instant::now();
    let mut ids: HashMap<&str, u32> = HashMap::with_capacity(120_000);
    let mut b = Vec::new(); for l in &base { let k = ids.len() as u32; b.push(*ids.entry(l).or_insert(k)); }
    let mut n = Vec::new(); for l in &new { let k = ids.len() as u32; n.push(*ids.entry(l).or_insert(k)); }
    println!("intern (sip): {:?}", t.elapsed());
    for alg in [Algorithm::Myers, Algorithm::Patience, Algorithm::Histogram] {
        let t = Instant::now();
        let ops = capture_diff_deadline(alg, &b, 0..b.len(), &n, 0..n.len(), None);
        println!("{alg:?} u32: {:?} ops {}", t.elapsed(), ops.len());
    }
    let t = Instant::now();
    let mut d = Compact::new(Replace::new(Capture::new()), &b, &n);
    myers::diff_deadline_raw(&mut d, &b, 0..b.len(), &n, 0..n.len(), None).unwrap();
    println!("raw myers u32: {:?}", t.elapsed());
    let t = Instant::now();
    let mut d = Compact::new(Replace::new(Capture::new()), &base, &new);
    myers::diff_deadline_raw(&mut d, &base, 0..base.len(), &new, 0..new.len(), None).unwrap();
    println!("raw myers str: {:?} ops {}", t.elapsed(), d.into_inner().into_inner().into_ops().len());
}
#[allow(dead_code)]
fn raw_str() {}
