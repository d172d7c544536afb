//! The rows of a `for_each` table (docs/workload-file.md): for each key of
//! another table, a drawn number of rows (Epinions' reviews of an item,
//! Twitter's follows of a user), made in chunks of keys as every table is.
//!
//! A chunk's row numbers (its sequence columns' values) depend on how many
//! rows the chunks before it drew, so the counts are drawn first, from a
//! stream of their own per chunk ([`Counts`]): cheap, one draw per key, and
//! the same again when the chunk's rows are made.

use std::collections::HashSet;

use sha2::{Digest, Sha256};

use txbench_core::Value;
use txbench_core::keys::KeyChooser;
use txbench_core::rng::{Rand, WeightedIndex};
use txbench_core::schema;
use txbench_core::value::RowBatch;

use super::draw::{Draw, NextKeys, as_column_takes};
use super::spec::{Count, Each, Generator, Table};

/// Draws per row a `distinct` column makes before it takes the first key
/// its row's earlier ones left (a skewed draw finds the cold keys rarely).
const TRIES: u32 = 1_000;

/// The counts of a `for_each` table's chunks of keys, `chunk` keys each:
/// each chunk's first row, and the table's rows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Counts {
    /// The first row of each chunk.
    pub first_rows: Vec<i64>,
    /// The rows of all the chunks.
    pub total: i64,
}

/// A count ready to draw at one scale, clamped to the keys a `distinct`
/// column can give one parent.
struct CountDraw {
    shape: CountShape,
    most: i64,
}

/// How a count is drawn.
enum CountShape {
    /// Uniform in `[min, max]`.
    Uniform(i64, i64),
    /// A zipfian's rank less 1, raised to the minimum.
    Zipfian(KeyChooser, i64),
    /// A histogram's counts, by their weights.
    Histogram(Vec<i64>, WeightedIndex<u64>),
}

impl CountDraw {
    fn new(table: &Table, count: &Count, scale: i64) -> CountDraw {
        let max = count.max.at(scale).max(count.min);
        let shape = match (&count.histogram, count.theta) {
            (Some(counts), _) => {
                let weights = WeightedIndex::new(counts.iter().map(|(_, w)| *w));
                let weights = weights.expect("weights checked with the file");
                CountShape::Histogram(counts.iter().map(|(n, _)| *n).collect(), weights)
            }
            (None, Some(theta)) => CountShape::Zipfian(
                KeyChooser::new(max.max(1) as u64, theta).expect("a checked skew and range"),
                count.min,
            ),
            (None, None) => CountShape::Uniform(count.min, max),
        };
        CountDraw {
            shape,
            most: distinct_room(table, scale),
        }
    }

    fn draw(&self, rng: &mut Rand) -> i64 {
        let n = match &self.shape {
            CountShape::Uniform(min, max) => rng.uniform(*min, *max),
            // Rank 1 is count 0, as BenchBase's zipfian over 0..max.
            CountShape::Zipfian(ranks, min) => (ranks.key(rng) as i64 - 1).max(*min),
            CountShape::Histogram(counts, weights) => counts[rng.sample(weights)],
        };
        n.min(self.most)
    }
}

/// The most rows one parent can have: the fewest keys a `distinct` column
/// draws from, less the one its `other_than` leaves out.
fn distinct_room(table: &Table, scale: i64) -> i64 {
    (table.columns.iter())
        .filter_map(|c| {
            let distinct = c.distinct?;
            let keys = c.generator.loaded_keys()?.rows.at(scale);
            Some(keys - i64::from(distinct.other_than.is_some()))
        })
        .min()
        .unwrap_or(i64::MAX)
        .max(0)
}

/// The stream a chunk's counts are drawn from: the load's seed, the
/// table's parent keys and count (so that two tables of one parent and
/// one `rows_each` give each key the same rows, and their rows pair up, as
/// Wikipedia's revisions and their texts), and the chunk; apart from the
/// streams rows are drawn from.
fn count_stream(seed: u64, each: &Each, chunk: usize) -> Rand {
    let digest = Sha256::digest(format!("{:?} {:?}", each.parent, each.count));
    let salt = u64::from_le_bytes(digest[..8].try_into().expect("a digest has 32 bytes"));
    Rand::derive(seed ^ salt, chunk as u64)
}

