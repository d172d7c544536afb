//! Row generation for the initial population (clause 4.3.3.1), by unit of work.
//!
//! Each unit draws from its own random stream derived from (seed, unit), so units
//! can be generated in any order on any thread and give the same database.

use txbench_core::Value;
use txbench_core::rng::Rand;
use txbench_core::value::RowBatch;

use super::constants::{CUSTOMERS, DISTRICTS, FIRST_NEW_ORDER, ITEMS, ORDERS, STOCK};
use super::random::{NurandConstants, data_with_original, push_last_name, zip};
use super::schema;

/// Items per item unit, and stock rows per stock unit.
pub const CHUNK: i64 = 10_000;

/// One independent piece of the population.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// Items `chunk * CHUNK + 1 ..= (chunk + 1) * CHUNK`.
    Items(i64),
    /// A warehouse row and its 10 districts.
    Warehouse(i64),
    /// Stock of warehouse `w` for items of chunk `chunk`.
    Stock(i64, i64),
    /// Customers and their history rows of district `d` of warehouse `w`.
    Customers(i64, i64),
    /// Orders, order lines and new orders of district `d` of warehouse `w`.
    Orders(i64, i64),
}

/// Every unit of a population of `warehouses` warehouses, in a fixed order.
pub fn units(warehouses: i64) -> Vec<Unit> {
    let mut out: Vec<Unit> = (0..ITEMS / CHUNK).map(Unit::Items).collect();
    for w in 1..=warehouses {
        out.push(Unit::Warehouse(w));
        out.extend((0..STOCK / CHUNK).map(|c| Unit::Stock(w, c)));
        for d in 1..=DISTRICTS {
            out.push(Unit::Customers(w, d));
            out.push(Unit::Orders(w, d));
        }
    }
    out
}

/// Rows a population of `warehouses` warehouses holds (order lines estimated at 10 per order).
pub fn expected_rows(warehouses: i64) -> u64 {
    let per_district = CUSTOMERS * 2 + ORDERS + ORDERS * 10 + (ORDERS - FIRST_NEW_ORDER + 1);
    (ITEMS + warehouses * (1 + DISTRICTS + STOCK + DISTRICTS * per_district)) as u64
}

/// What every generator needs to know.
#[derive(Debug, Clone, Copy)]
pub struct Population {
    /// The load's seed.
    pub seed: u64,
    /// The C-Load constants.
    pub constants: NurandConstants,
    /// The load time, µs since the epoch (c_since, o_entry_d, h_date).
    pub now: i64,
}

impl Population {
    /// Generate the rows of one unit.
    pub fn generate(&self, index: usize, unit: Unit) -> Vec<RowBatch> {
        let mut rng = Rand::derive(self.seed, index as u64);
        match unit {
            Unit::Items(chunk) => vec![items(&mut rng, chunk)],
            Unit::Warehouse(w) => warehouse(&mut rng, w),
            Unit::Stock(w, chunk) => vec![stock(&mut rng, w, chunk)],
            Unit::Customers(w, d) => self.customers(&mut rng, w, d),
            Unit::Orders(w, d) => self.orders(&mut rng, w, d),
        }
    }

    fn customers(&self, rng: &mut Rand, w: i64, d: i64) -> Vec<RowBatch> {
        let n = CUSTOMERS as usize;
        let mut customers = RowBatch::for_table(&schema::CUSTOMER, n);
        let mut history = RowBatch::for_table(&schema::HISTORY, n);
        for c in 1..=CUSTOMERS {
            // The first 1000 customers cover every last name; the rest are NURand (4.3.3.1).
            let name_number = if c <= 1000 {
                c - 1
            } else {
                rng.nurand(255, 0, 999, self.constants.c_last)
            };
            let mut last = String::with_capacity(16);
            push_last_name(&mut last, name_number);
            let credit = if rng.uniform(1, 10) == 1 { "BC" } else { "GC" };
            customers.values.extend([
                Value::Int(c),
                Value::Int(d),
                Value::Int(w),
                Value::Text(rng.astring(8, 16)),
                Value::Text("OE".into()),
                Value::Text(last),
                Value::Text(rng.astring(10, 20)),
                Value::Text(rng.astring(10, 20)),
                Value::Text(rng.astring(10, 20)),
                Value::Text(rng.astring(2, 2)),
                Value::Text(zip(rng)),
                Value::Text(rng.nstring(16, 16)),
                Value::Timestamp(self.now),
                Value::Text(credit.into()),
                Value::Float(50_000.0),
                Value::Float(rng.decimal(0.0, 0.5, 4)),
                Value::Float(-10.0),
                Value::Float(10.0),
                Value::Int(1),
                Value::Int(0),
                Value::Text(rng.astring(300, 500)),
            ]);
            history.values.extend([
                Value::Int(c),
                Value::Int(d),
                Value::Int(w),
                Value::Int(d),
                Value::Int(w),
                Value::Timestamp(self.now),
                Value::Float(10.0),
                Value::Text(rng.astring(12, 24)),
            ]);
        }
        vec![customers, history]
    }

