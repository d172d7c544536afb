//! Atomicity (TPC-C 3.2.2): a New-Order and a Payment run to their COMMIT,
//! once committed and once with a ROLLBACK in its place; the rows each
//! writes read before and after, and the transaction's acknowledged-work log
//! line held against the database by `verify`.

use txbench_core::acks::{AckFile, AckLine};
use txbench_core::written::AckStatus;
use txbench_core::{DbError, Engine, Outcome, Session, Written};

use super::probe::{self, CUSTOMER_MONEY, DISTRICT, HISTORY_ROWS, WAREHOUSE_YTD};
use super::{Lab, ended};
use crate::acid::AcidTest;
use crate::gate::{End, Gate};
use crate::tpcc::constants::{NEW_ORDER, PAYMENT, TXN_TYPES};
use crate::tpcc::input::{CustomerKey, PaymentInput};
use crate::tpcc::{new_order, payment, verify};
use crate::verify::TypeVerification;

/// A New-Order ended by `end`: all of it there, or none of it.
pub(crate) async fn new_order<E: Engine>(lab: &mut Lab<E>, end: End) -> AcidTest {
    let (clause, what) = match end {
        End::Commit => (
            "3.2.2.1",
            "committed: the order, its lines and new_order row, the district's next id and the stock all changed",
        ),
        End::RollBack => (
            "3.2.2.2",
            "rolled back: none of its rows, the district's next id and the stock unchanged",
        ),
    };
    let mut t = AcidTest::new("atomicity", clause, format!("New-Order {what}"));
    let held = new_order_steps(lab, end, &mut t).await;
    t.concluded(held)
}

async fn new_order_steps<E: Engine>(
    lab: &mut Lab<E>,
    end: End,
    t: &mut AcidTest,
) -> Result<bool, DbError> {
    let (w, d, c) = lab.place();
    let input = lab.new_order(w, d, c);
    let items: Vec<i64> = input.lines.iter().map(|l| l.item).collect();
    let quantity: i64 = input.lines.iter().map(|l| l.quantity).sum();
    let mut s = lab.session().await?;
    let next = probe::next_order_id(&mut s, w, d).await?;
    let stock = probe::stock_ytd(&mut s, w, &items).await?;

    let mut written = Written::new();
    let mut gate = Gate::ending(s, end);
    let (outcome, _) = new_order::execute(&mut gate, &input, &mut written).await?;
    let mut s = gate.into_inner();
    t.saw(format!(
        "New-Order w {w} d {d} c {c}, {} lines ({quantity} items) as order {next}: {}",
        input.lines.len(),
        ended(end)
    ));

    let rows = probe::order_rows(&mut s, [w, d, next]).await?;
    let next_after = probe::next_order_id(&mut s, w, d).await?;
    let stock_after = probe::stock_ytd(&mut s, w, &items).await?;
    t.saw(format!(
        "after: order rows {}, order_line rows {}, new_order rows {}; district's next id {next} -> \
         {next_after}; the items' S_YTD {stock} -> {stock_after}",
        rows[0], rows[1], rows[2]
    ));
    let log = one_line(NEW_ORDER, status_of(end), written.fields());
    let v = verified(&mut s, &log, NEW_ORDER).await?;
    t.saw(format!(
        "verify of its log line: acknowledged {} durable {} lost {} partial {}; rolled back {} leaked {}",
        v.acknowledged, v.durable, v.lost, v.partial, v.rolled_back, v.leaked
    ));
    let lines = input.lines.len() as i64;
    Ok(match end {
        End::Commit => {
            outcome == Outcome::Committed
                && rows == [1, lines, 1]
                && next_after == next + 1
                && stock_after == stock + quantity
                && v.durable == 1
        }
        End::RollBack => {
            rows == [0, 0, 0]
                && next_after == next
                && stock_after == stock
                && v.rolled_back == 1
                && v.leaked == 0
                && v.partial == 0
        }
    })
}

/// A Payment ended by `end`: every balance and the history row changed, or
/// none.
pub(crate) async fn payment<E: Engine>(lab: &mut Lab<E>, end: End) -> AcidTest {
    let (clause, what) = match end {
        End::Commit => (
            "3.2.2.1",
            "committed: W_YTD, D_YTD, the customer's balance, YTD payment and count changed, a history row added",
        ),
        End::RollBack => (
            "3.2.2.2",
            "rolled back: W_YTD, D_YTD, the customer and the history unchanged",
        ),
    };
    let mut t = AcidTest::new("atomicity", clause, format!("Payment {what}"));
    let held = payment_steps(lab, end, &mut t).await;
    t.concluded(held)
}