/// The counts of `table` (of `each`) at `scale` and `seed`, in chunks of
/// `chunk` keys.
pub fn counts(table: &Table, each: &Each, scale: i64, seed: u64, chunk: i64) -> Counts {
    let draw = CountDraw::new(table, &each.count, scale);
    let parents = each.parent.rows.at(scale);
    let mut first_rows = Vec::with_capacity((parents / chunk + 1) as usize);
    let mut total = 0i64;
    for (c, first) in (0..parents).step_by(chunk as usize).enumerate() {
        first_rows.push(total);
        let mut rng = count_stream(seed, each, c);
        let keys = (first + chunk).min(parents) - first;
        total += (0..keys).map(|_| draw.draw(&mut rng)).sum::<i64>();
    }
    Counts { first_rows, total }
}

/// One chunk of a `for_each` table, as [`rows`] makes it.
pub struct Chunk {
    /// Which chunk (its count stream).
    pub index: usize,
    /// Its first key's offset among the parent's keys, and its keys.
    pub keys: std::ops::Range<i64>,
    /// The table's row its first row is.
    pub first_row: i64,
}

/// The rows of `chunk` of `table` (of `each`, made as `made`) at `scale`:
/// each key's count drawn again from its chunk's count stream, the columns
/// from `rng`.
pub fn rows(
    (table, each): (&Table, &Each),
    made: &schema::Table,
    chunk: Chunk,
    (scale, seed): (i64, u64),
    mut rng: Rand,
) -> RowBatch {
    let count = CountDraw::new(table, &each.count, scale);
    let mut counts = count_stream(seed, each, chunk.index);
    let next = NextKeys::default();
    let draws: Vec<Draw> = (table.columns.iter())
        .map(|c| Draw::new(&c.generator, scale, &next, &mut rng).expect("checked"))
        .collect();
    let mut batch = RowBatch::for_table(made, 0);
    let mut row = chunk.first_row;
    let mut taken: Vec<HashSet<i64>> = vec![HashSet::new(); draws.len()];
    let mut values: Vec<Value> = Vec::with_capacity(draws.len());
    for offset in chunk.keys {
        let parent = each.parent.start + offset;
        taken.iter_mut().for_each(HashSet::clear);
        for ordinal in 0..count.draw(&mut counts) {
            values.clear();
            for (i, (d, c)) in draws.iter().zip(&table.columns).enumerate() {
                let value = match (&c.generator, c.distinct) {
                    (Generator::Parent(_), _) => Value::Int(parent),
                    (Generator::Ordinal(start), _) => Value::Int(start + ordinal),
                    (_, Some(distinct)) => {
                        let left_out = distinct.other_than.and_then(|o| values[o].as_i64());
                        Value::Int(distinct_key(d, c, scale, &mut rng, &mut taken[i], left_out))
                    }
                    _ => d.column_value(&mut rng, row, &values),
                };
                values.push(as_column_takes(value, c.ty));
            }
            batch.values.append(&mut values);
            row += 1;
        }
    }
    batch
}

