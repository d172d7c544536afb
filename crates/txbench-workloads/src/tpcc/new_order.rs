//! New-Order (clause 2.4): enter a complete order in one transaction.

use std::sync::LazyLock;

use txbench_core::schema::Statement;
use txbench_core::{Call, DbError, Outcome, Param, Rows, Session, TxMode, Written};

use super::input::NewOrderInput;
use super::load::now_micros;
use super::sets::{by_size, leak, placeholders};
use crate::fields::{cents, first, float, int, keyed, rows, text};

static WAREHOUSE_TAX: Statement = Statement::new(
    "new_order: warehouse",
    "SELECT w_tax FROM warehouse WHERE w_id = ?",
);
static DISTRICT: Statement = Statement::for_update(
    "new_order: district",
    "SELECT d_tax, d_next_o_id FROM district WHERE d_w_id = ? AND d_id = ?",
);
static DISTRICT_NEXT: Statement = Statement::new(
    "new_order: district update",
    "UPDATE district SET d_next_o_id = ? WHERE d_w_id = ? AND d_id = ?",
);
static CUSTOMER: Statement = Statement::new(
    "new_order: customer",
    "SELECT c_discount, c_last, c_credit FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?",
);
static INSERT_ORDER: Statement = Statement::new(
    "new_order: insert order",
    "INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local) \
     VALUES (?, ?, ?, ?, ?, NULL, ?, ?)",
);
static INSERT_NEW_ORDER: Statement = Statement::new(
    "new_order: insert new_order",
    "INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (?, ?, ?)",
);
/// The most lines an order has (2.4.1.3: five to fifteen).
const MAX_LINES: usize = 15;

/// Every item of the order in one query, for 1 to [`MAX_LINES`] distinct ids:
/// one statement instead of one per line, as go-tpc and HammerDB read them.
static ITEMS: LazyLock<Vec<Statement>> = LazyLock::new(|| {
    by_size(MAX_LINES, |n| {
        Statement::new(
            "new_order: items",
            leak(format!(
                "SELECT i_id, i_price, i_name, i_data FROM item WHERE i_id IN ({})",
                placeholders(n)
            )),
        )
    })
});

/// The stock rows of one supplying warehouse, locked, per district (S_DIST_xx
/// is the district's column, 2.4.2.2) and per count of distinct items.
static STOCK: LazyLock<Vec<Vec<Statement>>> = LazyLock::new(|| {
    (1..=10)
        .map(|d| {
            by_size(MAX_LINES, |n| {
                Statement::for_update(
                    "new_order: stock",
                    leak(format!(
                        "SELECT s_i_id, s_quantity, s_data, s_dist_{d:02} FROM stock \
                         WHERE s_w_id = ? AND s_i_id IN ({})",
                        placeholders(n)
                    )),
                )
            })
        })
        .collect()
});

/// Every stock row of one supplying warehouse updated in one statement, per
/// count of distinct items: each column's new value chosen by item.
static STOCK_UPDATE: LazyLock<Vec<Statement>> = LazyLock::new(|| {
    by_size(MAX_LINES, |n| {
        // The ELSE gives the CASE its type (PostgreSQL takes a CASE of bare
        // parameters as text); it is never taken, every row is in the IN list.
        let by_item = |otherwise: &str| {
            format!(
                "CASE s_i_id{} ELSE {otherwise} END",
                " WHEN ? THEN ?".repeat(n)
            )
        };
        Statement::new(
            "new_order: stock update",
            leak(format!(
                "UPDATE stock SET s_quantity = {}, s_ytd = s_ytd + {}, \
                 s_order_cnt = s_order_cnt + {}, s_remote_cnt = s_remote_cnt + {} \
                 WHERE s_w_id = ? AND s_i_id IN ({})",
                by_item("s_quantity"),
                by_item("0"),
                by_item("0"),
                by_item("0"),
                placeholders(n)
            )),
        )
    })
});

/// Columns of an order line as New-Order inserts it.
const LINE_COLUMNS: usize = 9;

/// Every line of the order in one multi-row INSERT, per count of lines.
static INSERT_LINES: LazyLock<Vec<Statement>> = LazyLock::new(|| {
    by_size(MAX_LINES, |n| {
        let row = "(?, ?, ?, ?, ?, ?, NULL, ?, ?, ?)";
        Statement::new(
            "new_order: insert order_lines",
            leak(format!(
                "INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, \
                 ol_supply_w_id, ol_delivery_d, ol_quantity, ol_amount, ol_dist_info) VALUES {}",
                vec![row; n].join(", ")
            )),
        )
    })
});

