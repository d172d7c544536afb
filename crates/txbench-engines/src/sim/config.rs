//! The `sim:` URL: what the simulated server does, e.g.
//! `sim:?service=fixed:4ms&workers=1&stall=1s/10s`.

use std::time::Duration;

use rand_distr::LogNormal;
use txbench_core::ErrorKind;
use txbench_core::rng::Rand;

use crate::target_error::TargetError;

/// How long the server works on one transaction.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Service {
    /// Always the same (`fixed:4ms`): with Poisson arrivals and one worker, an M/D/1 queue.
    Fixed(Duration),
    /// Exponential with this mean (`exp:4ms`): an M/M/c queue.
    Exponential(Duration),
    /// Log-normal with this mean and 99th percentile (`lognormal:4ms/20ms`).
    LogNormal {
        /// The mean.
        mean: Duration,
        /// The 99th percentile.
        p99: Duration,
        /// The distribution of the logarithm of seconds.
        dist: LogNormal<f64>,
    },
}

/// The standard normal's 99th percentile.
const Z99: f64 = 2.326_347_874_040_841;

impl Service {
    /// One service time.
    pub fn draw(&self, rng: &mut Rand) -> Duration {
        match self {
            Service::Fixed(d) => *d,
            Service::Exponential(mean) => {
                Duration::from_secs_f64(rng.exponential(mean.as_secs_f64()))
            }
            Service::LogNormal { dist, .. } => {
                Duration::from_secs_f64(rng.sample(dist).min(3_600.0))
            }
        }
    }

    /// The mean service time.
    pub fn mean(&self) -> Duration {
        match self {
            Service::Fixed(d) | Service::Exponential(d) => *d,
            Service::LogNormal { mean, .. } => *mean,
        }
    }

    fn parse(value: &str) -> Result<Service, String> {
        let (kind, args) = value.split_once(':').ok_or_else(|| {
            format!("service={value}: write fixed:4ms, exp:4ms or lognormal:4ms/20ms")
        })?;
        match kind {
            "fixed" => Ok(Service::Fixed(duration("service", args)?)),
            "exp" | "exponential" => Ok(Service::Exponential(positive("service", args)?)),
            "lognormal" => {
                let (mean, p99) = args.split_once('/').ok_or_else(|| {
                    format!("service={value}: a log-normal takes its mean and p99, e.g. lognormal:4ms/20ms")
                })?;
                let (mean, p99) = (positive("service", mean)?, positive("service", p99)?);
                Ok(Service::LogNormal {
                    mean,
                    p99,
                    dist: lognormal(mean, p99).ok_or_else(|| {
                        format!(
                            "service={value}: a log-normal's p99 lies between its mean and 14.9 times it"
                        )
                    })?,
                })
            }
            other => Err(format!(
                "service={value}: unknown distribution '{other}' (fixed, exp, lognormal)"
            )),
        }
    }
}

/// The log-normal with this mean and p99: with mu and sigma the parameters of
/// the logarithm, mean = exp(mu + sigma^2 / 2) and p99 = exp(mu + z sigma), so
/// sigma solves sigma^2 / 2 - z sigma + ln(p99 / mean) = 0 (the smaller root,
/// which exists while ln(p99 / mean) <= z^2 / 2).
fn lognormal(mean: Duration, p99: Duration) -> Option<LogNormal<f64>> {
    let ratio = (p99.as_secs_f64() / mean.as_secs_f64()).ln();
    let discriminant = Z99 * Z99 - 2.0 * ratio;
    if ratio <= 0.0 || discriminant < 0.0 {
        return None;
    }
    let sigma = Z99 - discriminant.sqrt();
    let mu = mean.as_secs_f64().ln() - sigma * sigma / 2.0;
    LogNormal::new(mu, sigma).ok()
}

/// Stalls: every `period` the server answers nothing for `length`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stall {
    /// How long each stall lasts.
    pub length: Duration,
    /// How often one begins (the first at `period` after the start).
    pub period: Duration,
}