/// A key `d` draws that `taken` (the parent's earlier rows) does not hold
/// and is not `left_out`, recorded in `taken`: redrawn up to [`TRIES`]
/// times, then the first such key of the range. The parent's count was
/// clamped to the keys there are, so one is left.
fn distinct_key(
    d: &Draw,
    c: &super::spec::Column,
    scale: i64,
    rng: &mut Rand,
    taken: &mut HashSet<i64>,
    left_out: Option<i64>,
) -> i64 {
    let free = |k: i64, taken: &HashSet<i64>| !taken.contains(&k) && Some(k) != left_out;
    let drawn = (0..TRIES)
        .filter_map(|_| d.value(rng, 0).as_i64())
        .find(|k| free(*k, taken));
    let key = drawn.unwrap_or_else(|| {
        let keys = c
            .generator
            .loaded_keys()
            .expect("a distinct column draws keys");
        (keys.start..keys.start + keys.rows.at(scale))
            .find(|k| free(*k, taken))
            .expect("the count was clamped to the keys left")
    });
    taken.insert(key);
    key
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::custom::load::schema_table;
    use crate::custom::parse;
    use crate::custom::spec::Rows;

    /// Users who each follow a zipfian number of others, none twice and
    /// never themselves, and a table of rows numbered across the chunks.
    pub(in crate::custom) const FOLLOWS: &str = r#"
[workload]
name = "follows"
scale = "users"

[[table]]
name = "users"
rows_per_scale = 1
primary_key = ["uid"]
columns = [{ name = "uid", type = "int", gen = "sequence" }]

[[table]]
name = "follows"
for_each = "users.uid"
rows_each = { gen = "zipfian", min = 1, max = 50, theta = 1.75 }
primary_key = ["f1", "f2"]
columns = [
  { name = "n", type = "bigint", gen = "sequence", min = 0 },
  { name = "f1", type = "int", gen = "parent" },
  { name = "f2", type = "int", gen = "zipfian", of = "users.uid", theta = 1.75, distinct = true, other_than = "f1" },
]

[[transaction]]
name = "T"
weight = 100
params = [{ name = "u", gen = "key", of = "users.uid" }]
statements = [{ sql = "SELECT f2 FROM follows WHERE f1 = :u" }]
"#;

    /// Every row of the table at `scale` and `seed`, chunk by chunk as the
    /// load makes them, each row's values.
    fn all_rows(text: &str, scale: i64, seed: u64, chunk: i64) -> Vec<Vec<i64>> {
        let spec = parse("f.toml", text).unwrap();
        let table = &spec.tables[1];
        let Rows::ForEach(each) = &table.rows else {
            panic!("a for_each table");
        };
        let made = schema_table(table);
        let counts = counts(table, each, scale, seed, chunk);
        let parents = each.parent.rows.at(scale);
        let mut rows = Vec::new();
        for (index, first) in (0..parents).step_by(chunk as usize).enumerate() {
            let chunk = Chunk {
                index,
                keys: first..(first + chunk).min(parents),
                first_row: counts.first_rows[index],
            };
            let batch = super::rows((table, each), &made, chunk, (scale, seed), Rand::new(9));
            let ints: Vec<i64> = batch.values.iter().map(|v| v.as_i64().unwrap()).collect();
            rows.extend(ints.chunks(3).map(<[i64]>::to_vec));
        }
        assert_eq!(rows.len() as i64, counts.total);
        rows
    }

    #[test]
    fn each_key_gets_its_drawn_rows_distinct_and_never_itself_numbered_across_chunks() {
        let rows = all_rows(FOLLOWS, 2_000, 5, 300);
        // Numbered 0, 1, 2, ... across the chunks, whatever each drew.
        assert!(rows.iter().enumerate().all(|(i, r)| r[0] == i as i64));
        let mut per_user = std::collections::BTreeMap::<i64, Vec<i64>>::new();
        for r in &rows {
            assert_ne!(r[1], r[2], "a user follows themself: {r:?}");
            assert!((1..=2_000).contains(&r[2]), "{r:?}");
            per_user.entry(r[1]).or_default().push(r[2]);
        }
        // Every user follows at least one (min = 1), none anyone twice,
        // none more than 49 (a zipfian below max = 50).
        assert_eq!(per_user.len(), 2_000);
        for (user, followed) in &per_user {
            let set: HashSet<&i64> = followed.iter().collect();
            assert_eq!(set.len(), followed.len(), "user {user}: {followed:?}");
            assert!(followed.len() <= 49, "user {user}: {}", followed.len());
        }
        // Zipfian counts: 0 and 1 (raised to 1) are the likeliest, together
        // (1 + 2^-1.75) / H(50, 1.75) of the users.
        let h: f64 = (1..=50).map(|k| f64::from(k).powf(-1.75)).sum();
        let expected = (1.0 + 2f64.powf(-1.75)) / h;
        let ones = per_user.values().filter(|f| f.len() == 1).count() as f64 / 2_000.0;
        assert!(
            (ones - expected).abs() < 0.04,
            "{ones} of users follow one, expected {expected}"
        );
    }

    #[test]
    fn the_rows_are_the_seed_s_and_the_estimate_is_near_them() {
        assert_eq!(
            all_rows(FOLLOWS, 500, 5, 100),
            all_rows(FOLLOWS, 500, 5, 100)
        );
        assert_ne!(
            all_rows(FOLLOWS, 500, 5, 100),
            all_rows(FOLLOWS, 500, 6, 100)
        );
        let spec = parse("f.toml", FOLLOWS).unwrap();
        let drawn = counts_of(&spec, 20_000, 1).total as f64;
        let estimate = spec.tables[1].rows.at(20_000) as f64;
        assert!(
            (drawn / estimate - 1.0).abs() < 0.1,
            "{drawn} drawn, {estimate} estimated"
        );
    }

    fn counts_of(spec: &crate::custom::Spec, scale: i64, seed: u64) -> Counts {
        let Rows::ForEach(each) = &spec.tables[1].rows else {
            panic!("a for_each table");
        };
        counts(&spec.tables[1], each, scale, seed, 1_000)
    }

    #[test]
    fn a_key_gets_no_more_rows_than_a_distinct_column_has_keys_to_give() {
        // Three users, each asked for up to 40 others: two at most.
        let few = FOLLOWS.replace(
            "{ gen = \"zipfian\", min = 1, max = 50, theta = 1.75 }",
            "{ gen = \"uniform\", min = 30, max = 40 }",
        );
        let rows = all_rows(&few, 3, 1, 1_000);
        assert_eq!(rows.len(), 6, "{rows:?}");
    }

    #[test]
    fn tables_of_one_parent_and_one_count_give_each_key_the_same_rows() {
        let pages = |second: &str| {
            format!(
                r#"
[workload]
name = "pages"
scale = "pages"

[[table]]
name = "page"
rows_per_scale = 1
primary_key = ["id"]
columns = [{{ name = "id", type = "int", gen = "sequence" }}]

[[table]]
name = "revision"
for_each = "page.id"
rows_each = {{ gen = "histogram", values = [[1, 3], [2, 1], [5, 1]] }}
primary_key = ["rev_id"]
columns = [{{ name = "rev_id", type = "int", gen = "sequence" }}, {{ name = "rev_page", type = "int", gen = "parent" }}]

[[table]]
name = "text"
for_each = "page.id"
rows_each = {second}
primary_key = ["old_id"]
columns = [{{ name = "old_id", type = "int", gen = "sequence" }}, {{ name = "body", type = "text", gen = "string", length = 9 }}]

[[transaction]]
name = "Read"
weight = 100
params = [{{ name = "p", gen = "key", of = "page.id" }}]
statements = [{{ sql = "SELECT 1 FROM page WHERE id = :p" }}]
"#
            )
        };
        let per_key = |text: &str, t: usize| {
            let spec = parse("p.toml", text).unwrap();
            let Rows::ForEach(each) = &spec.tables[t].rows else {
                panic!("a for_each table");
            };
            let c = counts(&spec.tables[t], each, 500, 5, 100);
            (c.first_rows, c.total)
        };
        let same = pages("{ gen = \"histogram\", values = [[1, 3], [2, 1], [5, 1]] }");
        assert_eq!(per_key(&same, 1), per_key(&same, 2));
        let other = pages("{ gen = \"histogram\", values = [[1, 3], [2, 1], [6, 1]] }");
        assert_ne!(per_key(&other, 1), per_key(&other, 2));
    }

    #[test]
    fn an_ordinal_numbers_each_key_s_rows_from_its_min() {
        // The sequence n in place of an ordinal of the key's rows from 1.
        let text = FOLLOWS.replace(
            "{ name = \"n\", type = \"bigint\", gen = \"sequence\", min = 0 }",
            "{ name = \"n\", type = \"bigint\", gen = \"ordinal\", min = 1 }",
        );
        let rows = all_rows(&text, 500, 5, 70);
        let mut next = std::collections::BTreeMap::<i64, i64>::new();
        for r in &rows {
            let expected = next.entry(r[1]).or_insert(1);
            assert_eq!(r[0], *expected, "{r:?}");
            *expected += 1;
        }
        assert_eq!(next.len(), 500);
        // Outside a for_each table there is no key to number rows of.
        let outside = FOLLOWS.replace(
            "columns = [{ name = \"uid\", type = \"int\", gen = \"sequence\" }]",
            "columns = [{ name = \"uid\", type = \"int\", gen = \"ordinal\" }]",
        );
        let e = parse("f.toml", &outside).unwrap_err().to_string();
        assert!(
            e.contains("gen = \"ordinal\" numbers the rows made for one key"),
            "{e}"
        );
    }
}
