//! Payment (clause 2.5): record a customer's payment.

use std::fmt::Write as _;

use txbench_core::schema::Statement;
use txbench_core::{Call, DbError, Outcome, Param, Reply, Session, TxMode, Written};

use super::customer;
use super::input::{CustomerKey, PaymentInput};
use super::load::now_micros;
use crate::fields::{cents, first, float, int, rows, text};

static WAREHOUSE_YTD: Statement = Statement::new(
    "payment: warehouse update",
    "UPDATE warehouse SET w_ytd = w_ytd + ? WHERE w_id = ?",
);
static WAREHOUSE: Statement = Statement::new(
    "payment: warehouse",
    "SELECT w_name, w_street_1, w_street_2, w_city, w_state, w_zip FROM warehouse WHERE w_id = ?",
);
static DISTRICT_YTD: Statement = Statement::new(
    "payment: district update",
    "UPDATE district SET d_ytd = d_ytd + ? WHERE d_w_id = ? AND d_id = ?",
);
static DISTRICT: Statement = Statement::new(
    "payment: district",
    "SELECT d_name, d_street_1, d_street_2, d_city, d_state, d_zip FROM district WHERE d_w_id = ? AND d_id = ?",
);
static CUSTOMER: Statement = Statement::for_update(
    "payment: customer",
    "SELECT c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone, c_since, \
     c_credit, c_credit_lim, c_discount, c_balance, c_ytd_payment, c_payment_cnt \
     FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?",
);
static CUSTOMER_DATA: Statement = Statement::new(
    "payment: customer data",
    "SELECT c_data FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?",
);
static CUSTOMER_UPDATE: Statement = Statement::new(
    "payment: customer update",
    "UPDATE customer SET c_balance = ?, c_ytd_payment = ?, c_payment_cnt = ? \
     WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?",
);
static CUSTOMER_UPDATE_BAD_CREDIT: Statement = Statement::new(
    "payment: customer update (bad credit)",
    "UPDATE customer SET c_balance = ?, c_ytd_payment = ?, c_payment_cnt = ?, c_data = ? \
     WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?",
);
static INSERT_HISTORY: Statement = Statement::new(
    "payment: insert history",
    "INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data) \
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
);

/// C_DATA keeps at most this many characters (2.5.2.2).
const C_DATA_MAX: usize = 500;

/// The fields Payment states in [`Written`]: the customer paid for, the
/// district paid to, the amount in cents and the history row's date (µs),
/// which with the rest identifies the history row.
pub const ACK_FIELDS: &str = "c_id c_d_id c_w_id d_id w_id amount_cents h_date_us";

/// Execute Payment; returns the customer's id (useful when chosen by name).
///
/// Pipelined: warehouse and district, and the customer row (chosen by id) or
/// the customer's name lookup, in one round trip; the customer row of a name
/// in a second (and C_DATA for bad credit in one more); the customer update
/// and the history row with COMMIT in the last.
pub async fn execute<S: Session>(
    session: &mut S,
    input: &PaymentInput,
    written: &mut Written,
) -> Result<(Outcome, i64), DbError> {
    let (w, d, cw, cd, amount) = (
        input.w_id,
        input.d_id,
        input.c_w_id,
        input.c_d_id,
        input.amount,
    );
    session.begin(TxMode::ReadWrite).await?;
    let (h_data, c, customer) = pay_and_find(session, input).await?;
    let row = first(rows(&customer), "customer")?;
    let paid = [
        Param::Float(cents(float(row, 13, "c_balance")? - amount)),
        Param::Float(cents(float(row, 14, "c_ytd_payment")? + amount)),
        Param::Int(int(row, 15, "c_payment_cnt")? + 1),
    ];
    let bad_credit = text(row, 10, "c_credit")? == "BC";

    let h_date = now_micros();
    // Its identity, its history row, once the customer is known: an attempt
    // that fails from here on is logged, and its history row may not remain.
    let amount_cents = (amount * 100.0).round() as i64;
    written.writing([c, cd, cw, d, w, amount_cents, h_date]);
    let history = [
        Param::Int(c),
        Param::Int(cd),
        Param::Int(cw),
        Param::Int(d),
        Param::Int(w),
        Param::Timestamp(h_date),
        Param::Float(amount),
        Param::Text(&h_data),
    ];
    let [balance, ytd, count] = paid;
    let key = [Param::Int(cw), Param::Int(cd), Param::Int(c)];
    // Arrays, not a Vec: no allocation for the update's parameters.
    let (data, with_data, without_data);
    let update = if bad_credit {
        data = new_c_data(session, input, c).await?;
        with_data = [
            balance,
            ytd,
            count,
            Param::Text(&data),
            key[0],
            key[1],
            key[2],
        ];
        Call::execute(&CUSTOMER_UPDATE_BAD_CREDIT, &with_data)
    } else {
        without_data = [balance, ytd, count, key[0], key[1], key[2]];
        Call::execute(&CUSTOMER_UPDATE, &without_data)
    };
    written.committing_as_stated();
    session
        .pipeline_and_commit(&[update, Call::execute(&INSERT_HISTORY, &history)])
        .await?;
    Ok((Outcome::Committed, c))
}

