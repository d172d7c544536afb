//! Transaction inputs, generated as the terminal's user would key them
//! (clauses 2.4.1, 2.5.1, 2.6.1, 2.7.1, 2.8.1). Pure: testable without a database.

use txbench_core::rng::Rand;

use super::constants::{CUSTOMERS, DISTRICTS, ITEMS};
use super::random::{NurandConstants, last_name};

/// How a customer is identified.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum CustomerKey {
    /// By C_ID.
    Id(i64),
    /// By C_LAST: the middle one of those with the name, sorted by C_FIRST.
    LastName(String),
}

/// One order line of a New-Order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct LineInput {
    /// OL_I_ID (an unused id on the last line of a rollback transaction).
    pub item: i64,
    /// OL_SUPPLY_W_ID.
    pub supply_w_id: i64,
    /// OL_QUANTITY.
    pub quantity: i64,
}

/// New-Order input (2.4.1).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct NewOrderInput {
    /// Home warehouse.
    pub w_id: i64,
    /// District, random 1..10.
    pub d_id: i64,
    /// Customer, NURand(1023, 1, 3000).
    pub c_id: i64,
    /// 5..15 lines.
    pub lines: Vec<LineInput>,
}

impl NewOrderInput {
    /// Whether every line is supplied by the home warehouse.
    pub fn all_local(&self) -> bool {
        self.lines.iter().all(|l| l.supply_w_id == self.w_id)
    }

    /// Whether the input carries the unused item that forces the rollback.
    pub fn will_roll_back(&self) -> bool {
        self.lines.iter().any(|l| l.item > ITEMS)
    }
}

/// Payment input (2.5.1).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PaymentInput {
    /// Home warehouse.
    pub w_id: i64,
    /// District, random 1..10.
    pub d_id: i64,
    /// Customer's warehouse (remote in 15% of cases when W > 1).
    pub c_w_id: i64,
    /// Customer's district.
    pub c_d_id: i64,
    /// The customer, by id (40%) or last name (60%).
    pub customer: CustomerKey,
    /// H_AMOUNT, 1.00..5,000.00.
    pub amount: f64,
}

/// Order-Status input (2.6.1).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct OrderStatusInput {
    /// Home warehouse.
    pub w_id: i64,
    /// District, random 1..10.
    pub d_id: i64,
    /// The customer, by id (40%) or last name (60%).
    pub customer: CustomerKey,
}

/// Delivery input (2.7.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct DeliveryInput {
    /// Home warehouse.
    pub w_id: i64,
    /// O_CARRIER_ID, random 1..10.
    pub carrier_id: i64,
}

/// Stock-Level input (2.8.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct StockLevelInput {
    /// Home warehouse.
    pub w_id: i64,
    /// The terminal's own district.
    pub d_id: i64,
    /// Threshold, random 10..20.
    pub threshold: i64,
}

/// One TPC-C transaction's input.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum TpccInput {
    /// New-Order.
    NewOrder(NewOrderInput),
    /// Payment.
    Payment(PaymentInput),
    /// Order-Status.
    OrderStatus(OrderStatusInput),
    /// Delivery.
    Delivery(DeliveryInput),
    /// Stock-Level.
    StockLevel(StockLevelInput),
}

/// Generates inputs for one terminal's home warehouse and district.
#[derive(Debug, Clone)]
pub struct InputGenerator {
    /// Warehouses in the database.
    pub warehouses: i64,
    /// The run's NURand constants.
    pub constants: NurandConstants,
}

impl InputGenerator {
    /// A uniformly chosen warehouse other than `home` (callers ensure W > 1).
    fn remote_warehouse(&self, rng: &mut Rand, home: i64) -> i64 {
        let other = rng.uniform(1, self.warehouses - 1);
        if other >= home { other + 1 } else { other }
    }

    fn customer(&self, rng: &mut Rand) -> CustomerKey {
        // 60% by last name, 40% by id (2.5.1.2, 2.6.1.2).
        if rng.uniform(1, 100) <= 60 {
            CustomerKey::LastName(last_name(rng.nurand(255, 0, 999, self.constants.c_last)))
        } else {
            CustomerKey::Id(rng.nurand(1023, 1, CUSTOMERS, self.constants.c_id))
        }
    }

    /// New-Order (2.4.1): 1% roll back through an unused item on the last line;
    /// each line is supplied remotely with probability 1% when W > 1.
    pub fn new_order(&self, rng: &mut Rand, w_id: i64) -> NewOrderInput {
        let d_id = rng.uniform(1, DISTRICTS);
        let c_id = rng.nurand(1023, 1, CUSTOMERS, self.constants.c_id);
        let count = rng.uniform(5, 15) as usize;
        let rollback = rng.uniform(1, 100) == 1;
        let lines = (0..count)
            .map(|i| {
                let item = if rollback && i == count - 1 {
                    ITEMS + 1
                } else {
                    rng.nurand(8191, 1, ITEMS, self.constants.ol_i_id)
                };
                let remote = self.warehouses > 1 && rng.uniform(1, 100) == 1;
                LineInput {
                    item,
                    supply_w_id: if remote {
                        self.remote_warehouse(rng, w_id)
                    } else {
                        w_id
                    },
                    quantity: rng.uniform(1, 10),
                }
            })
            .collect();
        NewOrderInput {
            w_id,
            d_id,
            c_id,
            lines,
        }
    }