    fn orders(&self, rng: &mut Rand, w: i64, d: i64) -> Vec<RowBatch> {
        let n = ORDERS as usize;
        let mut orders = RowBatch::for_table(&schema::ORDERS, n);
        let mut lines = RowBatch::for_table(&schema::ORDER_LINE, n * 10);
        let new = (ORDERS - FIRST_NEW_ORDER + 1) as usize;
        let mut new_orders = RowBatch::for_table(&schema::NEW_ORDER, new);
        // O_C_ID is a random permutation of 1..3000 (4.3.3.1).
        let customers = rng.permutation(CUSTOMERS as usize);
        for o in 1..=ORDERS {
            let delivered = o < FIRST_NEW_ORDER;
            let ol_cnt = rng.uniform(5, 15);
            orders.values.extend([
                Value::Int(o),
                Value::Int(d),
                Value::Int(w),
                Value::Int(customers[(o - 1) as usize]),
                Value::Timestamp(self.now),
                if delivered {
                    Value::Int(rng.uniform(1, 10))
                } else {
                    Value::Null
                },
                Value::Int(ol_cnt),
                Value::Int(1),
            ]);
            for number in 1..=ol_cnt {
                lines.values.extend([
                    Value::Int(o),
                    Value::Int(d),
                    Value::Int(w),
                    Value::Int(number),
                    Value::Int(rng.uniform(1, ITEMS)),
                    Value::Int(w),
                    if delivered {
                        Value::Timestamp(self.now)
                    } else {
                        Value::Null
                    },
                    Value::Int(5),
                    Value::Float(if delivered {
                        0.0
                    } else {
                        rng.decimal(0.01, 9_999.99, 2)
                    }),
                    Value::Text(rng.astring(24, 24)),
                ]);
            }
            if !delivered {
                new_orders
                    .values
                    .extend([Value::Int(o), Value::Int(d), Value::Int(w)]);
            }
        }
        vec![orders, lines, new_orders]
    }
}

fn items(rng: &mut Rand, chunk: i64) -> RowBatch {
    let mut batch = RowBatch::for_table(&schema::ITEM, CHUNK as usize);
    for i in chunk * CHUNK + 1..=(chunk + 1) * CHUNK {
        batch.values.extend([
            Value::Int(i),
            Value::Int(rng.uniform(1, 10_000)),
            Value::Text(rng.astring(14, 24)),
            Value::Float(rng.decimal(1.0, 100.0, 2)),
            Value::Text(data_with_original(rng)),
        ]);
    }
    batch
}

fn address(rng: &mut Rand, out: &mut Vec<Value>) {
    out.extend([
        Value::Text(rng.astring(10, 20)),
        Value::Text(rng.astring(10, 20)),
        Value::Text(rng.astring(10, 20)),
        Value::Text(rng.astring(2, 2)),
        Value::Text(zip(rng)),
    ]);
}

fn warehouse(rng: &mut Rand, w: i64) -> Vec<RowBatch> {
    let mut wh = RowBatch::for_table(&schema::WAREHOUSE, 1);
    wh.values
        .extend([Value::Int(w), Value::Text(rng.astring(6, 10))]);
    address(rng, &mut wh.values);
    wh.values.extend([
        Value::Float(rng.decimal(0.0, 0.2, 4)),
        Value::Float(300_000.0),
    ]);
    let mut districts = RowBatch::for_table(&schema::DISTRICT, DISTRICTS as usize);
    for d in 1..=DISTRICTS {
        districts.values.extend([
            Value::Int(d),
            Value::Int(w),
            Value::Text(rng.astring(6, 10)),
        ]);
        address(rng, &mut districts.values);
        districts.values.extend([
            Value::Float(rng.decimal(0.0, 0.2, 4)),
            Value::Float(30_000.0),
            Value::Int(ORDERS + 1),
        ]);
    }
    vec![wh, districts]
}

fn stock(rng: &mut Rand, w: i64, chunk: i64) -> RowBatch {
    let mut batch = RowBatch::for_table(&schema::STOCK, CHUNK as usize);
    for i in chunk * CHUNK + 1..=(chunk + 1) * CHUNK {
        batch.values.extend([
            Value::Int(i),
            Value::Int(w),
            Value::Int(rng.uniform(10, 100)),
        ]);
        for _ in 0..10 {
            batch.values.push(Value::Text(rng.astring(24, 24)));
        }
        batch.values.extend([
            Value::Int(0),
            Value::Int(0),
            Value::Int(0),
            Value::Text(data_with_original(rng)),
        ]);
    }
    batch
}

#[cfg(test)]
mod tests {
    use super::*;

    fn population() -> Population {
        Population {
            seed: 1,
            constants: NurandConstants {
                c_last: 100,
                c_id: 200,
                ol_i_id: 300,
            },
            now: 1_700_000_000_000_000,
        }
    }

    #[test]
    fn generation_is_deterministic_per_unit() {
        let p = population();
        assert_eq!(
            p.generate(3, Unit::Stock(1, 2)),
            p.generate(3, Unit::Stock(1, 2))
        );
        assert_ne!(
            p.generate(3, Unit::Stock(1, 2)),
            p.generate(4, Unit::Stock(1, 2))
        );
    }

    #[test]
    fn every_batch_matches_its_table() {
        let p = population();
        for (i, unit) in units(1).into_iter().enumerate().take(20) {
            for batch in p.generate(i, unit) {
                let table = schema::SCHEMA.table(batch.table).unwrap();
                assert_eq!(batch.columns, table.columns.len(), "{}", batch.table);
                assert_eq!(batch.values.len() % batch.columns, 0);
            }
        }
    }

    #[test]
    fn units_cover_the_population() {
        let u = units(2);
        assert_eq!(u.len(), 10 + 2 * (1 + 10 + 20));
    }
}
