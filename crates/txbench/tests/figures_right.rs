//! Every figure right (issue "Every figure right"): the details a careful
//! reader checks, each asserted as the corrected figure.

mod support;

use support::{text, txbench_output};

/// Text that prints a negative zero ("-0.000 s in all" was on every run's
/// outages line) or a limit without its unit ("(limit 1000)").
fn careless(out: &str) -> Vec<String> {
    let mut found = Vec::new();
    let bytes = out.as_bytes();
    for (i, _) in out.match_indices("-0.") {
        let digits = &bytes[i + 3..];
        let zeros = digits.iter().take_while(|b| **b == b'0').count();
        let ends = digits.get(zeros).is_none_or(|b| !b.is_ascii_digit());
        // "-0.0" where no digit other than 0 follows: a negative zero.
        if zeros > 0 && ends {
            found.push(out[i.saturating_sub(40)..(i + 3 + zeros)].to_string());
        }
    }
    for (i, _) in out.match_indices("(limit ") {
        let rest = &out[i + 7..];
        let number = rest
            .chars()
            .take_while(|c| c.is_ascii_digit() || *c == '.')
            .count();
        if rest[number..].starts_with(')') {
            found.push(out[i..i + 8 + number].to_string());
        }
    }
    found
}

#[test]
fn no_output_prints_a_negative_zero_or_a_limit_without_its_unit() {
    let dir = tempfile::tempdir().unwrap();
    for run in [
        &["tpcc", "-d", "3s", "--warmup", "1s"][..],
        &[
            "tatp",
            "--subscribers",
            "1000",
            "-d",
            "3s",
            "--warmup",
            "1s",
        ],
        &[
            "custom",
            "--workload",
            "smallbank",
            "-d",
            "3s",
            "--warmup",
            "1s",
        ],
    ] {
        let out = txbench_output(dir.path(), run);
        assert!(out.status.success(), "{run:?}: {}", text(&out));
        let said = text(&out);
        assert_eq!(careless(&said), Vec::<String>::new(), "{run:?}: {said}");
    }
    for entry in support::entries_under(&dir.path().join("results")) {
        if entry.extension().is_some_and(|e| e == "json") {
            let json = std::fs::read_to_string(&entry).unwrap();
            assert_eq!(careless(&json), Vec::<String>::new(), "{}", entry.display());
        }
    }
}

#[test]
fn the_careless_finder_finds_what_it_names() {
    assert_eq!(
        careless("0 silence(s), -0.000 s in all"),
        ["0 silence(s), -0.000"]
    );
    assert_eq!(careless("late 3 us (limit 1000)"), ["(limit 1000)"]);
    assert!(careless("-0.05% and -0.001 s, (limit 1000 us)").is_empty());
}

/// SmallBank's headline is committed transactions a second; its interval
/// was of all completed ones (62,950 against 78,261..82,598). Each
/// headline rate now carries the interval of what it counts.
#[test]
fn a_headline_rate_lies_inside_its_own_interval() {
    let dir = tempfile::tempdir().unwrap();
    let run = [
        "custom",
        "--workload",
        "smallbank",
        "-d",
        "11s",
        "--warmup",
        "1s",
    ];
    let out = txbench_output(dir.path(), &run);
    assert!(out.status.success(), "{}", text(&out));
    let summary = support::only_result(&dir.path().join("results"), "summary.json");
    let metrics = summary["metrics"].as_array().unwrap();
    let throughput = metrics.iter().find(|m| m["name"] == "throughput").unwrap();
    assert_eq!(throughput["counts"], "committed", "{throughput}");
    let value = throughput["value"].as_f64().unwrap();
    let [low, high] = [0, 1].map(|i| throughput["interval"][i].as_f64().unwrap());
    assert!(low <= value && value <= high, "{throughput}");
    // The completed rate is another figure, with its own interval.
    let completed = summary["throughput_interval"][1].as_f64().unwrap();
    assert!(completed > high, "{summary}");
}
