//! Drawing a workload file's values: each [`Generator`] made ready for a
//! scale ([`Draw`]), then drawn from a terminal's or a load batch's random
//! stream. The key generators share, per `table.column`, the next key an
//! insert takes ([`NextKeys`]), so that `latest` follows the inserts and
//! `next-key` never repeats a key within a run.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};

use txbench_core::keys::KeyChooser;
use txbench_core::rng::{Rand, WeightedIndex};
use txbench_core::schema::ColumnType;
use txbench_core::value::Value;

use super::spec::{Generator, KeyRange, Sum};

/// The inserts into each `table.column` that inserts draw from, shared by
/// every terminal of a run.
#[derive(Debug, Default)]
pub struct NextKeys(std::sync::Mutex<BTreeMap<String, Arc<Inserts>>>);

impl NextKeys {
    /// The inserts into `keys` at `scale`: they start past the keys loaded.
    pub fn of(&self, keys: &KeyRange, scale: i64) -> Arc<Inserts> {
        let mut all = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let name = format!("{}.{}", keys.table, keys.column);
        Arc::clone(all.entry(name).or_insert_with(|| {
            Arc::new(Inserts::from(
                keys.start.saturating_add(loaded(keys, scale)),
            ))
        }))
    }

    /// Start the inserts into `keys` past `largest`, a key already in the
    /// table (an earlier run's insert), unless they start past it already.
    pub fn start_past(&self, keys: &KeyRange, scale: i64, largest: i64) {
        let inserts = self.of(keys, scale);
        let next = largest.saturating_add(1);
        inserts.next.fetch_max(next, Ordering::Relaxed);
        let mut pending = inserts.pending.lock().unwrap_or_else(|e| e.into_inner());
        pending.retain(|&k| k > largest);
        inserts.done.fetch_max(largest, Ordering::Relaxed);
    }
}

/// The keys of one column that inserts take, and those whose inserts are
/// done: `latest` reads back from the newest key below which every insert is
/// done (YCSB's acknowledged counter), so that a read never asks for a key
/// whose insert is still on its way.
#[derive(Debug)]
pub struct Inserts {
    /// The key the next insert takes.
    next: AtomicI64,
    /// Every key up to this one is done.
    done: AtomicI64,
    /// Keys done past `done`, waiting for the ones before them.
    pending: std::sync::Mutex<std::collections::BTreeSet<i64>>,
}

impl Inserts {
    fn from(first: i64) -> Inserts {
        Inserts {
            next: AtomicI64::new(first),
            done: AtomicI64::new(first.saturating_sub(1)),
            pending: std::sync::Mutex::new(Default::default()),
        }
    }

    /// The insert of `key` is over (committed, rolled back or failed, as
    /// YCSB acknowledges it whatever happened: a key left out would hold
    /// `latest` back for the rest of the run).
    pub fn done(&self, key: i64) {
        let mut pending = self.pending.lock().unwrap_or_else(|e| e.into_inner());
        let mut done = self.done.load(Ordering::Relaxed);
        if key <= done {
            return;
        }
        pending.insert(key);
        while done
            .checked_add(1)
            .is_some_and(|next| pending.remove(&next))
        {
            done += 1;
        }
        self.done.store(done, Ordering::Relaxed);
    }

    /// The key for the next insert. Keys stop at `i64::MAX` rather than
    /// wrap: past it each insert repeats the last key, which the database
    /// refuses as a duplicate (an error counted, never a key drawn below).
    fn take_next(&self) -> i64 {
        match self
            .next
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |k| k.checked_add(1))
        {
            Ok(k) | Err(k) => k,
        }
    }

    /// The newest key below which every insert is done.
    pub fn newest_done(&self) -> i64 {
        self.done.load(Ordering::Relaxed)
    }
}

/// The keys `keys` has at `scale`.
fn loaded(keys: &KeyRange, scale: i64) -> i64 {
    keys.rows.at(scale)
}

/// The seed of the streams a `seeded_by` value is drawn from, one a key:
/// fixed, so that a key's value is the same under every load and run seed.
const SEEDED_STREAMS: u64 = 0x5eed_ed0f_0a11_4e75;