/// W_YTD, D_YTD, C_BALANCE, C_YTD_PAYMENT, C_PAYMENT_CNT and the customer's
/// history rows.
async fn money<S: Session>(s: &mut S, w: i64, d: i64, c: i64) -> Result<[f64; 6], DbError> {
    let customer = probe::row(s, &CUSTOMER_MONEY, &[w, d, c])
        .await?
        .ok_or_else(|| DbError::missing("customer"))?;
    Ok([
        probe::value(s, &WAREHOUSE_YTD, &[w]).await?,
        probe::row(s, &DISTRICT, &[w, d])
            .await?
            .map_or(0.0, |r| r[1]),
        customer[0],
        customer[1],
        customer[2],
        probe::value(s, &HISTORY_ROWS, &[w, d, c]).await?,
    ])
}

async fn payment_steps<E: Engine>(
    lab: &mut Lab<E>,
    end: End,
    t: &mut AcidTest,
) -> Result<bool, DbError> {
    let (w, d, c) = lab.place();
    let amount = lab.amount();
    let input = PaymentInput {
        w_id: w,
        d_id: d,
        c_w_id: w,
        c_d_id: d,
        customer: CustomerKey::Id(c),
        amount,
    };
    let mut s = lab.session().await?;
    let before = money(&mut s, w, d, c).await?;
    let mut written = Written::new();
    let mut gate = Gate::ending(s, end);
    payment::execute(&mut gate, &input, &mut written).await?;
    let mut s = gate.into_inner();
    t.saw(format!(
        "Payment of {amount:.2} by customer {c} (w {w} d {d}): {}",
        ended(end)
    ));
    let after = money(&mut s, w, d, c).await?;
    t.saw(format!(
        "W_YTD {:.2} -> {:.2}, D_YTD {:.2} -> {:.2}, C_BALANCE {:.2} -> {:.2}, C_YTD_PAYMENT {:.2} \
         -> {:.2}, C_PAYMENT_CNT {} -> {}, history rows {} -> {}",
        before[0],
        after[0],
        before[1],
        after[1],
        before[2],
        after[2],
        before[3],
        after[3],
        before[4],
        after[4],
        before[5],
        after[5]
    ));
    let log = one_line(PAYMENT, status_of(end), written.fields());
    let v = verified(&mut s, &log, PAYMENT).await?;
    t.saw(format!(
        "verify of its log line: acknowledged {} durable {} lost {}; rolled back {} leaked {}",
        v.acknowledged, v.durable, v.lost, v.rolled_back, v.leaked
    ));
    let expected = match end {
        End::Commit => [amount, amount, -amount, amount, 1.0, 1.0],
        End::RollBack => [0.0; 6],
    };
    let changed_as_expected = (0..6).all(|i| (after[i] - before[i] - expected[i]).abs() < 0.005);
    Ok(changed_as_expected
        && match end {
            End::Commit => v.durable == 1,
            End::RollBack => v.rolled_back == 1 && v.leaked == 0,
        })
}

/// What `verify` finds of the log's transaction of `txn_type`.
async fn verified<S: Session>(
    s: &mut S,
    log: &AckFile,
    txn_type: usize,
) -> Result<TypeVerification, DbError> {
    let key = TXN_TYPES[txn_type].key;
    verify::verify(s, log)
        .await?
        .types
        .into_iter()
        .find(|t| t.key == key)
        .ok_or_else(|| DbError::missing(key))
}

/// What the log says of a transaction ended by `end`.
fn status_of(end: End) -> AckStatus {
    match end {
        End::Commit => AckStatus::Acknowledged,
        End::RollBack => AckStatus::RolledBack,
    }
}

/// A log of one line: type `txn_type`, `status`, `fields`.
fn one_line(txn_type: usize, status: AckStatus, fields: &[i64]) -> AckFile {
    AckFile {
        types: Vec::new(),
        lines: vec![AckLine {
            unix_us: 0,
            status,
            txn_type: TXN_TYPES[txn_type].key.to_string(),
            fields: fields.to_vec(),
        }],
    }
}