/// What the terminal displays after a committed New-Order (2.4.3.3), in part.
#[derive(Debug, Clone, PartialEq)]
pub struct NewOrderOutput {
    /// The new order's id.
    pub o_id: i64,
    /// Total amount: sum(OL_AMOUNT) * (1 - C_DISCOUNT) * (1 + W_TAX + D_TAX).
    pub total: f64,
    /// Brand-generic flag per line, in line order ('B' when both item and stock say ORIGINAL).
    pub brand_generic: Vec<char>,
}

/// The fields New-Order states in [`Written`]: the order's key, its customer,
/// its lines, the sum of their amounts in cents and its entry date (µs), which
/// tells it from another order that later took the same id after a rollback.
pub const ACK_FIELDS: &str = "w_id d_id o_id c_id ol_cnt amount_cents entry_us";

/// Execute New-Order. An unused item id rolls the transaction back (2.4.2.3) and
/// returns [`Outcome::ExpectedRollback`]; either end is stated in `written`
/// ([`ACK_FIELDS`]; a rollback's amount is 0).
///
/// Statements that do not depend on each other go out as one pipeline, so a
/// network engine needs three round trips: warehouse, district and customer
/// (with BEGIN); the district update, the order rows, the items and the stock
/// rows (locked a warehouse at a time in key order, so concurrent New-Orders
/// cannot deadlock; the 1% rollback locks them too, and releases them when it
/// rolls back); every stock update and the order lines (with COMMIT). Items,
/// stock rows and order lines each take one statement, not one per line: a
/// server sends a reply per statement, and those replies were most of its
/// work.
pub async fn execute<S: Session>(
    session: &mut S,
    input: &NewOrderInput,
    written: &mut Written,
) -> Result<(Outcome, Option<NewOrderOutput>), DbError> {
    let (w, d, c) = (input.w_id, input.d_id, input.c_id);
    let ol_cnt = input.lines.len();
    session.begin(TxMode::ReadWrite).await?;
    let header = Header::read(session, input).await?;
    let o_id = header.o_id;
    let entry = now_micros();
    // Its identity before its first write: an attempt that fails from here on
    // (or rolls back on purpose) is logged, and nothing of it may remain.
    written.writing([w, d, o_id, c, ol_cnt as i64, 0, entry]);
    let next = [Param::Int(o_id + 1), Param::Int(w), Param::Int(d)];
    let order = [
        Param::Int(o_id),
        Param::Int(d),
        Param::Int(w),
        Param::Int(c),
        Param::Timestamp(entry),
        Param::Int(ol_cnt as i64),
        Param::Int(i64::from(input.all_local())),
    ];
    let wanted = Wanted::of(input);
    let (item_keys, stock_keys) = wanted.keys();
    let stock_of_district = &STOCK[(d - 1) as usize];
    let mut calls = vec![
        Call::execute(&DISTRICT_NEXT, &next),
        Call::execute(&INSERT_ORDER, &order),
        Call::execute(&INSERT_NEW_ORDER, &order[..3]),
        Call::query(&ITEMS[item_keys.len() - 1], &item_keys),
    ];
    calls.extend(
        wanted
            .stock
            .iter()
            .zip(&stock_keys)
            .map(|((_, items), keys)| Call::query(&stock_of_district[items.len() - 1], keys)),
    );
    let replies = session.pipeline(&calls).await?;
    let items = rows(&replies[3]);
    if items.len() < wanted.items.len() {
        // The unused item of the 1% rollback (2.4.2.3): undo everything.
        session.rollback().await?;
        return Ok((Outcome::ExpectedRollback, None));
    }
    let mut stock = Stock::read(&wanted, &replies[4..])?;
    let lines = Lines::price(input, o_id, items, &mut stock)?;
    let updates = stock.updates(&wanted, w);
    let mut calls: Vec<Call<'_>> = updates
        .iter()
        .map(|(statement, params)| Call::execute(statement, params))
        .collect();
    calls.push(Call::execute(&INSERT_LINES[ol_cnt - 1], &lines.params));
    written.committing([w, d, o_id, c, ol_cnt as i64, lines.sum_cents, entry]);
    session.pipeline_and_commit(&calls).await?;
    Ok((
        Outcome::Committed,
        Some(NewOrderOutput {
            o_id,
            total: header.total(lines.sum),
            brand_generic: lines.brand_generic,
        }),
    ))
}