/// A generator ready to draw at one scale.
#[derive(Debug, Clone)]
pub enum Draw {
    /// `start + row / per`.
    Sequence(i64, i64),
    /// Uniform in `[min, max]`.
    Uniform(i64, i64),
    /// Normal over `[min, max]` ([`Generator::Normal`]).
    Normal(i64, i64),
    /// Zipfian ranks over the keys from `start`, scrambled or not.
    Zipfian {
        /// The first key.
        start: i64,
        /// The ranks.
        ranks: KeyChooser,
        /// Whether ranks are spread over the keys by a hash.
        scrambled: bool,
    },
    /// Zipfian distances back from the newest key.
    Latest {
        /// The first key.
        start: i64,
        /// The distances (rank 1: the newest).
        ranks: KeyChooser,
        /// The inserts, whose newest done key is rank 1.
        inserts: Arc<Inserts>,
    },
    /// Uniform from `start` to the newest key whose insert is done, the
    /// loaded keys' last at first.
    KeyOrInserted {
        /// The first key.
        start: i64,
        /// The inserts into the keys' column.
        inserts: Arc<Inserts>,
    },
    /// sysbench's gaussian, special and pareto over `[start, start + n)`.
    Bunched {
        /// The first key.
        start: i64,
        /// The keys.
        n: i64,
        /// How they bunch.
        shape: Bunching,
    },
    /// `#` a digit, `@` a letter, the rest as written.
    Pattern(String),
    /// Earlier parameters summed ([`Draw::given`]: the terminal adds
    /// them, holding the earlier values).
    Add(Sum),
    /// The values: a column's rows in turn, a parameter's uniform.
    List(Vec<Value>),
    /// NURand(A, min, max) with the run's constant C.
    NuRand {
        /// A.
        a: i64,
        /// Smallest.
        min: i64,
        /// Largest.
        max: i64,
        /// The run's C, drawn once in `[0, A]`.
        c: i64,
    },
    /// Letters and digits.
    Text(u32, u32),
    /// Letters and digits of a length drawn by its weight.
    WeightedText(Vec<u32>, WeightedIndex<u64>),
    /// Exactly so many digits.
    Number(u32),
    /// Always this.
    Constant(Value),
    /// Uniform over the keys loaded: `[start, start + n)`.
    Key(i64, i64),
    /// Uniform over the keys loaded but an earlier parameter's
    /// ([`Draw::given`]: the terminal gives that key).
    OtherKey(OtherKeys),
    /// The next key past every one loaded or inserted.
    NextKey(Arc<Inserts>),
    /// An integer as text of so many digits at least, zeros first.
    Padded(Box<Draw>, u32),
    /// One of the integers, by the weights.
    Histogram(Vec<i64>, WeightedIndex<u64>),
    /// A value of the earlier column or parameter of this index
    /// ([`Draw::given`]: the loader and the terminal give that value),
    /// then the text around the integer after it, if any.
    Seeded(Box<Draw>, usize, Option<(String, String)>),
    /// The inner draw's value, or this one in so many of the draws (a
    /// share from 0 to 1).
    Instead(Box<Draw>, Value, f64),
    /// The time of the draw.
    Now,
    /// NULL.
    Null,
    /// What the loader puts in a `for_each` table's row (`drawn_rows.rs`):
    /// the key the row is made for, or its place among that key's rows.
    Placed,
}

/// How sysbench's skewed distributions bunch their keys.
#[derive(Debug, Clone, Copy)]
pub enum Bunching {
    /// The mean of this many uniform draws.
    Gaussian(u32),
    /// A gaussian's iterations, then sysbench's `rand_res_mult` (the range
    /// widened for the hot draws) and the hot keys' share of the range.
    Special {
        /// Uniform draws averaged.
        iterations: u32,
        /// `100 / (100 - resolution)`.
        widening: f64,
        /// `percent / 100`.
        hot: f64,
    },
    /// `u ^ power`, `power = ln h / ln (1 - h)`.
    Pareto(f64),
}

impl Bunching {
    /// An offset into `n` keys, as sysbench 1.0's `sb_rand_gaussian`,
    /// `sb_rand_special` and `sb_rand_pareto` draw it (their arithmetic, in
    /// doubles, then truncated).
    fn offset(self, rng: &mut Rand, n: i64) -> i64 {
        let mean = |rng: &mut Rand, iterations: u32| {
            (0..iterations).map(|_| rng.unit()).sum::<f64>() / f64::from(iterations)
        };
        let offset = match self {
            Bunching::Gaussian(iterations) => mean(rng, iterations) * n as f64,
            Bunching::Pareto(power) => n as f64 * rng.unit().powf(power),
            Bunching::Special {
                iterations,
                widening,
                hot,
            } => {
                // sysbench's t is the range's width, b - a; u of the
                // widened range falls in t for the gaussian part.
                let t = (n - 1) as f64;
                let u = rng.unit();
                if u * widening < 1.0 {
                    mean(rng, iterations) * t
                } else {
                    u * (t * hot + 1.0) + t / 2.0 - t * hot / 2.0
                }
            }
        };
        (offset as i64).clamp(0, n - 1)
    }
}

impl Draw {
    /// The draw of a terminal whose home is `home`: a `uniform`'s values
    /// moved up by `home` times its `home_step`; any other draw as it is.
    pub fn at_home(self, generator: &Generator, home: i64) -> Draw {
        match (self, generator) {
            (Draw::Uniform(min, max), Generator::Uniform { home_step, .. }) => {
                let offset = home.saturating_mul(*home_step);
                Draw::Uniform(min.saturating_add(offset), max.saturating_add(offset))
            }
            (draw, _) => draw,
        }
    }
}

