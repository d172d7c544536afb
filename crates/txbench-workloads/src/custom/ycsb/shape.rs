//! The shape of YCSB's records (`--field-count`, `--field-length`) applied
//! to a core workload's file: the table's fields, the values written, and an
//! update that writes one field chosen at random, as YCSB's does by default
//! (`writeallfields=false`).

use txbench_core::schema::ColumnType;

use super::super::spec::KvForm;
use super::super::spec::{Column, Generator, Spec, Statement, Transaction};

/// How many fields a record has and how long each is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    /// Fields per record (YCSB's `fieldcount`).
    pub fields: u32,
    /// Characters per field (YCSB's `fieldlength`).
    pub length: u32,
}

impl Default for Shape {
    /// YCSB's: ten fields of 100 characters.
    fn default() -> Shape {
        Shape {
            fields: 10,
            length: 100,
        }
    }
}

/// The largest field count taken (a table of that many columns loads on
/// SQLite and the key-value stores; PostgreSQL and MariaDB hold fewer of
/// wider fields, and an engine refuses records past its row's limit before
/// a load writes anything: `Engine::can_hold`).
pub const MOST_FIELDS: u32 = 1_000;
/// The longest field taken (a `varchar` every engine holds in a row).
pub const LONGEST_FIELD: u32 = 10_000;

const TABLE: &str = "usertable";
const KEY: &str = "ycsb_key";
/// The parameter that chooses an update's field.
const FIELD: &str = "field";

/// `spec` (a shipped core workload) with records of `shape`.
pub fn shaped(mut spec: Spec, shape: Shape) -> Spec {
    let field = |i: u32| format!("field{i}");
    for table in &mut spec.tables {
        let key = table.columns.remove(0);
        table.columns = std::iter::once(key)
            .chain((0..shape.fields).map(|i| Column {
                name: field(i),
                ty: ColumnType::Varchar(shape.length as u16),
                nullable: false,
                generator: text(shape),
                distinct: None,
            }))
            .collect();
    }
    let all: Vec<String> = spec.tables[0]
        .columns
        .iter()
        .map(|c| c.name.clone())
        .collect();
    for t in &mut spec.transactions {
        for (_, g) in &mut t.params {
            if let Generator::Text { .. } = g {
                *g = text(shape);
            }
        }
        for i in 0..t.statements.len() {
            let kv = t.statements[i].kv.clone();
            match kv {
                Some(KvForm::Read { .. } | KvForm::Scan { .. }) => {
                    read_all(&mut t.statements[i], &all)
                }
                Some(KvForm::Write { insert: true, .. }) => insert_all(t, i, shape),
                Some(KvForm::Write { insert: false, .. }) => update_one(t, i, shape),
                Some(KvForm::Ping) | None => {}
            }
        }
    }
    spec
}

/// Every field drawn alike: `length` letters and digits.
fn text(shape: Shape) -> Generator {
    Generator::Text {
        min: shape.length,
        max: shape.length,
    }
}

/// A read of the whole record (`SELECT *`) reads every field there is.
fn read_all(s: &mut Statement, all: &[String]) {
    if let Some(KvForm::Read { columns, .. } | KvForm::Scan { columns, .. }) = &mut s.kv {
        *columns = all.to_vec();
    }
}

/// An insert writes every field, each its own drawn value.
fn insert_all(t: &mut Transaction, i: usize, shape: Shape) {
    let values: Vec<String> = (0..shape.fields).map(|f| format!("f{f}")).collect();
    t.params
        .retain(|(n, g)| !matches!(g, Generator::Text { .. }) || !n.starts_with('f'));
    t.params
        .extend(values.iter().map(|v| (v.clone(), text(shape))));
    let fields: Vec<String> = (0..shape.fields).map(|f| format!("field{f}")).collect();
    let s = &mut t.statements[i];
    s.sql = format!(
        "INSERT INTO {TABLE} ({KEY}, {}) VALUES (?{})",
        fields.join(", "),
        ", ?".repeat(fields.len())
    );
    s.args = std::iter::once("key".to_string()).chain(values).collect();
    if let Some(KvForm::Write { set, .. }) = &mut s.kv {
        *set = fields.into_iter().zip(1..).collect();
    }
}

/// An update writes one field, chosen uniformly by a drawn `field`.
fn update_one(t: &mut Transaction, i: usize, shape: Shape) {
    let last = shape.fields as i64 - 1;
    t.params.push((
        FIELD.to_string(),
        Generator::Uniform {
            min: 0,
            max: last,
            home_step: 0,
        },
    ));
    let s = &mut t.statements[i];
    let Some(KvForm::Write { key, set, .. }) = s.kv.clone() else {
        return;
    };
    let value = set[0].1;
    let form = |f: u32| {
        let sql = format!("UPDATE {TABLE} SET field{f} = ? WHERE {KEY} = ?");
        let kv = KvForm::Write {
            table: TABLE.to_string(),
            key,
            set: vec![(format!("field{f}"), value)],
            insert: false,
        };
        (sql, Some(kv))
    };
    let (sql, kv) = form(0);
    s.sql = sql;
    s.kv = kv;
    s.variants = (1..shape.fields).map(form).collect();
    s.pick = Some(FIELD.to_string());
}

#[cfg(test)]
mod tests {
    use super::super::{Core, spec};
    use super::*;

    #[test]
    fn records_take_the_shape_and_an_update_picks_one_field() {
        let shape = Shape {
            fields: 3,
            length: 7,
        };
        let a = shaped(spec(Core::A, None), shape);
        let columns: Vec<&str> = a.tables[0]
            .columns
            .iter()
            .map(|c| c.name.as_str())
            .collect();
        assert_eq!(columns, ["ycsb_key", "field0", "field1", "field2"]);
        assert_eq!(a.tables[0].columns[3].ty, ColumnType::Varchar(7));
        let update = &a.transactions[1];
        assert_eq!(update.params.last().unwrap().0, "field");
        let s = &update.statements[0];
        assert_eq!(s.pick.as_deref(), Some("field"));
        assert_eq!(s.variants.len(), 2);
        assert_eq!(
            s.variants[1].0,
            "UPDATE usertable SET field2 = ? WHERE ycsb_key = ?"
        );
        assert_eq!(s.args, ["value", "key"]);
        let Some(KvForm::Read { columns, .. }) = &a.transactions[0].statements[0].kv else {
            panic!("a read");
        };
        assert_eq!(columns.len(), 4);

        let e = shaped(spec(Core::E, None), shape);
        let insert = &e.transactions[1];
        assert_eq!(
            insert.statements[0].sql,
            "INSERT INTO usertable (ycsb_key, field0, field1, field2) VALUES (?, ?, ?, ?)"
        );
        assert_eq!(insert.statements[0].args, ["key", "f0", "f1", "f2"]);
        let names: Vec<&str> = insert.params.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["key", "f0", "f1", "f2"]);
        assert!(matches!(
            insert.params[1].1,
            Generator::Text { min: 7, max: 7 }
        ));
    }
}
