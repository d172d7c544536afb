//! A recording summarised into the result model: per-type results and
//! percentiles from the recorder's histograms, the throughput's interval, the
//! client's CPU, the open loop's and the scheduler's figures, error samples.
//! The driver's recording flows in, the result model's values flow out.

use std::time::Duration;

use hdrhistogram::Histogram;

use crate::driver::{Arrival, OpenLoop, Recording};
use crate::error::ErrorKind;
use crate::recorder::TypeStats;
use crate::result::{
    Counted, CpuResult, ErrorSample, Metric, OpenLoopResult, OperationResult, Percentiles,
    PhaseMeans, SchedulerResult, TypeResult, WireResult,
};
use crate::stats::batch_quantile;
use crate::txn::TxnTypeInfo;

/// The operations' results from their histograms (µs), named as the workload
/// names them; operations never called are left out.
pub fn operation_results(names: &[&str], histograms: &[Histogram<u64>]) -> Vec<OperationResult> {
    names
        .iter()
        .zip(histograms)
        .filter(|(_, h)| !h.is_empty())
        .map(|(name, h)| OperationResult {
            name: (*name).to_string(),
            latency_ms: Percentiles::from_micros(h),
        })
        .collect()
}

/// The 95% interval of the run's throughput (txn/s, what
/// [`crate::result::RunResult::throughput`] reports): the window's whole seconds' completion
/// rates in at most [`batch_quantile::MAX_BATCHES`] batches of consecutive
/// seconds, their means' Student interval widened for the batches'
/// correlation; `None` under [`batch_quantile::MIN_BATCHES`] seconds.
pub fn throughput_interval(rec: &Recording) -> Option<[f64; 2]> {
    rate_interval(rec, Counted::Completed)
}

/// The 95% interval of the rate of `counted` transactions, as
/// [`throughput_interval`] makes it.
pub fn rate_interval(rec: &Recording, counted: Counted) -> Option<[f64; 2]> {
    let of_second = |s: &crate::driver::Second| match counted {
        Counted::Completed => s.completed,
        Counted::Committed => s.committed,
    };
    let of_type = |t: &TypeStats| match counted {
        Counted::Completed => t.completed(),
        Counted::Committed => t.committed,
    };
    let count: u64 = rec.total.measured.iter().map(of_type).sum();
    let throughput = count as f64 / rec.measured.as_secs_f64().max(f64::MIN_POSITIVE);
    let rates: Vec<f64> = rec
        .seconds
        .iter()
        .filter(|s| s.is_whole())
        .map(|s| of_second(s) as f64 / s.length)
        .collect();
    let b = rates.len().min(batch_quantile::MAX_BATCHES);
    if b < batch_quantile::MIN_BATCHES {
        return None;
    }
    let means: Vec<f64> = (0..b)
        .map(|i| {
            let batch = &rates[i * rates.len() / b..(i + 1) * rates.len() / b];
            batch.iter().sum::<f64>() / batch.len() as f64
        })
        .collect();
    batch_quantile::interval(&means, throughput, 0.0).map(|(low, high)| [low, high])
}

/// Give each headline rate the interval of the transactions it counts
/// (a committed rate's is not the completed rate's).
pub fn rate_intervals(metrics: &mut [Metric], rec: &Recording) {
    for m in metrics {
        if let Some(counted) = m.counts {
            m.interval = rate_interval(rec, counted);
        }
    }
}

/// Turn per-type stats into per-type results.
pub fn type_results(types: &[TxnTypeInfo], stats: &[TypeStats]) -> Vec<TypeResult> {
    let all: u64 = stats.iter().map(TypeStats::completed).sum();
    types
        .iter()
        .zip(stats)
        .map(|(info, s)| TypeResult {
            expected_success: info.expected_success,
            success_drifts_to: info.success_drifts_to,
            ..type_result(info.name, info.key, info.mix, s, all)
        })
        .collect()
}

/// The latency of every type's transactions together (the types' histograms
/// added, never their percentiles averaged), the unfinished at their lower bounds.
pub fn total_latency(stats: &[TypeStats]) -> Percentiles {
    let mut all = crate::recorder::new_histogram();
    for s in stats {
        for h in [&s.latency, &s.censored] {
            if !h.is_empty() {
                all.add(h).expect("histograms share bounds");
            }
        }
    }
    Percentiles::from_micros(&all)
}

/// Every type's times on the wire together (µs).
pub fn all_wire(stats: &[TypeStats]) -> Histogram<u64> {
    let mut all = crate::recorder::new_histogram();
    for s in stats.iter().filter(|s| !s.wire.is_empty()) {
        all.add(&s.wire).expect("histograms share bounds");
    }
    all
}

/// The client's own part of a latency figure that the time on the wire
/// leaves (ms), and its share of the figure (0 when the figure is 0).
pub fn client_share(latency_ms: f64, wire_ms: f64) -> (f64, f64) {
    let client = latency_ms - wire_ms;
    let share = if latency_ms > 0.0 {
        client / latency_ms
    } else {
        0.0
    };
    (client, share)
}

/// What the kernel's timestamps said, for a run that read them.
pub fn wire_result(stats: &[TypeStats]) -> WireResult {
    let wire = all_wire(stats);
    let latency = total_latency(stats);
    let completed: u64 = stats.iter().map(|s| s.latency.len()).sum();
    let hardware: u64 = stats.iter().map(|s| s.wire_hardware).sum();
    let round_trips: u64 = stats.iter().map(|s| s.wire_round_trips).sum();
    let total_wire_ms = Percentiles::from_micros(&wire);
    WireResult {
        clock: match (hardware, wire.len() - hardware) {
            (0, _) => "software",
            (_, 0) => "hardware",
            _ => "hardware and software",
        }
        .to_string(),
        stamped: wire.len(),
        unstamped: completed.saturating_sub(wire.len()),
        round_trips_per_transaction: round_trips as f64 / wire.len().max(1) as f64,
        client_p50_ms: client_share(latency.p50, total_wire_ms.p50).0,
        client_p99_ms: client_share(latency.p99, total_wire_ms.p99).0,
        total_wire_ms,
    }
}