/// A window in which the server is down: every transaction fails at once
/// with a connection error.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Outage {
    /// When it begins, after the server started.
    pub at: Duration,
    /// How long it lasts.
    pub length: Duration,
}

/// What a `sim:` URL asks of the simulated server.
#[derive(Debug, Clone, PartialEq)]
pub struct SimConfig {
    /// Service time per transaction.
    pub service: Service,
    /// Transactions served at once; more wait in its queue, first come first served.
    pub workers: usize,
    /// Periodic stalls.
    pub stall: Option<Stall>,
    /// Windows in which the server is down.
    pub outages: Vec<Outage>,
    /// Share of transactions that fail, and with which kind of error.
    pub errors: Option<(f64, ErrorKind)>,
    /// Share that commit (the rest end in an expected rollback), for every
    /// type (`None` key) or one type by its key; where none is given, the
    /// workload's own expected share.
    pub success: Vec<(Option<String>, f64)>,
    /// The URL, for the results.
    pub display: String,
}

impl Default for SimConfig {
    fn default() -> Self {
        SimConfig {
            service: Service::Fixed(Duration::from_millis(1)),
            workers: 1,
            stall: None,
            outages: Vec::new(),
            errors: None,
            success: Vec::new(),
            display: "sim:".into(),
        }
    }
}

/// The largest worker count (each is a thread).
const MAX_WORKERS: usize = 4096;

impl SimConfig {
    /// Parse what follows `sim:` (empty, or `?key=value&...`).
    pub fn parse(rest: &str) -> Result<SimConfig, TargetError> {
        let bad = |why: String| TargetError(format!("invalid database URL 'sim:{rest}': {why}"));
        let query = match rest {
            "" => "",
            _ => rest.strip_prefix('?').ok_or_else(|| {
                bad("settings follow a '?', e.g. sim:?service=fixed:4ms&workers=1".into())
            })?,
        };
        let mut config = SimConfig {
            display: format!("sim:{rest}"),
            ..SimConfig::default()
        };
        for pair in query.split('&').filter(|p| !p.is_empty()) {
            let (key, value) = pair
                .split_once('=')
                .ok_or_else(|| bad(format!("'{pair}' is not key=value")))?;
            config.set(key, value).map_err(bad)?;
        }
        Ok(config)
    }

    fn set(&mut self, key: &str, value: &str) -> Result<(), String> {
        match key {
            "service" => self.service = Service::parse(value)?,
            "workers" => {
                self.workers = value
                    .parse()
                    .ok()
                    .filter(|w| (1..=MAX_WORKERS).contains(w))
                    .ok_or_else(|| {
                        format!("workers={value}: a whole number from 1 to {MAX_WORKERS}")
                    })?;
            }
            "stall" => {
                let (length, period) = value
                    .split_once('/')
                    .ok_or_else(|| format!("stall={value}: write LENGTH/PERIOD, e.g. 1s/10s"))?;
                let (length, period) = (positive("stall", length)?, positive("stall", period)?);
                if length >= period {
                    return Err(format!(
                        "stall={value}: a stall must be shorter than its period"
                    ));
                }
                self.stall = Some(Stall { length, period });
            }
            "outage" => {
                for one in value.split(',') {
                    let (at, length) = one
                        .split_once('+')
                        .ok_or_else(|| format!("outage={one}: write START+LENGTH, e.g. 20s+13s"))?;
                    self.outages.push(Outage {
                        at: duration("outage", at)?,
                        length: positive("outage", length)?,
                    });
                }
            }
            "errors" => {
                let (share, kind) = value.split_once(':').unwrap_or((value, "conflict"));
                let kind = ErrorKind::ALL
                    .into_iter()
                    .find(|k| k.name() == kind)
                    .ok_or_else(|| {
                        format!("errors={value}: unknown kind '{kind}' (conflict, connection, constraint, data, other)")
                    })?;
                self.errors = Some((share_of("errors", share)?, kind));
            }
            "success" => {
                for one in value.split(',') {
                    match one.split_once(':') {
                        Some((txn, share)) => self
                            .success
                            .push((Some(txn.to_string()), share_of("success", share)?)),
                        None => self.success.push((None, share_of("success", one)?)),
                    }
                }
            }
            other => {
                return Err(format!(
                    "unknown setting '{other}' (service, workers, stall, outage, errors, success)"
                ));
            }
        }
        Ok(())
    }