/// What New-Order reads first: the taxes, the order's number and the
/// customer's discount.
struct Header {
    w_tax: f64,
    d_tax: f64,
    o_id: i64,
    c_discount: f64,
}

impl Header {
    /// The warehouse, the district and the customer, in one pipeline.
    async fn read<S: Session>(session: &mut S, input: &NewOrderInput) -> Result<Header, DbError> {
        let wdc = [
            Param::Int(input.w_id),
            Param::Int(input.d_id),
            Param::Int(input.c_id),
        ];
        let replies = session
            .pipeline(&[
                Call::query(&WAREHOUSE_TAX, &wdc[..1]),
                Call::query(&DISTRICT, &wdc[..2]),
                Call::query(&CUSTOMER, &wdc),
            ])
            .await?;
        let district = first(rows(&replies[1]), "district")?;
        Ok(Header {
            w_tax: float(first(rows(&replies[0]), "warehouse")?, 0, "w_tax")?,
            d_tax: float(district, 0, "d_tax")?,
            o_id: int(district, 1, "d_next_o_id")?,
            c_discount: float(first(rows(&replies[2]), "customer")?, 0, "c_discount")?,
        })
    }

    /// The order's total (2.4.2.2) from the sum of its lines' amounts.
    fn total(&self, sum: f64) -> f64 {
        cents(sum * (1.0 - self.c_discount) * (1.0 + self.w_tax + self.d_tax))
    }
}

/// The order lines, priced, and what their stock rows become.
struct Lines<'r> {
    /// Each line's ORDER_LINE columns, in turn.
    params: Vec<Param<'r>>,
    brand_generic: Vec<char>,
    sum: f64,
    sum_cents: i64,
}

impl<'r> Lines<'r> {
    /// Price each line of `input` (order `o_id`) from its item, and take its
    /// quantity from its stock row.
    fn price(
        input: &NewOrderInput,
        o_id: i64,
        items: &Rows,
        stock: &mut Stock<'r>,
    ) -> Result<Lines<'r>, DbError> {
        let ol_cnt = input.lines.len();
        let mut out = Lines {
            params: Vec::with_capacity(ol_cnt * LINE_COLUMNS),
            brand_generic: vec!['G'; ol_cnt],
            sum: 0.0,
            sum_cents: 0,
        };
        for (i, line) in input.lines.iter().enumerate() {
            let item = keyed(items, line.item, "item")?;
            let price = float(item, 1, "i_price")?;
            let i_data = text(item, 3, "i_data")?;
            let row = stock.row(line.supply_w_id, line.item)?;
            row.take(line.quantity);
            if i_data.contains("ORIGINAL") && row.data.contains("ORIGINAL") {
                out.brand_generic[i] = 'B';
            }
            let amount = cents(line.quantity as f64 * price);
            out.sum += amount;
            out.sum_cents += (amount * 100.0).round() as i64;
            out.params.extend([
                Param::Int(o_id),
                Param::Int(input.d_id),
                Param::Int(input.w_id),
                Param::Int(i as i64 + 1),
                Param::Int(line.item),
                Param::Int(line.supply_w_id),
                Param::Int(line.quantity),
                Param::Float(amount),
                Param::Text(row.dist_info),
            ]);
        }
        Ok(out)
    }
}

/// The distinct items an order names, and the distinct stock rows it takes per
/// supplying warehouse: warehouses ascending and items ascending in each, the
/// order every New-Order locks them in.
struct Wanted {
    items: Vec<i64>,
    stock: Vec<(i64, Vec<i64>)>,
}

impl Wanted {
    fn of(input: &NewOrderInput) -> Wanted {
        let mut items: Vec<i64> = input.lines.iter().map(|l| l.item).collect();
        items.sort_unstable();
        items.dedup();
        let mut keys: Vec<(i64, i64)> = input
            .lines
            .iter()
            .map(|l| (l.supply_w_id, l.item))
            .collect();
        keys.sort_unstable();
        keys.dedup();
        let mut stock: Vec<(i64, Vec<i64>)> = Vec::with_capacity(1);
        for (supply_w, item) in keys {
            match stock.last_mut() {
                Some((w, items)) if *w == supply_w => items.push(item),
                _ => stock.push((supply_w, vec![item])),
            }
        }
        Wanted { items, stock }
    }

