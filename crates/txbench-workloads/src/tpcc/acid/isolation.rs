//! Isolation (TPC-C 3.4.2.1 to 3.4.2.6): T1 runs to just before its COMMIT
//! and is held there while T2 runs on another session; T1 then commits or
//! rolls back, T2 finishes (retried on a conflict, as the driver does), and
//! what each saw and left is held against what isolation allows.

use txbench_core::{DbError, Engine, Written};

use super::probe::{self, CUSTOMER_MONEY, OLDEST_UNDELIVERED, ORDER_AMOUNT, ORDER_CUSTOMER};
use super::{Lab, REACH, WHILE_HELD, awaited, ended, finished_within, on_own_thread, retrying};
use crate::acid::AcidTest;
use crate::gate::{End, Gate, GateHandle};
use crate::tpcc::input::{CustomerKey, DeliveryInput, OrderStatusInput, PaymentInput};
use crate::tpcc::order_status::OrderStatusOutput;
use crate::tpcc::{delivery, new_order, order_status, payment};

/// 3.4.2.1/2: T1 a New-Order for a customer, T2 an Order-Status of the same
/// customer. T2 must not see T1's order before T1 commits, and sees all of
/// an order or none; T3 afterwards sees T1's order only if it committed.
pub(crate) async fn new_order_vs_order_status<E: Engine>(lab: &mut Lab<E>, end: End) -> AcidTest {
    let clause = if end == End::Commit {
        "3.4.2.1"
    } else {
        "3.4.2.2"
    };
    let mut t = AcidTest::new(
        "isolation",
        clause,
        format!(
            "New-Order {} vs Order-Status of its customer: nothing uncommitted seen",
            short(end)
        ),
    );
    let held = new_order_vs_order_status_steps(lab, end, &mut t).await;
    t.concluded(held)
}

async fn new_order_vs_order_status_steps<E: Engine>(
    lab: &mut Lab<E>,
    end: End,
    t: &mut AcidTest,
) -> Result<bool, DbError> {
    let (w, d, c) = lab.place();
    let status = OrderStatusInput {
        w_id: w,
        d_id: d,
        customer: CustomerKey::Id(c),
    };
    let mut reader = lab.session().await?;
    let (_, t0) = order_status::execute(&mut reader, &status).await?;
    t.saw(format!(
        "T0 Order-Status of customer {c} (w {w} d {d}): order {} of {} lines",
        t0.o_id, t0.lines
    ));
    let input = lab.new_order(w, d, c);
    let lines = input.lines.len();
    let (t1, handle) = held_transaction(lab, move |mut s| async move {
        let r = new_order::execute(&mut s, &input, &mut Written::new()).await;
        (s.into_inner(), r.map(|(_, out)| out.map_or(0, |o| o.o_id)))
    })
    .await?;
    let Some(t1) = reached(t, "T1 New-Order", handle, t1).await else {
        return Ok(false);
    };
    t.saw(format!(
        "T1 New-Order of {lines} lines for the same customer held before its COMMIT"
    ));
    let asked = status.clone();
    let mut t2 = on_own_thread(async move {
        let r = order_status::execute(&mut reader, &asked).await;
        (reader, r)
    });
    let early = finished_within(&mut t2, WHILE_HELD).await;
    let mut held = true;
    if let Some((_, seen)) = &early {
        let seen = seen.as_ref().map_err(Clone::clone)?.1;
        held &= shows(&seen, &t0);
        t.saw(format!(
            "T2 Order-Status finished while T1 was held: order {} of {} lines",
            seen.o_id, seen.lines
        ));
    } else {
        t.saw("T2 Order-Status waited while T1 was held");
    }
    let o1 = decide_and_finish(t, "T1", t1, end).await?;
    let (mut reader, seen) = match early {
        Some(done) => done,
        None => awaited(t2, "T2 Order-Status").await?,
    };
    let (_, seen) = seen?;
    let committed = OrderStatusOutput {
        c_id: c,
        o_id: o1,
        lines,
    };
    held &= shows(&seen, &t0) || (end == End::Commit && shows(&seen, &committed));
    t.saw(format!(
        "T2 showed order {} of {} lines",
        seen.o_id, seen.lines
    ));
    let (_, t3) = order_status::execute(&mut reader, &status).await?;
    let expected = if end == End::Commit { &committed } else { &t0 };
    held &= shows(&t3, expected);
    t.saw(format!(
        "T3 Order-Status: order {} of {} lines (expected {} of {})",
        t3.o_id, t3.lines, expected.o_id, expected.lines
    ));
    Ok(held)
}

