//! The CH-benCHmark's population beyond TPC-C's: its five regions, its 62
//! nations and 10,000 suppliers. The regions' and nations' names, keys and
//! regions are the definition's (as BenchBase's `region_gen.tbl` and
//! `nation_gen.tbl` list them); their comments and every supplier's fields are
//! drawn here, from the load's seed, with BenchBase's lengths and ranges.

use txbench_core::Value;
use txbench_core::rng::Rand;
use txbench_core::value::RowBatch;

use super::schema;

/// Suppliers in the database: stock row (w, i) is supplied by `(w * i) mod 10000`.
pub const SUPPLIERS: i64 = 10_000;

/// The regions: key and name.
pub const REGIONS: [(i64, &str); 5] = [
    (1, "Africa"),
    (2, "America"),
    (3, "Asia"),
    (4, "Australia"),
    (5, "Europe"),
];

/// The nations: key (the code of the character a customer's state starts
/// with), name and region.
pub const NATIONS: [(i64, &str, i64); 62] = [
    (48, "Australia", 4),
    (49, "Belgium", 5),
    (50, "Cameroon", 1),
    (51, "Denmark", 5),
    (52, "Ecuador", 2),
    (53, "France", 5),
    (54, "Germany", 5),
    (55, "Hungary", 5),
    (56, "Italy", 5),
    (57, "Japan", 3),
    (65, "Kenya", 1),
    (66, "Lithuania", 5),
    (67, "Mexico", 2),
    (68, "Netherlands", 5),
    (69, "Oman", 1),
    (70, "Portugal", 5),
    (71, "Qatar", 1),
    (72, "Rwanda", 1),
    (73, "Serbia", 5),
    (74, "Togo", 1),
    (75, "United States", 2),
    (76, "Vietnam", 3),
    (77, "Singapore", 3),
    (78, "Cambodia", 3),
    (79, "Yemen", 1),
    (80, "Zimbabwe", 1),
    (81, "Argentina", 2),
    (82, "Bolivia", 2),
    (83, "Canada", 2),
    (84, "Dominican Republic", 2),
    (85, "Egypt", 1),
    (86, "Finnland", 5),
    (87, "Ghana", 1),
    (88, "Haiti", 2),
    (89, "India", 3),
    (90, "Jamaica", 4),
    (97, "Kazakhstan", 3),
    (98, "Luxembourg", 5),
    (99, "Morocco", 1),
    (100, "Norway", 5),
    (101, "Poland", 5),
    (102, "Peru", 2),
    (103, "Nicaragua", 2),
    (104, "Romania", 5),
    (105, "South Africa", 1),
    (106, "Thailand", 3),
    (107, "United Kingdom", 5),
    (108, "Venezuela", 2),
    (109, "Liechtenstein", 5),
    (110, "Austria", 5),
    (111, "Laos", 3),
    (112, "Zambia", 1),
    (113, "Switzerland", 5),
    (114, "China", 3),
    (115, "Papua New Guinea", 4),
    (116, "East Timor", 4),
    (117, "Bulgaria", 5),
    (118, "Brazil", 2),
    (119, "Albania", 5),
    (120, "Andorra", 5),
    (121, "Belize", 2),
    (122, "Botswana", 1),
];

/// Rows the reference tables hold.
pub const ROWS: u64 = (REGIONS.len() + NATIONS.len()) as u64 + SUPPLIERS as u64;

/// The rows of every reference table, drawn from `rng`.
pub fn rows(rng: &mut Rand) -> Vec<RowBatch> {
    let mut regions = RowBatch::for_table(&schema::REGION, REGIONS.len());
    for (key, name) in REGIONS {
        regions.values.extend([
            Value::Int(key),
            Value::Text(name.into()),
            Value::Text(rng.astring(31, 115)),
        ]);
    }
    let mut nations = RowBatch::for_table(&schema::NATION, NATIONS.len());
    for (key, name, region) in NATIONS {
        nations.values.extend([
            Value::Int(key),
            Value::Text(name.into()),
            Value::Int(region),
            Value::Text(rng.astring(31, 114)),
        ]);
    }
    vec![regions, nations, suppliers(rng)]
}

/// The suppliers, each of a nation drawn uniformly.
fn suppliers(rng: &mut Rand) -> RowBatch {
    let mut batch = RowBatch::for_table(&schema::SUPPLIER, SUPPLIERS as usize);
    for key in 1..=SUPPLIERS {
        let nation = NATIONS[rng.uniform(0, NATIONS.len() as i64 - 1) as usize].0;
        batch.values.extend([
            Value::Int(key),
            Value::Text(rng.astring(25, 25)),
            Value::Text(rng.astring(20, 40)),
            Value::Int(nation),
            Value::Text(rng.nstring(15, 15)),
            Value::Float(rng.decimal(10_000.0, 1_000_000_000.0, 2)),
            Value::Text(rng.astring(51, 101)),
        ]);
    }
    batch
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nation_keys_are_the_codes_of_every_character_a_state_starts_with() {
        let mut keys: Vec<i64> = NATIONS.iter().map(|n| n.0).collect();
        keys.sort_unstable();
        let codes: Vec<i64> = (b'0'..=b'9')
            .chain(b'A'..=b'Z')
            .chain(b'a'..=b'z')
            .map(i64::from)
            .collect();
        assert_eq!(keys, codes);
        assert!(NATIONS.iter().all(|n| REGIONS.iter().any(|r| r.0 == n.2)));
    }

    #[test]
    fn the_reference_rows_are_the_same_for_the_same_seed_and_fill_their_tables() {
        let a = rows(&mut Rand::derive(7, 1));
        let b = rows(&mut Rand::derive(7, 1));
        assert_eq!(a, b);
        let counts: Vec<usize> = a.iter().map(RowBatch::len).collect();
        assert_eq!(counts, [5, 62, 10_000]);
        assert_eq!(counts.iter().sum::<usize>() as u64, ROWS);
    }
}
