//! Reads that repeat (TPC-C 3.4.2.7 to 3.4.2.9, as plain reads): T1 reads
//! twice in one transaction while T2 commits a change to what it reads
//! between the reads. Repeatable read promises the same value twice;
//! serializable also that no row appears (no phantom). Read committed
//! promises neither: what it showed is reported, not judged.

use std::future::Future;

use txbench_core::schema::Statement;
use txbench_core::{DbError, Engine, Isolation, Param, Session, TxMode, Written};

use super::probe::{self, CUSTOMER_ORDERS, DISTRICT_NEW_ORDERS, ITEM_PRICE, ITEM_PRICE_ADD};
use super::{Lab, WHILE_HELD, awaited, finished_within, on_own_thread, retrying};
use crate::acid::AcidTest;
use crate::tpcc::constants::ITEMS;
use crate::tpcc::new_order;

/// 3.4.2.7: an item's price read twice while T2 raises it by 1.00 (and it
/// is put back afterwards).
pub(crate) async fn repeated_price_read<E: Engine>(lab: &mut Lab<E>) -> AcidTest {
    let mut t = AcidTest::new(
        "isolation",
        "3.4.2.7",
        "an item's price read twice while another transaction changes it: the same price (repeatable read)",
    );
    let item = lab.rng.uniform(1, ITEMS);
    let promised = lab.promises(Isolation::RepeatableRead);
    let seen = price_steps(lab, item, &mut t).await;
    judge(t, lab, promised, seen)
}

async fn price_steps<E: Engine>(
    lab: &mut Lab<E>,
    item: i64,
    t: &mut AcidTest,
) -> Result<bool, DbError> {
    let writer = change_price(lab.session().await?, item, 1.0);
    let (first, second) = read_twice(lab, t, &ITEM_PRICE, &[item], writer).await?;
    // Put the price back, so that a test leaves the items as they were.
    change_price(lab.session().await?, item, -1.0).await?;
    t.saw(format!(
        "T1 read item {item}'s price {first:.2}, then {second:.2}"
    ));
    Ok((first - second).abs() < 0.005)
}

/// Add `by` to an item's price in a transaction of its own.
async fn change_price<S: Session>(mut s: S, item: i64, by: f64) -> Result<String, DbError> {
    let params = [Param::Float(by), Param::Int(item)];
    let (r, conflicts) = retrying!(s, {
        match s.begin(TxMode::ReadWrite).await {
            Ok(()) => match s.execute(&ITEM_PRICE_ADD, &params).await {
                Ok(_) => s.commit().await,
                Err(e) => Err(e),
            },
            Err(e) => Err(e),
        }
    });
    r?;
    Ok(format!(
        "changed item {item}'s price by {by:+.2} and committed ({conflicts} conflicts retried)"
    ))
}

/// 3.4.2.8: a district's undelivered orders counted twice while T2 enters a
/// New-Order there: no phantom (serializable).
pub(crate) async fn new_orders_of_a_district<E: Engine>(lab: &mut Lab<E>) -> AcidTest {
    let mut t = AcidTest::new(
        "isolation",
        "3.4.2.8",
        "a district's new_order rows counted twice while a New-Order enters one: no phantom (serializable)",
    );
    let (w, d, c) = lab.place();
    let seen = count_steps(lab, &DISTRICT_NEW_ORDERS, vec![w, d], (w, d, c), &mut t).await;
    let promised = lab.promises(Isolation::Serializable);
    judge(t, lab, promised, seen)
}

/// 3.4.2.9: a customer's orders counted twice while T2 enters a New-Order
/// for the customer: no phantom (serializable).
pub(crate) async fn orders_of_a_customer<E: Engine>(lab: &mut Lab<E>) -> AcidTest {
    let mut t = AcidTest::new(
        "isolation",
        "3.4.2.9",
        "a customer's orders counted twice while a New-Order for the customer commits: no phantom (serializable)",
    );
    let (w, d, c) = lab.place();
    let seen = count_steps(lab, &CUSTOMER_ORDERS, vec![w, d, c], (w, d, c), &mut t).await;
    let promised = lab.promises(Isolation::Serializable);
    judge(t, lab, promised, seen)
}

async fn count_steps<E: Engine>(
    lab: &mut Lab<E>,
    count: &'static Statement,
    key: Vec<i64>,
    (w, d, c): (i64, i64, i64),
    t: &mut AcidTest,
) -> Result<bool, DbError> {
    let input = lab.new_order(w, d, c);
    let mut s = lab.session().await?;
    let writer = async move {
        let (r, conflicts) = retrying!(
            s,
            new_order::execute(&mut s, &input, &mut Written::new()).await
        );
        let o = r?.1.map_or(0, |o| o.o_id);
        Ok(format!(
            "committed New-Order {o} for customer {c} of w {w} d {d} ({conflicts} conflicts retried)"
        ))
    };
    let (first, second) = read_twice(lab, t, count, &key, writer).await?;
    t.saw(format!("T1 counted {first}, then {second}"));
    Ok(first == second)
}

/// T1 reads `stmt` at `key`, lets `writer` run on its own thread (given
/// [`WHILE_HELD`] to finish), reads again and ends; then waits for the
/// writer if it was waiting on T1. The two values read.
async fn read_twice<E: Engine>(
    lab: &Lab<E>,
    t: &mut AcidTest,
    stmt: &'static Statement,
    key: &[i64],
    writer: impl Future<Output = Result<String, DbError>> + Send + 'static,
) -> Result<(f64, f64), DbError> {
    let mut s = lab.session().await?;
    s.begin(TxMode::ReadOnly).await?;
    let first = probe::read_in(&mut s, stmt, key).await?;
    let mut t2 = on_own_thread(writer);
    let early = finished_within(&mut t2, WHILE_HELD).await;
    match &early {
        Some(done) => t.saw(format!("T2 {}", done.as_ref().map_err(Clone::clone)?)),
        None => t.saw("T2 waited while T1 was open"),
    }
    let second = probe::read_in(&mut s, stmt, key).await;
    let _ = s.commit().await;
    let second = second?;
    if early.is_none() {
        let done = awaited(t2, "T2").await??;
        t.saw(format!("T2 {done} once T1 ended"));
    }
    Ok((first, second))
}

/// Judge a test at the level in effect: a level that does not promise the
/// reads repeat is reported, not failed.
fn judge<E: Engine>(
    mut t: AcidTest,
    lab: &Lab<E>,
    promised: bool,
    seen: Result<bool, DbError>,
) -> AcidTest {
    let level = lab.level_name();
    match seen {
        Ok(held) => {
            if !promised {
                t.saw(format!("{level} does not promise it"));
            }
            t.judged_if(promised, held)
        }
        Err(e) => t.failed(format!("the database failed: {e}")),
    }
}