/// Whether Order-Status showed `order` whole.
fn shows(seen: &OrderStatusOutput, order: &OrderStatusOutput) -> bool {
    seen.o_id == order.o_id && seen.lines == order.lines
}

/// 3.4.2.3/4: two New-Orders of one district. T2 must wait for T1 (or be
/// refused and retried), then take the next order id after T1's, or T1's
/// own id when T1 rolled back.
pub(crate) async fn new_order_vs_new_order<E: Engine>(lab: &mut Lab<E>, end: End) -> AcidTest {
    let clause = if end == End::Commit {
        "3.4.2.3"
    } else {
        "3.4.2.4"
    };
    let mut t = AcidTest::new(
        "isolation",
        clause,
        format!(
            "New-Order {} vs New-Order of the same district: distinct order ids, none lost",
            short(end)
        ),
    );
    let held = new_order_vs_new_order_steps(lab, end, &mut t).await;
    t.concluded(held)
}

async fn new_order_vs_new_order_steps<E: Engine>(
    lab: &mut Lab<E>,
    end: End,
    t: &mut AcidTest,
) -> Result<bool, DbError> {
    let (w, d, c1) = lab.place();
    let c2 = lab.customer();
    let mut s = lab.session().await?;
    let next = probe::next_order_id(&mut s, w, d).await?;
    t.saw(format!("district w {w} d {d}: next order id {next}"));
    let first = lab.new_order(w, d, c1);
    let (t1, handle) = held_transaction(lab, move |mut g| async move {
        let r = new_order::execute(&mut g, &first, &mut Written::new()).await;
        (g.into_inner(), r.map(|(_, out)| out.map_or(0, |o| o.o_id)))
    })
    .await?;
    let Some(t1) = reached(t, "T1 New-Order", handle, t1).await else {
        return Ok(false);
    };
    t.saw("T1 New-Order held before its COMMIT");
    let second = lab.new_order(w, d, c2);
    let mut t2 = on_own_thread(async move {
        let (r, conflicts) = retrying!(
            s,
            new_order::execute(&mut s, &second, &mut Written::new()).await
        );
        (s, r.map(|(_, out)| out.map_or(0, |o| o.o_id)), conflicts)
    });
    let early = finished_within(&mut t2, WHILE_HELD).await;
    let mut held = true;
    match &early {
        Some((_, Ok(o2), _)) => {
            held = false;
            t.saw(format!(
                "T2 New-Order committed order {o2} while T1 held the district"
            ));
        }
        Some((_, Err(e), _)) => return Err(e.clone()),
        None => t.saw("T2 New-Order waited while T1 was held"),
    }
    let o1 = decide_and_finish(t, "T1", t1, end).await?;
    let (_, o2, conflicts) = match early {
        Some(done) => done,
        None => awaited(t2, "T2 New-Order").await?,
    };
    let o2 = o2?;
    t.saw(format!(
        "T2 New-Order committed order {o2} after {conflicts} conflicts retried"
    ));
    Ok(held
        && match end {
            End::Commit => o1 == next && o2 == next + 1,
            End::RollBack => o2 == next,
        })
}

/// 3.4.2.5/6: T1 a Delivery, T2 a Payment by a customer whose order T1
/// delivers. Neither update is lost: the balance ends at what both (or the
/// Payment alone, when T1 rolled back) make it.
pub(crate) async fn delivery_vs_payment<E: Engine>(lab: &mut Lab<E>, end: End) -> AcidTest {
    let clause = if end == End::Commit {
        "3.4.2.5"
    } else {
        "3.4.2.6"
    };
    let mut t = AcidTest::new(
        "isolation",
        clause,
        format!(
            "Delivery {} vs Payment by a customer it delivers to: no update lost",
            short(end)
        ),
    );
    let held = delivery_vs_payment_steps(lab, end, &mut t).await;
    t.concluded(held)
}

