//! The twelve consistency conditions of clause 3.3.2, read in one snapshot.
//!
//! Each condition is one query that counts the rows (warehouses, districts,
//! orders, customers) violating it. All run inside a single read-only transaction,
//! so a check of a live database does not report false violations between queries.
//! Money compares within half a cent plus a relative 1e-12, since engines without
//! exact decimals (SQLite REAL) accumulate sums in binary floating point.

use txbench_core::{DbError, Session, TxMode};

use crate::fields::{first, int};

/// One condition and its SQL.
struct Condition {
    clause: &'static str,
    text: &'static str,
    sql: &'static str,
}

macro_rules! money_differs {
    ($a:literal, $b:literal) => {
        concat!(
            "abs((",
            $a,
            ") - (",
            $b,
            ")) > 0.005 + 1e-12 * abs(",
            $a,
            ")"
        )
    };
}

/// Each customer joined with the sum of its delivered order lines (`dl.s`), for
/// conditions 3.3.2.10 and 3.3.2.12.
macro_rules! delivered_per_customer {
    () => {
        "LEFT JOIN (SELECT o_w_id, o_d_id, o_c_id, sum(ol_amount) AS s FROM orders JOIN order_line \
         ON ol_w_id = o_w_id AND ol_d_id = o_d_id AND ol_o_id = o_id \
         WHERE ol_delivery_d IS NOT NULL GROUP BY o_w_id, o_d_id, o_c_id) dl \
         ON dl.o_w_id = c.c_w_id AND dl.o_d_id = c.c_d_id AND dl.o_c_id = c.c_id"
    };
}