/// Add the payment to the warehouse's and the district's year to date, and
/// find the customer; gives H_DATA, the customer's id and its row. A
/// customer chosen by id is read (and locked) with the rest; one chosen by
/// name needs its id first.
async fn pay_and_find<S: Session>(
    session: &mut S,
    input: &PaymentInput,
) -> Result<(String, i64, Reply), DbError> {
    let (cw, cd) = (input.c_w_id, input.c_d_id);
    let wh = [
        Param::Float(input.amount),
        Param::Int(input.w_id),
        Param::Int(input.d_id),
    ];
    let by_name_key;
    let by_id_key;
    let mut calls = vec![
        Call::execute(&WAREHOUSE_YTD, &wh[..2]),
        Call::query(&WAREHOUSE, &wh[1..2]),
        Call::execute(&DISTRICT_YTD, &wh),
        Call::query(&DISTRICT, &wh[1..]),
    ];
    match &input.customer {
        CustomerKey::LastName(name) => {
            by_name_key = [Param::Int(cw), Param::Int(cd), Param::Text(name)];
            calls.push(Call::query(&customer::BY_LAST_NAME, &by_name_key));
        }
        CustomerKey::Id(id) => {
            by_id_key = [Param::Int(cw), Param::Int(cd), Param::Int(*id)];
            calls.push(Call::query(&CUSTOMER, &by_id_key));
        }
    }
    let mut replies = session.pipeline(&calls).await?;
    let w_name = text(first(rows(&replies[1]), "warehouse")?, 0, "w_name")?;
    let d_name = text(first(rows(&replies[3]), "district")?, 0, "d_name")?;
    // H_DATA is W_NAME and D_NAME separated by four spaces (2.5.2.2).
    let h_data = format!("{w_name}    {d_name}");
    let (c, customer) = match &input.customer {
        CustomerKey::Id(id) => (*id, replies.swap_remove(4)),
        CustomerKey::LastName(name) => {
            let c = customer::middle(rows(&replies[4]), name)?;
            let key = [Param::Int(cw), Param::Int(cd), Param::Int(c)];
            (c, Reply::Rows(session.query(&CUSTOMER, &key).await?))
        }
    };
    Ok((h_data, c, customer))
}

/// A bad-credit customer's C_DATA with the payment prepended, keeping 500
/// characters (2.5.2.2).
async fn new_c_data<S: Session>(
    session: &mut S,
    input: &PaymentInput,
    c: i64,
) -> Result<String, DbError> {
    let PaymentInput {
        w_id: w,
        d_id: d,
        c_w_id: cw,
        c_d_id: cd,
        amount,
        ..
    } = *input;
    let key = [Param::Int(cw), Param::Int(cd), Param::Int(c)];
    let rows_d = session.query(&CUSTOMER_DATA, &key).await?;
    let old = text(first(&rows_d, "customer data")?, 0, "c_data")?;
    let mut new = String::with_capacity(C_DATA_MAX + 64);
    let _ = write!(new, "{c} {cd} {cw} {d} {w} {amount:.2} | ");
    new.push_str(old);
    let cut = new
        .char_indices()
        .nth(C_DATA_MAX)
        .map_or(new.len(), |(i, _)| i);
    new.truncate(cut);
    Ok(new)
}