/// The least lower bound of the given-up transactions' latencies of these
/// types together (ms), if any: the `censored_from_ms` of the total row.
pub fn total_censored_from_ms(stats: &[TypeStats]) -> Option<f64> {
    stats.iter().filter_map(censored_from_ms).reduce(f64::min)
}

fn censored_from_ms(s: &TypeStats) -> Option<f64> {
    (!s.censored.is_empty()).then(|| s.censored.min() as f64 / 1000.0)
}

/// One type's result from its stats; `all` is the completed count of every type.
pub fn type_result(name: &str, key: &str, mix: f64, s: &TypeStats, all: u64) -> TypeResult {
    TypeResult {
        name: name.to_string(),
        key: key.to_string(),
        committed: s.committed,
        expected_rollbacks: s.expected_rollbacks,
        retries: s.retries,
        retry_causes: s.retry_causes.clone(),
        errors: ErrorKind::ALL
            .iter()
            .zip(s.errors)
            .filter(|(_, n)| *n > 0)
            .map(|(k, n)| (k.name().to_string(), n))
            .collect(),
        unfinished: s.unfinished,
        shed: s.shed,
        abandoned: s.censored.len().saturating_sub(s.shed),
        censored_from_ms: censored_from_ms(s),
        share: if all > 0 {
            s.completed() as f64 / all as f64
        } else {
            0.0
        },
        spec_share: mix,
        expected_success: None,
        success_drifts_to: None,
        latency_ms: Percentiles::from_micros(&s.latency_with_censored()),
        service_ms: Percentiles::from_micros(&s.service),
        queue_ms: Percentiles::from_micros(&s.queue),
        wire_ms: (!s.wire.is_empty()).then(|| Percentiles::from_micros(&s.wire)),
        latency_intervals_ms: Vec::new(),
        phases_ms: phase_means(s),
        answer_rows: None,
    }
}

/// The mean phases of a type's completed transactions.
pub fn phase_means(s: &TypeStats) -> PhaseMeans {
    let n = s.completed();
    if n == 0 {
        return PhaseMeans::default();
    }
    let mean = |us: u64| us as f64 / n as f64 / 1000.0;
    let [begin, statements, commit] = s.phase_us.map(mean);
    PhaseMeans {
        queue: s.queue.mean() / 1000.0,
        begin,
        statements,
        commit,
        other: (s.service.mean() / 1000.0 - begin - statements - commit).max(0.0),
    }
}

/// The CPU part of a result from a recording.
pub fn cpu_result(rec: &Recording) -> CpuResult {
    let process = rec.cpu.process.as_secs_f64();
    // Busy wall time can exceed the process's CPU when the OS preempted the thread.
    let engine = rec
        .cpu
        .engine_threads
        .map(|d: Duration| d.as_secs_f64().min(process));
    CpuResult {
        process_secs: process,
        engine_thread_secs: engine,
        driver_share: engine
            .filter(|_| process > 0.0)
            .map(|e| ((process - e) / process).max(0.0)),
    }
}

/// The open-loop part of a result from a recording and its load.
pub fn open_loop_result(rec: &Recording, load: &OpenLoop) -> Option<OpenLoopResult> {
    let d = rec.dispatch.as_ref()?;
    let secs = rec.measured.as_secs_f64();
    let per_sec = |n: u64| if secs > 0.0 { n as f64 / secs } else { 0.0 };
    let achieved = per_sec(rec.total.completed());
    let offered = load.rate.mean_over(secs);
    let lateness = micros_percentiles(&rec.total.lateness);
    Some(OpenLoopResult {
        arrival: format!("{:?}", load.arrival).to_lowercase(),
        offered_rate: offered,
        schedule: (!load.rate.is_constant()).then(|| load.rate.to_string()),
        scheduled_rate: per_sec(d.scheduled),
        achieved_rate: achieved,
        achieved_ratio: achieved / offered,
        shed: d.shed,
        lateness_us: lateness,
        send_gaps_anderson_darling: (load.arrival == Arrival::Poisson)
            .then(|| crate::stats::anderson_darling::exponential(&d.send_gaps))
            .flatten()
            .map(|ad| ad.statistic),
        send_gaps_thinned_to: d.gap_test_rate,
        dispatchers: d.threads,
        pacing: Some(if load.spins() { "spin" } else { "sleep" }.to_string()),
        dispatcher_cpu_us_per_arrival: d.cpu_per_arrival().map(|c| c.as_secs_f64() * 1e6),
    })
}

/// Percentiles of a histogram in microseconds, kept in microseconds.
fn micros_percentiles(h: &Histogram<u64>) -> Percentiles {
    // from_micros reports milliseconds.
    Percentiles::from_micros(h).scaled(1000.0)
}

/// The closed-loop scheduler's part of a result.
pub fn scheduler_result(rec: &Recording) -> Option<SchedulerResult> {
    let s = rec.scheduler.as_ref()?;
    Some(SchedulerResult {
        terminals: s.terminals,
        scheduled: s.scheduled,
        lateness_us: micros_percentiles(&rec.total.lateness),
    })
}

/// The error samples of a recording.
pub fn error_samples(rec: &Recording) -> Vec<ErrorSample> {
    rec.total
        .error_samples
        .iter()
        .map(|(k, m)| ErrorSample {
            kind: k.name().to_string(),
            message: m.clone(),
        })
        .collect()
}