async fn delivery_vs_payment_steps<E: Engine>(
    lab: &mut Lab<E>,
    end: End,
    t: &mut AcidTest,
) -> Result<bool, DbError> {
    let (w, d, _) = lab.place();
    let mut s = lab.session().await?;
    let Some(oldest) = probe::row(&mut s, &OLDEST_UNDELIVERED, &[w, d]).await? else {
        t.saw(format!("w {w} d {d} has no undelivered order"));
        return Ok(false);
    };
    let o = oldest[0] as i64;
    let c = probe::value(&mut s, &ORDER_CUSTOMER, &[w, d, o]).await? as i64;
    let delivered = probe::value(&mut s, &ORDER_AMOUNT, &[w, d, o]).await?;
    let balance = probe::value(&mut s, &CUSTOMER_MONEY, &[w, d, c]).await?;
    t.saw(format!(
        "oldest undelivered order of w {w} d {d}: {o}, customer {c}, amount {delivered:.2}; \
         C_BALANCE {balance:.2}"
    ));
    let carrier = lab.rng.uniform(1, 10);
    let (t1, handle) = held_transaction(lab, move |mut g| async move {
        let input = DeliveryInput {
            w_id: w,
            carrier_id: carrier,
        };
        let r = delivery::execute(&mut g, &input, &mut Written::new()).await;
        (g.into_inner(), r.map(|(_, n)| n as i64))
    })
    .await?;
    let Some(t1) = reached(t, "T1 Delivery", handle, t1).await else {
        return Ok(false);
    };
    t.saw("T1 Delivery held before its COMMIT");
    let amount = lab.amount();
    let input = PaymentInput {
        w_id: w,
        d_id: d,
        c_w_id: w,
        c_d_id: d,
        customer: CustomerKey::Id(c),
        amount,
    };
    let mut t2 = on_own_thread(async move {
        let (r, conflicts) = retrying!(
            s,
            payment::execute(&mut s, &input, &mut Written::new()).await
        );
        (s, r.map(|_| ()), conflicts)
    });
    let early = finished_within(&mut t2, WHILE_HELD).await;
    t.saw(match &early {
        Some(_) => "T2 Payment finished while T1 was held",
        None => "T2 Payment waited while T1 was held",
    });
    decide_and_finish(t, "T1", t1, end).await?;
    let (mut s, paid, conflicts) = match early {
        Some(done) => done,
        None => awaited(t2, "T2 Payment").await?,
    };
    paid?;
    let after = probe::value(&mut s, &CUSTOMER_MONEY, &[w, d, c]).await?;
    let expected = balance - amount + if end == End::Commit { delivered } else { 0.0 };
    t.saw(format!(
        "T2 Payment of {amount:.2} committed after {conflicts} conflicts retried; C_BALANCE \
         {after:.2}, expected {expected:.2}"
    ));
    Ok((after - expected).abs() < 0.005)
}

/// "committed" or "rolled back", for a test's name.
fn short(end: End) -> &'static str {
    match end {
        End::Commit => "committed",
        End::RollBack => "rolled back",
    }
}

/// What a held transaction's task gives back: its session and what it
/// returned (an order id, a count).
type Held<S> = tokio::task::JoinHandle<(S, Result<i64, DbError>)>;

/// Start `work` on a new session behind a gate, on a thread of its own; the
/// task and the gate's handle.
async fn held_transaction<E, F, Fut>(
    lab: &Lab<E>,
    work: F,
) -> Result<(Held<E::Session>, GateHandle), DbError>
where
    E: Engine,
    F: FnOnce(Gate<E::Session>) -> Fut,
    Fut: std::future::Future<Output = (E::Session, Result<i64, DbError>)> + Send + 'static,
{
    let (gate, handle) = Gate::new(lab.session().await?);
    Ok((on_own_thread(work(gate)), handle))
}

/// Wait until the held transaction reaches its COMMIT; `None` (and the
/// evidence of what it did instead) when it does not.
async fn reached<S>(
    t: &mut AcidTest,
    who: &str,
    mut handle: GateHandle,
    task: Held<S>,
) -> Option<(GateHandle, Held<S>)> {
    if handle.reached(REACH).await {
        return Some((handle, task));
    }
    handle.decide(End::RollBack);
    match finished_within(&mut { task }, REACH).await {
        Some((_, Err(e))) => t.saw(format!("{who} failed before its COMMIT: {e}")),
        Some(_) => t.saw(format!("{who} ended without asking to commit")),
        None => t.saw(format!(
            "{who} did not reach its COMMIT in {} s",
            REACH.as_secs()
        )),
    }
    None
}

/// End the held transaction as `end` says and wait for it: what it returned.
async fn decide_and_finish<S>(
    t: &mut AcidTest,
    who: &str,
    (handle, task): (GateHandle, Held<S>),
    end: End,
) -> Result<i64, DbError> {
    handle.decide(end);
    let (_, r) = awaited(task, who).await?;
    let value = r?;
    t.saw(format!("{who} {}", ended(end)));
    Ok(value)
}