    /// Payment (2.5.1): 85% home customers, 15% from a remote warehouse when W > 1.
    pub fn payment(&self, rng: &mut Rand, w_id: i64) -> PaymentInput {
        let d_id = rng.uniform(1, DISTRICTS);
        let (c_w_id, c_d_id) = if self.warehouses > 1 && rng.uniform(1, 100) > 85 {
            (self.remote_warehouse(rng, w_id), rng.uniform(1, DISTRICTS))
        } else {
            (w_id, d_id)
        };
        PaymentInput {
            w_id,
            d_id,
            c_w_id,
            c_d_id,
            customer: self.customer(rng),
            amount: rng.decimal(1.0, 5_000.0, 2),
        }
    }

    /// Order-Status (2.6.1).
    pub fn order_status(&self, rng: &mut Rand, w_id: i64) -> OrderStatusInput {
        OrderStatusInput {
            w_id,
            d_id: rng.uniform(1, DISTRICTS),
            customer: self.customer(rng),
        }
    }

    /// Delivery (2.7.1).
    pub fn delivery(&self, rng: &mut Rand, w_id: i64) -> DeliveryInput {
        DeliveryInput {
            w_id,
            carrier_id: rng.uniform(1, 10),
        }
    }

    /// Stock-Level (2.8.1): the terminal's own district, threshold 10..20.
    pub fn stock_level(&self, rng: &mut Rand, w_id: i64, d_id: i64) -> StockLevelInput {
        StockLevelInput {
            w_id,
            d_id,
            threshold: rng.uniform(10, 20),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn generator(warehouses: i64) -> InputGenerator {
        InputGenerator {
            warehouses,
            constants: NurandConstants {
                c_last: 123,
                c_id: 456,
                ol_i_id: 789,
            },
        }
    }

    #[test]
    fn new_order_rolls_back_one_percent_with_the_last_line() {
        let g = generator(1);
        let mut rng = Rand::new(1);
        let n = 100_000;
        let mut rollbacks = 0;
        for _ in 0..n {
            let input = g.new_order(&mut rng, 1);
            assert!((5..=15).contains(&input.lines.len()));
            assert!(input.all_local(), "W = 1 never has remote lines");
            if input.will_roll_back() {
                rollbacks += 1;
                assert_eq!(input.lines.last().unwrap().item, ITEMS + 1);
                assert!(
                    input.lines[..input.lines.len() - 1]
                        .iter()
                        .all(|l| l.item <= ITEMS)
                );
            }
        }
        // Binomial(100000, 0.01): mean 1000, sd 31.5.
        assert!((850..=1150).contains(&rollbacks), "rollbacks {rollbacks}");
    }

    #[test]
    fn one_percent_of_lines_are_remote_when_there_are_warehouses() {
        let g = generator(5);
        let mut rng = Rand::new(2);
        let (mut lines, mut remote) = (0, 0);
        for _ in 0..50_000 {
            let input = g.new_order(&mut rng, 3);
            for l in &input.lines {
                lines += 1;
                assert!((1..=5).contains(&l.supply_w_id));
                if l.supply_w_id != 3 {
                    remote += 1;
                }
            }
        }
        let share = remote as f64 / lines as f64;
        // About 500,000 lines: sd of the share is 0.00014.
        assert!((0.0093..=0.0107).contains(&share), "remote share {share}");
    }

    #[test]
    fn payment_is_remote_fifteen_percent_and_by_name_sixty() {
        let g = generator(4);
        let mut rng = Rand::new(3);
        let n = 100_000;
        let (mut remote, mut by_name) = (0, 0);
        for _ in 0..n {
            let p = g.payment(&mut rng, 2);
            assert!((1.0..=5000.0).contains(&p.amount));
            if p.c_w_id != p.w_id {
                remote += 1;
            } else {
                assert_eq!(p.c_d_id, p.d_id);
            }
            if let CustomerKey::LastName(name) = &p.customer {
                by_name += 1;
                assert!(name.len() >= 9);
            }
        }
        let remote = remote as f64 / n as f64;
        let by_name = by_name as f64 / n as f64;
        assert!((0.145..=0.155).contains(&remote), "remote {remote}");
        assert!((0.595..=0.605).contains(&by_name), "by name {by_name}");
    }

    #[test]
    fn single_warehouse_payments_stay_home() {
        let g = generator(1);
        let mut rng = Rand::new(4);
        for _ in 0..10_000 {
            let p = g.payment(&mut rng, 1);
            assert_eq!((p.c_w_id, p.c_d_id), (1, p.d_id));
        }
    }

    #[test]
    fn stock_level_uses_the_terminal_district() {
        let g = generator(1);
        let mut rng = Rand::new(5);
        for _ in 0..1000 {
            let s = g.stock_level(&mut rng, 1, 7);
            assert_eq!(s.d_id, 7);
            assert!((10..=20).contains(&s.threshold));
        }
    }
}