/// A number drawn for a text column as its text (digits in a `varchar`, as
/// every engine then stores the same); other values as drawn.
pub fn as_column_takes(value: Value, ty: ColumnType) -> Value {
    match (value, ty) {
        (Value::Int(i), ColumnType::Char(_) | ColumnType::Varchar(_) | ColumnType::Text) => {
            Value::Text(i.to_string())
        }
        (Value::Float(f), ColumnType::Char(_) | ColumnType::Varchar(_) | ColumnType::Text) => {
            Value::Text(f.to_string())
        }
        (value, _) => value,
    }
}

/// Why a generator cannot draw.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DrawError {
    /// Its keys cannot be drawn as it asks.
    #[error(transparent)]
    Keys(#[from] txbench_core::keys::KeysError),
    /// A constant that is neither a number nor a string.
    #[error("constant {0}: use a number or a string")]
    Constant(String),
}

impl Draw {
    /// `generator` ready for `scale`, its inserts counted in `next`, NURand's
    /// constant drawn from `rng`.
    pub fn new(
        generator: &Generator,
        scale: i64,
        next: &NextKeys,
        rng: &mut Rand,
    ) -> Result<Draw, DrawError> {
        Ok(match generator {
            Generator::Sequence { start, per } => Draw::Sequence(*start, *per),
            Generator::Uniform { min, max, .. } => Draw::Uniform(*min, *max),
            Generator::Normal { min, max } => Draw::Normal(*min, *max),
            Generator::Zipfian {
                keys,
                theta,
                scrambled,
            } => Draw::Zipfian {
                start: keys.start,
                ranks: KeyChooser::new(loaded(keys, scale) as u64, *theta)?,
                scrambled: *scrambled,
            },
            Generator::Latest { keys, theta } => Draw::Latest {
                start: keys.start,
                ranks: KeyChooser::new(loaded(keys, scale) as u64, *theta)?,
                inserts: next.of(keys, scale),
            },
            Generator::NuRand { a, min, max } => Draw::NuRand {
                a: *a,
                min: *min,
                max: *max,
                c: rng.uniform(0, *a),
            },
            Generator::Gaussian { keys, iterations } => {
                bunched(keys, scale, Bunching::Gaussian(*iterations))
            }
            Generator::Special {
                keys,
                iterations,
                percent,
                resolution,
            } => bunched(
                keys,
                scale,
                Bunching::Special {
                    iterations: *iterations,
                    widening: 100.0 / (100.0 - resolution),
                    hot: percent / 100.0,
                },
            ),
            Generator::Pareto { keys, h } => {
                bunched(keys, scale, Bunching::Pareto(h.ln() / (1.0 - h).ln()))
            }
            Generator::Pattern(template) => Draw::Pattern(template.clone()),
            Generator::Add(sum) => Draw::Add(*sum),
            Generator::List(values) => {
                Draw::List(values.iter().map(constant).collect::<Result<_, _>>()?)
            }
            Generator::Text { min, max } => Draw::Text(*min, *max),
            Generator::WeightedText(lengths) => Draw::WeightedText(
                lengths.iter().map(|(n, _)| *n).collect(),
                WeightedIndex::new(lengths.iter().map(|(_, w)| *w))
                    .expect("weights checked with the file"),
            ),
            Generator::Histogram(values) => Draw::Histogram(
                values.iter().map(|(v, _)| *v).collect(),
                WeightedIndex::new(values.iter().map(|(_, w)| *w))
                    .expect("weights checked with the file"),
            ),
            Generator::Number { digits } => Draw::Number(*digits),
            Generator::Constant(v) => Draw::Constant(constant(v)?),
            Generator::Key(keys) => Draw::Key(keys.start, loaded(keys, scale)),
            Generator::KeyOrInserted(keys) => Draw::KeyOrInserted {
                start: keys.start,
                inserts: next.of(keys, scale),
            },
            Generator::OtherKey { keys, other_than } => Draw::OtherKey(OtherKeys {
                earlier: *other_than,
                start: keys.start,
                n: loaded(keys, scale),
            }),
            Generator::NextKey(keys) => Draw::NextKey(next.of(keys, scale)),
            Generator::Now => Draw::Now,
            Generator::Null => Draw::Null,
            Generator::Parent(_) | Generator::Ordinal(_) => Draw::Placed,
            // Never drawn: the load's query fills it.
            Generator::Selected => Draw::Null,
            Generator::Padded { inner, width } => {
                Draw::Padded(Box::new(Draw::new(inner, scale, next, rng)?), *width)
            }
            Generator::Seeded { inner, by, suffix } => Draw::Seeded(
                Box::new(Draw::new(inner, scale, next, rng)?),
                *by,
                suffix.clone(),
            ),
            Generator::Instead {
                inner,
                value,
                percent,
            } => Draw::Instead(
                Box::new(Draw::new(inner, scale, next, rng)?),
                constant(value)?,
                percent / 100.0,
            ),
        })
    }