    /// The items query's parameters, and each stock query's (its warehouse,
    /// then its items).
    fn keys(&self) -> (Vec<Param<'static>>, Vec<Vec<Param<'static>>>) {
        let items = self.items.iter().map(|&i| Param::Int(i)).collect();
        let stock = self
            .stock
            .iter()
            .map(|(supply_w, items)| {
                std::iter::once(*supply_w)
                    .chain(items.iter().copied())
                    .map(Param::Int)
                    .collect()
            })
            .collect();
        (items, stock)
    }
}

/// One stock row as New-Order read it, with what its lines change.
struct StockRow<'r> {
    w_id: i64,
    i_id: i64,
    /// S_QUANTITY as read, then as the lines so far leave it.
    quantity: i64,
    data: &'r str,
    dist_info: &'r str,
    /// What the lines add to S_YTD (their quantities) and to S_ORDER_CNT.
    ytd: i64,
    order_cnt: i64,
}

impl StockRow<'_> {
    /// A line takes `quantity` (2.4.2.2): subtract it, or add 91 when fewer
    /// than quantity + 10 would remain. A second line of the same item
    /// starts from what the first one left.
    fn take(&mut self, quantity: i64) {
        self.quantity = if self.quantity >= quantity + 10 {
            self.quantity - quantity
        } else {
            self.quantity - quantity + 91
        };
        self.ytd += quantity;
        self.order_cnt += 1;
    }
}

/// The stock rows an order takes.
struct Stock<'r> {
    rows: Vec<StockRow<'r>>,
}

impl<'r> Stock<'r> {
    /// The rows of the stock queries, one reply per supplying warehouse of `wanted`.
    fn read(wanted: &Wanted, replies: &'r [txbench_core::Reply]) -> Result<Stock<'r>, DbError> {
        let mut out = Vec::with_capacity(MAX_LINES);
        for ((w_id, _), reply) in wanted.stock.iter().zip(replies) {
            for row in rows(reply).iter() {
                out.push(StockRow {
                    w_id: *w_id,
                    i_id: int(row, 0, "s_i_id")?,
                    quantity: int(row, 1, "s_quantity")?,
                    data: text(row, 2, "s_data")?,
                    dist_info: text(row, 3, "s_dist_xx")?,
                    ytd: 0,
                    order_cnt: 0,
                });
            }
        }
        Ok(Stock { rows: out })
    }

    /// The row of `item` in warehouse `w_id`.
    fn row(&mut self, w_id: i64, item: i64) -> Result<&mut StockRow<'r>, DbError> {
        self.rows
            .iter_mut()
            .find(|r| r.w_id == w_id && r.i_id == item)
            .ok_or_else(|| DbError::missing("stock"))
    }

    /// A [`STOCK_UPDATE`] and its parameters per supplying warehouse of
    /// `wanted`: each CASE's item and value in turn, then the warehouse and
    /// the items. A line supplied by another warehouse than the order's
    /// (`w_id`) counts in S_REMOTE_CNT.
    fn updates(
        &self,
        wanted: &Wanted,
        w_id: i64,
    ) -> Vec<(&'static Statement, Vec<Param<'static>>)> {
        wanted
            .stock
            .iter()
            .map(|&(supply_w, _)| {
                let rows: Vec<&StockRow<'_>> =
                    self.rows.iter().filter(|r| r.w_id == supply_w).collect();
                let remote = supply_w != w_id;
                let columns = |r: &StockRow<'_>| {
                    [
                        r.quantity,
                        r.ytd,
                        r.order_cnt,
                        if remote { r.order_cnt } else { 0 },
                    ]
                };
                let mut params = Vec::with_capacity(rows.len() * 9 + 1);
                for column in 0..4 {
                    for r in &rows {
                        params.extend([Param::Int(r.i_id), Param::Int(columns(r)[column])]);
                    }
                }
                params.push(Param::Int(supply_w));
                params.extend(rows.iter().map(|r| Param::Int(r.i_id)));
                (&STOCK_UPDATE[rows.len() - 1], params)
            })
            .collect()
    }
}