static CONDITIONS: [Condition; 12] = [
    Condition {
        clause: "3.3.2.1",
        text: "W_YTD = sum(D_YTD) per warehouse",
        sql: concat!(
            "SELECT count(*) FROM warehouse w WHERE ",
            money_differs!(
                "w.w_ytd",
                "SELECT coalesce(sum(d_ytd), 0) FROM district WHERE d_w_id = w.w_id"
            )
        ),
    },
    Condition {
        clause: "3.3.2.2",
        text: "D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID) per district",
        sql: "SELECT count(*) FROM district d WHERE \
              d.d_next_o_id - 1 <> coalesce((SELECT max(o_id) FROM orders WHERE o_w_id = d.d_w_id AND o_d_id = d.d_id), 0) \
              OR d.d_next_o_id - 1 <> coalesce((SELECT max(no_o_id) FROM new_order \
                 WHERE no_w_id = d.d_w_id AND no_d_id = d.d_id), d.d_next_o_id - 1)",
    },
    Condition {
        clause: "3.3.2.3",
        text: "max(NO_O_ID) - min(NO_O_ID) + 1 = count(new_order) per district",
        sql: "SELECT count(*) FROM (SELECT max(no_o_id) - min(no_o_id) + 1 AS span, count(*) AS n \
              FROM new_order GROUP BY no_w_id, no_d_id) t WHERE t.span <> t.n",
    },
    Condition {
        clause: "3.3.2.4",
        text: "sum(O_OL_CNT) = count(order_line) per district",
        sql: "SELECT count(*) FROM district d WHERE \
              coalesce((SELECT sum(o_ol_cnt) FROM orders WHERE o_w_id = d.d_w_id AND o_d_id = d.d_id), 0) <> \
              (SELECT count(*) FROM order_line WHERE ol_w_id = d.d_w_id AND ol_d_id = d.d_id)",
    },
    Condition {
        clause: "3.3.2.5",
        text: "O_CARRIER_ID is NULL iff a new_order row exists",
        sql: "SELECT count(*) FROM orders o LEFT JOIN new_order n \
              ON n.no_w_id = o.o_w_id AND n.no_d_id = o.o_d_id AND n.no_o_id = o.o_id \
              WHERE (o.o_carrier_id IS NULL AND n.no_o_id IS NULL) \
              OR (o.o_carrier_id IS NOT NULL AND n.no_o_id IS NOT NULL)",
    },
    Condition {
        clause: "3.3.2.6",
        text: "O_OL_CNT = the order's number of order lines",
        sql: "SELECT count(*) FROM orders o LEFT JOIN \
              (SELECT ol_w_id, ol_d_id, ol_o_id, count(*) AS n FROM order_line GROUP BY ol_w_id, ol_d_id, ol_o_id) l \
              ON l.ol_w_id = o.o_w_id AND l.ol_d_id = o.o_d_id AND l.ol_o_id = o.o_id \
              WHERE l.n IS NULL OR l.n <> o.o_ol_cnt",
    },
    Condition {
        clause: "3.3.2.7",
        text: "OL_DELIVERY_D is NULL iff O_CARRIER_ID is NULL",
        sql: "SELECT count(*) FROM order_line l JOIN orders o \
              ON o.o_w_id = l.ol_w_id AND o.o_d_id = l.ol_d_id AND o.o_id = l.ol_o_id \
              WHERE (l.ol_delivery_d IS NULL AND o.o_carrier_id IS NOT NULL) \
              OR (l.ol_delivery_d IS NOT NULL AND o.o_carrier_id IS NULL)",
    },
    Condition {
        clause: "3.3.2.8",
        text: "W_YTD = sum(H_AMOUNT) per warehouse",
        sql: concat!(
            "SELECT count(*) FROM warehouse w WHERE ",
            money_differs!(
                "w.w_ytd",
                "SELECT coalesce(sum(h_amount), 0) FROM history WHERE h_w_id = w.w_id"
            )
        ),
    },
    Condition {
        clause: "3.3.2.9",
        text: "D_YTD = sum(H_AMOUNT) per district",
        sql: concat!(
            "SELECT count(*) FROM district d WHERE ",
            money_differs!(
                "d.d_ytd",
                "SELECT coalesce(sum(h_amount), 0) FROM history WHERE h_w_id = d.d_w_id AND h_d_id = d.d_id"
            )
        ),
    },
    Condition {
        clause: "3.3.2.10",
        text: "C_BALANCE = sum(delivered OL_AMOUNT) - sum(H_AMOUNT) per customer",
        sql: concat!(
            "SELECT count(*) FROM customer c ",
            delivered_per_customer!(),
            " LEFT JOIN (SELECT h_c_w_id, h_c_d_id, h_c_id, sum(h_amount) AS s FROM history \
               GROUP BY h_c_w_id, h_c_d_id, h_c_id) h \
               ON h.h_c_w_id = c.c_w_id AND h.h_c_d_id = c.c_d_id AND h.h_c_id = c.c_id WHERE ",
            money_differs!("c.c_balance", "coalesce(dl.s, 0) - coalesce(h.s, 0)")
        ),
    },
    Condition {
        clause: "3.3.2.11",
        text: "count(orders) - count(new_order) = 2100 + sum(C_DELIVERY_CNT) per district",
        sql: "SELECT count(*) FROM district d WHERE \
              (SELECT count(*) FROM orders WHERE o_w_id = d.d_w_id AND o_d_id = d.d_id) \
              - (SELECT count(*) FROM new_order WHERE no_w_id = d.d_w_id AND no_d_id = d.d_id) \
              <> 2100 + (SELECT coalesce(sum(c_delivery_cnt), 0) FROM customer \
                 WHERE c_w_id = d.d_w_id AND c_d_id = d.d_id)",
    },
    Condition {
        clause: "3.3.2.12",
        text: "C_BALANCE + C_YTD_PAYMENT = sum(delivered OL_AMOUNT) per customer",
        sql: concat!(
            "SELECT count(*) FROM customer c ",
            delivered_per_customer!(),
            " WHERE ",
            money_differs!("c.c_balance + c.c_ytd_payment", "coalesce(dl.s, 0)")
        ),
    },
];

pub use crate::conditions::ConditionResult;

/// Run all twelve conditions in one read-only transaction.
pub async fn check<S: Session>(session: &mut S) -> Result<Vec<ConditionResult>, DbError> {
    session.begin(TxMode::Snapshot).await?;
    let mut out = Vec::with_capacity(CONDITIONS.len());
    for c in &CONDITIONS {
        let rows = match session.query_sql(c.sql).await {
            Ok(r) => r,
            Err(e) => {
                let _ = session.rollback().await;
                return Err(DbError::new(
                    e.kind,
                    format!("condition {}: {}", c.clause, e.message),
                ));
            }
        };
        out.push(ConditionResult {
            clause: c.clause,
            text: c.text,
            violations: int(first(&rows, c.clause)?, 0, c.clause)?,
        });
    }
    session.commit().await?;
    Ok(out)
}