    /// A value: `row` is the row being loaded (a sequence's offset).
    pub fn value(&self, rng: &mut Rand, row: i64) -> Value {
        Value::Int(match self {
            Draw::Sequence(start, per) => start + row / per,
            Draw::Uniform(min, max) => rng.uniform(*min, *max),
            Draw::Normal(min, max) => normal(rng, *min, *max),
            Draw::Zipfian {
                start,
                ranks,
                scrambled,
            } => {
                let rank = ranks.key(rng) as i64;
                let n = ranks.keys() as i64;
                start
                    + if *scrambled {
                        scramble(rank, n)
                    } else {
                        rank - 1
                    }
            }
            Draw::Latest {
                start,
                ranks,
                inserts,
            } => (inserts.newest_done() - (ranks.key(rng) as i64 - 1)).max(*start),
            Draw::Bunched { start, n, shape } => start + shape.offset(rng, *n),
            Draw::Pattern(template) => return Value::Text(pattern(rng, template)),
            // The terminal adds ([`Draw::given`]); a column never does
            // (refused with the file).
            Draw::Add(_) => return Value::Null,
            Draw::List(values) => return values[row as usize % values.len()].clone(),
            Draw::NuRand { a, min, max, c } => rng.nurand(*a, *min, *max, *c),
            Draw::Text(min, max) => return Value::Text(rng.astring(*min as usize, *max as usize)),
            Draw::WeightedText(lengths, weights) => {
                let n = lengths[rng.sample(weights)] as usize;
                return Value::Text(rng.astring(n, n));
            }
            Draw::Histogram(values, weights) => values[rng.sample(weights)],
            Draw::Number(digits) => {
                let low = 10i64.pow(digits - 1);
                rng.uniform(if *digits == 1 { 0 } else { low }, low * 10 - 1)
            }
            Draw::Constant(v) => return v.clone(),
            Draw::Now => return Value::Timestamp(now_micros()),
            Draw::Padded(inner, width) => {
                let width = *width as usize;
                return Value::Text(match inner.value(rng, row) {
                    Value::Int(i) => format!("{i:0width$}"),
                    // A sequence or a key: always an integer.
                    other => return other,
                });
            }
            // The loader puts the parent's key in its place.
            Draw::Null | Draw::Placed => return Value::Null,
            Draw::Key(start, n) => rng.uniform(*start, start + n - 1),
            Draw::KeyOrInserted { start, inserts } => {
                rng.uniform(*start, inserts.newest_done().max(*start))
            }
            // The terminal draws it ([`Draw::given`]); a column never
            // does (refused with the file).
            Draw::OtherKey(_) => return Value::Null,
            // The loader and the terminal draw it from the value it is
            // seeded by ([`Draw::given`]).
            Draw::Seeded(..) => return Value::Null,
            Draw::Instead(inner, value, share) => {
                return match rng.unit() < *share {
                    true => value.clone(),
                    false => inner.value(rng, row),
                };
            }
            Draw::NextKey(inserts) => inserts.take_next(),
        })
    }

    /// An `other_than` draw's earlier parameter and keys; `None` for
    /// every other generator.
    pub fn other_than(&self) -> Option<&OtherKeys> {
        match self {
            Draw::OtherKey(keys) => Some(keys),
            _ => None,
        }
    }

    /// A column's value in a row being loaded: `row` is the row's offset
    /// (a sequence's), `earlier` the row's values before it (a `seeded_by`
    /// draw's integer is one of them).
    pub fn column_value(&self, rng: &mut Rand, row: i64, earlier: &[Value]) -> Value {
        let earlier = |i: usize| earlier.get(i).and_then(Value::as_i64);
        (self.given(rng, earlier)).unwrap_or_else(|| self.value(rng, row))
    }

    /// The value of a draw made of earlier values, of its row or its
    /// transaction, given them by index as integers: an `add`'s sum, an
    /// `other_than` key, a `seeded_by` value. `None` for every draw that
    /// needs none, which [`Draw::value`] and [`Draw::parameter`] draw.
    pub fn given(&self, rng: &mut Rand, earlier: impl Fn(usize) -> Option<i64>) -> Option<Value> {
        Some(match self {
            Draw::Add(sum) => sum.of(earlier).map_or(Value::Null, Value::Int),
            Draw::OtherKey(keys) => Value::Int(keys.draw(rng, earlier(keys.earlier))),
            Draw::Seeded(inner, by, suffix) => {
                Draw::seeded_value(inner, earlier(*by), suffix.as_ref())
            }
            _ => return None,
        })
    }