    /// The share of transactions of type `key` that commit, given the
    /// workload's expected share (`None`: all).
    pub fn success_of(&self, key: &str, expected: Option<f64>) -> f64 {
        let named = self.success.iter().find(|(k, _)| k.as_deref() == Some(key));
        let all = self.success.iter().find(|(k, _)| k.is_none());
        named.or(all).map(|(_, s)| *s).or(expected).unwrap_or(1.0)
    }
}

fn duration(key: &str, text: &str) -> Result<Duration, String> {
    humantime::parse_duration(text)
        .map_err(|e| format!("{key}: '{text}' is not a duration ({e}); write e.g. 4ms or 1s"))
}

fn positive(key: &str, text: &str) -> Result<Duration, String> {
    let d = duration(key, text)?;
    if d.is_zero() {
        return Err(format!("{key}: '{text}' must be more than zero"));
    }
    Ok(d)
}

fn share_of(key: &str, text: &str) -> Result<f64, String> {
    text.parse::<f64>()
        .ok()
        .filter(|s| (0.0..=1.0).contains(s))
        .ok_or_else(|| format!("{key}: '{text}' is not a share from 0 to 1"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_every_setting() {
        let c = SimConfig::parse(
            "?service=fixed:4ms&workers=2&stall=1s/10s&outage=20s+13s&errors=0.05:data&success=0.9,get_new_destination:1",
        )
        .unwrap();
        assert_eq!(c.service, Service::Fixed(Duration::from_millis(4)));
        assert_eq!(c.workers, 2);
        assert_eq!(
            c.stall,
            Some(Stall {
                length: Duration::from_secs(1),
                period: Duration::from_secs(10)
            })
        );
        assert_eq!(c.outages[0].at, Duration::from_secs(20));
        assert_eq!(c.errors, Some((0.05, ErrorKind::Data)));
        assert_eq!(c.success_of("get_new_destination", Some(0.24)), 1.0);
        assert_eq!(c.success_of("update_location", Some(0.62)), 0.9);
        assert_eq!(
            SimConfig::parse("").unwrap().success_of("x", Some(0.5)),
            0.5
        );
    }

    #[test]
    fn names_the_bad_value() {
        for (url, names) in [
            ("?service=fixed:4", "'4'"),
            ("?service=gamma:4ms", "gamma"),
            ("?workers=0", "workers=0"),
            ("?stall=2s/1s", "stall=2s/1s"),
            ("?errors=1.5", "1.5"),
            ("?errors=0.1:oops", "oops"),
            ("?bogus=1", "bogus"),
            ("service=fixed:4ms", "'?'"),
            ("?service=lognormal:4ms/100ms", "14.9"),
        ] {
            let e = SimConfig::parse(url).unwrap_err().0;
            assert!(e.contains(names), "{url}: {e}");
        }
    }

    #[test]
    fn a_lognormal_has_the_mean_and_p99_asked() {
        let s = Service::parse("lognormal:4ms/20ms").unwrap();
        let mut rng = Rand::new(1);
        let mut draws: Vec<f64> = (0..200_000)
            .map(|_| s.draw(&mut rng).as_secs_f64())
            .collect();
        draws.sort_by(f64::total_cmp);
        let mean = draws.iter().sum::<f64>() / draws.len() as f64;
        let p99 = draws[draws.len() * 99 / 100];
        assert!((mean - 0.004).abs() < 0.0001, "mean {mean}");
        assert!((p99 - 0.020).abs() < 0.0008, "p99 {p99}");
    }
}
