//! The model's code computes logarithms, exponentials, powers and cube roots only through
//! `sim::math`, whose results do not depend on the machine's C library (see that module). A
//! direct `f64::ln` or `powf` would make the same scenario and seed give other results on
//! another machine, and no test run on one machine could see it: this scan is the guard.

use std::path::Path;

/// Calls whose result depends on the platform's maths library or on how LLVM lowers them.
const PLATFORM_DEPENDENT: [&str; 16] = [
    ".ln(", ".log(", ".log2(", ".log10(", ".exp(", ".exp2(", ".exp_m1(", ".ln_1p(", ".powf(", ".powi(",
    ".cbrt(", ".sin(", ".cos(", ".tan(", ".tanh(", ".hypot(",
];

fn scan(dir: &Path, found: &mut Vec<String>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            scan(&path, found);
            continue;
        }
        if path.extension().is_none_or(|e| e != "rs") || path.ends_with("tests.rs") || path.ends_with("sim/math.rs") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        for (i, line) in text.lines().enumerate() {
            // The model's code comes first; unit tests may use std's functions for expected values.
            if line.trim_start().starts_with("#[cfg(test)]") {
                break;
            }
            let code = line.split("//").next().unwrap();
            for call in PLATFORM_DEPENDENT {
                if code.contains(call) {
                    found.push(format!("{}:{}: {}", path.display(), i + 1, line.trim()));
                }
            }
        }
    }
}

#[test]
fn the_model_calls_no_platform_maths() {
    let mut found = Vec::new();
    scan(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"), &mut found);
    assert!(
        found.is_empty(),
        "use pinchpoint_core::sim::math (ln, exp, pow, powi, cbrt) instead; these calls give other bits on other machines:\n{}",
        found.join("\n")
    );
}