    /// The value `inner` draws for the integer `key` (`seeded_by`): from a
    /// stream seeded by `key` alone, drawn as a parameter is, so that the
    /// load and every terminal draw one value for one key. NULL for no
    /// integer.
    fn seeded_value(inner: &Draw, key: Option<i64>, suffix: Option<&(String, String)>) -> Value {
        let Some(k) = key else {
            return Value::Null;
        };
        match (
            inner.parameter(&mut Rand::derive(SEEDED_STREAMS, k as u64)),
            suffix,
        ) {
            (Value::Text(text), Some((before, after))) => {
                Value::Text(format!("{text}{before}{k}{after}"))
            }
            (value, _) => value,
        }
    }

    /// An `add`'s sum of earlier parameters; `None` for every other
    /// generator, which draws by [`Draw::value`].
    pub fn adds_to(&self) -> Option<&Sum> {
        match self {
            Draw::Add(sum) => Some(sum),
            _ => None,
        }
    }

    /// A parameter's value: a list's drawn uniform (a column's rows take
    /// them in turn, [`Draw::value`]).
    pub fn parameter(&self, rng: &mut Rand) -> Value {
        match self {
            Draw::List(values) => values[rng.uniform(0, values.len() as i64 - 1) as usize].clone(),
            Draw::Instead(inner, value, share) => match rng.unit() < *share {
                true => value.clone(),
                false => inner.parameter(rng),
            },
            other => other.value(rng, 0),
        }
    }
}

/// The keys `[start, start + n)` but an earlier parameter's.
#[derive(Debug, Clone, Copy)]
pub struct OtherKeys {
    /// The earlier parameter's index.
    pub earlier: usize,
    start: i64,
    n: i64,
}

impl OtherKeys {
    /// A key other than `excluded`, uniform over the rest: one of the
    /// `n - 1` others, shifted past it. A key outside the range leaves all
    /// `n` to draw, and a range of one key has no other: that key.
    pub fn draw(&self, rng: &mut Rand, excluded: Option<i64>) -> i64 {
        let last = self.start + self.n - 1;
        match excluded.filter(|k| (self.start..=last).contains(k) && self.n > 1) {
            Some(k) => {
                let key = rng.uniform(self.start, last - 1);
                if key >= k { key + 1 } else { key }
            }
            None => rng.uniform(self.start, last),
        }
    }
}

/// An integer of `[min, max]`: `min + round((z + 2) / 4 * size)` for a
/// standard normal `z`, over the range's `size` integers, redrawn outside
/// them (BenchBase's Gaussian; 95% of the draws land at the first try).
fn normal(rng: &mut Rand, min: i64, max: i64) -> i64 {
    let size = (max - min) as f64 + 1.0;
    loop {
        let offset = ((rng.standard_normal() + 2.0) / 4.0 * size).round();
        if (0.0..size).contains(&offset) {
            return min + offset as i64;
        }
    }
}

/// `sysbench.rand.string`'s template filled: `#` a digit, `@` a lowercase
/// letter.
fn pattern(rng: &mut Rand, template: &str) -> String {
    template
        .chars()
        .map(|c| match c {
            '#' => char::from(b'0' + rng.uniform(0, 9) as u8),
            '@' => char::from(b'a' + rng.uniform(0, 25) as u8),
            other => other,
        })
        .collect()
}

/// A skewed draw over the keys `keys` has at `scale`.
fn bunched(keys: &KeyRange, scale: i64, shape: Bunching) -> Draw {
    Draw::Bunched {
        start: keys.start,
        n: loaded(keys, scale).max(1),
        shape,
    }
}

/// Microseconds since the Unix epoch, now.
fn now_micros() -> i64 {
    let since = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
    since.map_or(0, |d| d.as_micros() as i64)
}

/// Rank `rank` (1-based) of `n` moved to a place fixed by a hash (FNV-1a of
/// its bytes, as YCSB's scrambled zipfian hashes), 0-based.
fn scramble(rank: i64, n: i64) -> i64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in rank.to_le_bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    (hash % n as u64) as i64
}

/// A TOML constant as a value.
fn constant(v: &toml::Value) -> Result<Value, DrawError> {
    Ok(match v {
        toml::Value::Integer(i) => Value::Int(*i),
        toml::Value::Float(f) => Value::Float(*f),
        toml::Value::String(s) => Value::Text(s.clone()),
        toml::Value::Boolean(b) => Value::Int(i64::from(*b)),
        other => return Err(DrawError::Constant(other.to_string())),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(start: i64) -> KeyRange {
        KeyRange {
            table: "t".into(),
            column: "k".into(),
            start,
            rows: crate::custom::Rows::PerScale(10.0),
        }
    }

    fn int(v: Value) -> i64 {
        match v {
            Value::Int(i) => i,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn normal_values_stay_in_their_range_bunched_at_its_middle() {
        let next = NextKeys::default();
        let mut rng = Rand::new(11);
        let normal = Generator::Normal {
            min: 10_000,
            max: 50_000,
        };
        let d = Draw::new(&normal, 1, &next, &mut rng).unwrap();
        let draws: Vec<i64> = (0..20_000).map(|_| int(d.value(&mut rng, 0))).collect();
        assert!(draws.iter().all(|v| (10_000..=50_000).contains(v)));
        let mean = draws.iter().sum::<i64>() as f64 / draws.len() as f64;
        assert!((29_700.0..30_300.0).contains(&mean), "{mean}");
        // Within one deviation (a quarter of the range) of the middle: of a
        // normal cut at two deviations, 0.683 / 0.954 = 71.5%.
        let near = draws
            .iter()
            .filter(|v| (20_000..=40_000).contains(*v))
            .count();
        let share = near as f64 / draws.len() as f64;
        assert!((0.70..0.73).contains(&share), "{share}");
    }

    #[test]
    fn a_padded_sequence_or_key_is_its_integer_in_zero_padded_digits() {
        let next = NextKeys::default();
        let mut rng = Rand::new(3);
        let padded = |inner: Generator, width| Generator::Padded {
            inner: Box::new(inner),
            width,
        };
        let sequence = Draw::new(
            &padded(Generator::Sequence { start: 7, per: 1 }, 4),
            1,
            &next,
            &mut rng,
        )
        .unwrap();
        assert_eq!(sequence.value(&mut rng, 0), Value::Text("0007".into()));
        assert_eq!(
            sequence.value(&mut rng, 12_000),
            Value::Text("12007".into())
        );
        let key = Draw::new(&padded(Generator::Key(keys(5)), 3), 1, &next, &mut rng).unwrap();
        for _ in 0..100 {
            let Value::Text(t) = key.value(&mut rng, 0) else {
                panic!("text")
            };
            let k: i64 = t.parse().unwrap();
            assert!(t.len() == 3 && (5..15).contains(&k), "{t}");
        }
    }

    #[test]
    fn another_key_is_never_the_one_left_out_and_the_rest_are_drawn_evenly() {
        let next = NextKeys::default();
        let mut rng = Rand::new(7);
        let other = Generator::OtherKey {
            keys: keys(5),
            other_than: 0,
        };
        // 10 keys at scale 1: 5 to 14.
        let d = Draw::new(&other, 1, &next, &mut rng).unwrap();
        let keys = d.other_than().expect("an other_than draw");
        assert_eq!(keys.earlier, 0);
        let mut seen = std::collections::BTreeMap::new();
        for i in 0..30_000 {
            let excluded = 5 + i % 10;
            let k = keys.draw(&mut rng, Some(excluded));
            assert!(
                (5..15).contains(&k) && k != excluded,
                "{k} drawn leaving out {excluded}"
            );
            if excluded == 6 {
                *seen.entry(k).or_insert(0u32) += 1;
            }
        }
        // Leaving out 6, each of the other nine keys about 3,000 / 9 times.
        assert_eq!(seen.len(), 9, "{seen:?}");
        assert!(seen.values().all(|n| (250..420).contains(n)), "{seen:?}");
        // A key from elsewhere leaves every key to draw.
        assert!((0..100).all(|_| (5..15).contains(&keys.draw(&mut rng, Some(99)))));
    }

    #[test]
    fn keys_stay_in_the_loaded_range_and_inserts_go_past_it() {
        let next = NextKeys::default();
        let mut rng = Rand::new(1);
        let zipf = Generator::Zipfian {
            keys: keys(0),
            theta: 0.99,
            scrambled: true,
        };
        let z = Draw::new(&zipf, 100, &next, &mut rng).unwrap();
        let insert = Draw::new(&Generator::NextKey(keys(0)), 100, &next, &mut rng).unwrap();
        let latest = Generator::Latest {
            keys: keys(0),
            theta: 0.99,
        };
        let l = Draw::new(&latest, 100, &next, &mut rng).unwrap();
        let mut hottest = std::collections::BTreeMap::new();
        for _ in 0..20_000 {
            let k = int(z.value(&mut rng, 0));
            assert!((0..1000).contains(&k), "{k}");
            *hottest.entry(k).or_insert(0u32) += 1;
        }
        // Scrambled: the hottest key is not the first one.
        let (top, _) = hottest.iter().max_by_key(|(_, n)| **n).unwrap();
        assert_ne!(*top, 0);
        assert_eq!(int(insert.value(&mut rng, 0)), 1000);
        assert_eq!(int(insert.value(&mut rng, 0)), 1001);
        // Latest: mostly the newest key whose insert is done, never one
        // still on its way.
        let newest = |l: &Draw, rng: &mut Rand| {
            let drawn: Vec<i64> = (0..1000).map(|_| int(l.value(rng, 0))).collect();
            assert!(drawn.iter().all(|&k| k <= 1001), "{drawn:?}");
            (
                *drawn.iter().max().unwrap(),
                drawn.iter().filter(|&&k| k == 999).count(),
            )
        };
        assert_eq!(newest(&l, &mut rng).0, 999);
        let inserts = next.of(&keys(0), 100);
        // 1001 done before 1000: nothing moves until 1000 is done too.
        inserts.done(1001);
        assert_eq!(newest(&l, &mut rng).0, 999);
        inserts.done(1000);
        let (top, _) = newest(&l, &mut rng);
        assert_eq!(top, 1001);
        let at_top = (0..1000)
            .filter(|_| int(l.value(&mut rng, 0)) == 1001)
            .count();
        assert!(at_top > 100, "{at_top}");
    }

    #[test]
    fn a_key_of_inserted_ones_too_reaches_the_keys_whose_inserts_are_done() {
        let next = NextKeys::default();
        let mut rng = Rand::new(4);
        let key = Draw::new(&Generator::KeyOrInserted(keys(0)), 100, &next, &mut rng).unwrap();
        let insert = Draw::new(&Generator::NextKey(keys(0)), 100, &next, &mut rng).unwrap();
        let most = |rng: &mut Rand| (0..5_000).map(|_| int(key.value(rng, 0))).max().unwrap();
        // The loaded keys 0 to 999 alone, until an insert is done.
        assert_eq!(most(&mut rng), 999);
        let (first, second) = (
            int(insert.value(&mut rng, 0)),
            int(insert.value(&mut rng, 0)),
        );
        assert_eq!((first, second), (1000, 1001));
        assert_eq!(most(&mut rng), 999);
        // Done, committed or not: a find at or after it takes the next row.
        let inserts = next.of(&keys(0), 100);
        inserts.done(1000);
        inserts.done(1001);
        assert_eq!(most(&mut rng), 1001);
    }

    /// The share of `draws` of `g` over 10,000 keys from 1 that `within` holds.
    fn share_of(g: Generator, draws: usize, within: std::ops::RangeInclusive<i64>) -> f64 {
        let mut rng = Rand::new(5);
        let d = Draw::new(&g, 1000, &NextKeys::default(), &mut rng).unwrap();
        let hits = (0..draws)
            .map(|_| int(d.value(&mut rng, 0)))
            .inspect(|k| assert!((1..=10_000).contains(k), "{k}"))
            .filter(|k| within.contains(k))
            .count();
        hits as f64 / draws as f64
    }

    #[test]
    fn sysbench_s_distributions_bunch_as_sysbench_s_do() {
        let keys = keys(1);
        // Gaussian of 12 draws: a standard deviation of n / 12 about the
        // middle, so 68% within 833 keys of it.
        let gaussian = Generator::Gaussian {
            keys: keys.clone(),
            iterations: 12,
        };
        let near = share_of(gaussian, 20_000, 5000 - 833..=5000 + 833);
        assert!((0.66..0.71).contains(&near), "{near}");
        // Special: 75% of the draws on the 1% of the keys at the middle
        // (sysbench's [t/2 - t/200, t/2 + t/200] of t = b - a), the rest gaussian.
        let special = Generator::Special {
            keys: keys.clone(),
            iterations: 12,
            percent: 1.0,
            resolution: 75.0,
        };
        let hot = share_of(special, 20_000, 4950..=5051);
        assert!((0.75..0.78).contains(&hot), "{hot}");
        // Pareto with h 0.2: 80% of the draws on the first 20% of the keys.
        let pareto = Generator::Pareto { keys, h: 0.2 };
        let first = share_of(pareto, 20_000, 1..=2000);
        assert!((0.78..0.82).contains(&first), "{first}");
    }

    #[test]
    fn patterns_fill_their_template_and_sums_add_to_an_earlier_parameter() {
        let mut rng = Rand::new(6);
        let d = Draw::new(
            &Generator::Pattern("##-@@ x".into()),
            1,
            &NextKeys::default(),
            &mut rng,
        )
        .unwrap();
        let Value::Text(t) = d.value(&mut rng, 0) else {
            panic!("not text")
        };
        let b = t.as_bytes();
        assert!(b[0].is_ascii_digit() && b[1].is_ascii_digit(), "{t}");
        assert!(
            b[3].is_ascii_lowercase() && b[4].is_ascii_lowercase(),
            "{t}"
        );
        assert_eq!((&t[2..3], &t[5..]), ("-", " x"), "{t}");
        let sum = Sum {
            to: 1,
            times: 1,
            value: 99,
            plus: None,
        };
        assert_eq!(Draw::Add(sum).adds_to(), Some(&sum));
        assert_eq!(d.adds_to(), None);
    }

    #[test]
    fn loads_and_parameters_draw_what_their_generators_say() {
        let next = NextKeys::default();
        let mut rng = Rand::new(2);
        let draw = |g: Generator| Draw::new(&g, 5, &next, &mut Rand::new(3)).unwrap();
        let sequence = |per| draw(Generator::Sequence { start: 7, per });
        assert_eq!(int(sequence(1).value(&mut rng, 3)), 10);
        // Rows 0 to 2 of a sequence of 3 rows a value have its first.
        let grouped: Vec<i64> = (0..7)
            .map(|r| int(sequence(3).value(&mut rng, r)))
            .collect();
        assert_eq!(grouped, [7, 7, 7, 8, 8, 8, 9]);
        let n = draw(Generator::Number { digits: 4 });
        assert!((0..100).all(|_| (1000..10_000).contains(&int(n.value(&mut rng, 0)))));
        let Value::Text(t) = draw(Generator::Text { min: 3, max: 5 }).value(&mut rng, 0) else {
            panic!("not text");
        };
        assert!((3..=5).contains(&t.len()));
        let key = draw(Generator::Key(keys(1)));
        assert!((0..100).all(|_| (1..=50).contains(&int(key.value(&mut rng, 0)))));
        let constant = draw(Generator::Constant(toml::Value::String("x".into())));
        assert_eq!(constant.value(&mut rng, 0), Value::Text("x".into()));
    }

    #[test]
    fn instead_gives_its_value_in_its_share_of_the_draws_and_a_suffix_ends_with_the_seed() {
        let next = NextKeys::default();
        let mut rng = Rand::new(4);
        let user = Generator::Instead {
            inner: Box::new(Generator::Key(keys(1))),
            value: toml::Value::Integer(0),
            percent: 26.0,
        };
        let d = Draw::new(&user, 5, &next, &mut Rand::new(1)).unwrap();
        let draws: Vec<i64> = (0..100_000).map(|_| int(d.parameter(&mut rng))).collect();
        let zeros = draws.iter().filter(|&&v| v == 0).count() as f64 / 1e5;
        // 26 percent, within five standard errors (0.0014 each).
        assert!((zeros - 0.26).abs() < 0.007, "{zeros}");
        assert!(draws.iter().all(|&v| v == 0 || (1..=50).contains(&v)));
        let title = Generator::Seeded {
            inner: Box::new(Generator::Text { min: 3, max: 5 }),
            by: 0,
            suffix: Some((" [".into(), "]".into())),
        };
        let d = Draw::new(&title, 5, &next, &mut Rand::new(1)).unwrap();
        let mut of = |k: i64| d.given(&mut rng, |_| Some(k)).unwrap();
        let Value::Text(t) = of(42) else {
            panic!("not text");
        };
        assert!(t.ends_with(" [42]") && (8..=10).contains(&t.len()), "{t}");
        // The same key, the same title, whatever the stream.
        assert_eq!(of(42), Value::Text(t));
    }

    #[test]
    fn a_list_gives_a_column_its_values_in_turn_and_a_parameter_one_uniform() {
        let values = ["AK", "AL", "AZ"].map(|v| toml::Value::String(v.into()));
        let next = NextKeys::default();
        let d = Draw::new(
            &Generator::List(values.to_vec()),
            1,
            &next,
            &mut Rand::new(1),
        )
        .unwrap();
        let mut rng = Rand::new(3);
        let rows: Vec<Value> = (0..5).map(|row| d.value(&mut rng, row)).collect();
        let text = |s: &str| Value::Text(s.into());
        assert_eq!(
            rows,
            [text("AK"), text("AL"), text("AZ"), text("AK"), text("AL")]
        );
        let mut counts = BTreeMap::new();
        for _ in 0..30_000 {
            let Value::Text(t) = d.parameter(&mut rng) else {
                panic!("a list of strings draws strings")
            };
            *counts.entry(t).or_insert(0u32) += 1;
        }
        assert_eq!(counts.len(), 3, "{counts:?}");
        // 10,000 each expected; 5 standard deviations are about 410.
        assert!(
            counts.values().all(|n| n.abs_diff(10_000) < 410),
            "{counts:?}"
        );
    }

    #[test]
    fn a_sum_multiplies_adds_and_saturates() {
        let phone = Sum {
            to: 0,
            times: 10_000_000,
            value: 0,
            plus: Some(1),
        };
        let earlier = [Some(907), Some(5_551_234), None];
        let of = |i: usize| earlier[i];
        assert_eq!(phone.of(of), Some(9_075_551_234));
        assert_eq!(
            Sum {
                plus: Some(2),
                ..phone
            }
            .of(of),
            None,
            "a NULL earlier"
        );
        let huge = Sum {
            to: 0,
            times: i64::MAX,
            value: 1,
            plus: None,
        };
        assert_eq!(huge.of(of), Some(i64::MAX));
    }
}
