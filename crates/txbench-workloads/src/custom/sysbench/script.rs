//! sysbench's OLTP scripts written as workload files: the text of one for a
//! script, its options and a table count, statement for statement as
//! sysbench 1.0's `oltp_*.lua` send them, then checked as any file is. Each
//! statement names `sbtest1`; with more tables txbench gives it one variant
//! per table, picked by a parameter drawn per group of statements, as
//! sysbench draws a table for each group.

use std::fmt::Write;

use serde::{Deserialize, Serialize};

use crate::custom::parse;
use crate::custom::spec::Spec;

/// One of sysbench's OLTP scripts (`sysbench oltp_read_write run`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Script {
    /// Point selects, ranges, index and non-index updates, a delete and
    /// an insert, between BEGIN and COMMIT.
    #[default]
    OltpReadWrite,
    /// Point selects and ranges between BEGIN and COMMIT.
    OltpReadOnly,
    /// Index and non-index updates, a delete and an insert.
    OltpWriteOnly,
    /// One point select, in autocommit.
    OltpPointSelect,
    /// One index update (`k = k + 1`), in autocommit.
    OltpUpdateIndex,
    /// One non-index update (`c`), in autocommit.
    OltpUpdateNonIndex,
    /// One insert of a new row, in autocommit.
    OltpInsert,
    /// One delete, in autocommit.
    OltpDelete,
}

/// sysbench's request distributions (`--rand-type`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RandType {
    /// Every row alike (sysbench 1.1's default).
    #[default]
    Uniform,
    /// sysbench 1.0's default: 75% of the requests on 1% of the rows.
    Special,
    /// The mean of 12 uniform draws: bunched at the middle.
    Gaussian,
    /// 80% of the requests on the first 20% of the rows.
    Pareto,
    /// Zipfian of exponent 0.8 over the rows, the first the hottest
    /// (sysbench 1.1's `--rand-zipfian-exp` default).
    Zipfian,
}

/// The per-statement counts and switches of sysbench's OLTP scripts, with
/// sysbench's defaults.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Counts {
    /// Rows a range query spans.
    pub range_size: u32,
    /// Point selects a transaction.
    pub point_selects: u32,
    /// Simple ranges a transaction.
    pub simple_ranges: u32,
    /// SUM() ranges a transaction.
    pub sum_ranges: u32,
    /// ORDER BY ranges a transaction.
    pub order_ranges: u32,
    /// DISTINCT ranges a transaction.
    pub distinct_ranges: u32,
    /// Index updates a transaction.
    pub index_updates: u32,
    /// Non-index updates a transaction.
    pub non_index_updates: u32,
    /// Delete-and-insert pairs a transaction.
    pub delete_inserts: u32,
    /// Whether the range queries run at all.
    pub range_selects: bool,
    /// Every statement in autocommit, no BEGIN or COMMIT.
    pub skip_trx: bool,
    /// How rows are chosen.
    pub rand_type: RandType,
}

impl Default for Counts {
    fn default() -> Counts {
        Counts {
            range_size: 100,
            point_selects: 10,
            simple_ranges: 1,
            sum_ranges: 1,
            order_ranges: 1,
            distinct_ranges: 1,
            index_updates: 1,
            non_index_updates: 1,
            delete_inserts: 1,
            range_selects: true,
            skip_trx: false,
            rand_type: RandType::Uniform,
        }
    }
}

/// sysbench's template of `c`: ten groups of 11 digits.
const C_PATTERN: &str = "###########-###########-###########-###########-###########-\
                         ###########-###########-###########-###########-###########";
/// sysbench's template of `pad`: five groups of 11 digits.
const PAD_PATTERN: &str = "###########-###########-###########-###########-###########";

/// The most tables a run may name (sysbench has no bound; each is a
/// variant of every statement).
pub const MOST_TABLES: u32 = 1_000;

/// `script` with `counts` over `tables` tables, checked.
pub fn spec(script: Script, counts: &Counts, tables: u32) -> Spec {
    let (text, groups) = file(script, counts, tables);
    let mut spec = parse("sysbench.toml", &text).expect("the generated files check");
    spread_over_tables(&mut spec, &groups, tables);
    spec
}

/// The workload file of `script`, and the group of each statement.
fn file(script: Script, counts: &Counts, tables: u32) -> (String, Vec<usize>) {
    let mut out = String::new();
    header(&mut out, script);
    for t in 1..=tables {
        table(&mut out, t);
    }
    let mut txn = Txn::new(counts, tables);
    match script {
        Script::OltpReadWrite => {
            txn.point_selects(counts.point_selects);
            txn.ranges(counts);
            txn.writes(counts);
        }
        Script::OltpReadOnly => {
            txn.point_selects(counts.point_selects);
            txn.ranges(counts);
        }
        Script::OltpWriteOnly => txn.writes(counts),
        Script::OltpPointSelect => txn.point_selects(1),
        Script::OltpUpdateIndex => txn.index_updates(counts.index_updates),
        Script::OltpUpdateNonIndex => txn.non_index_updates(counts.non_index_updates),
        Script::OltpInsert => txn.insert(),
        Script::OltpDelete => txn.delete(),
    }
    let single = !matches!(
        script,
        Script::OltpReadWrite | Script::OltpReadOnly | Script::OltpWriteOnly
    );
    let read_only = matches!(script, Script::OltpReadOnly | Script::OltpPointSelect);
    txn.write(&mut out, read_only, single || counts.skip_trx);
    for t in 1..=tables {
        // The ids run 1 to the row count as prepare made them: what
        // read_write's delete and insert of one id keep.
        let _ = write!(
            out,
            "\n[[invariant]]\nname = \"sbtest{t}'s ids run from 1 to its row count\"\n\
             sql = \"SELECT count(*) FROM sbtest{t} HAVING count(*) <> max(id) OR min(id) <> 1\"\n"
        );
    }
    (out, txn.groups_of)
}

fn header(out: &mut String, script: Script) {
    let name = txbench_core::settings::name_of(&script);
    let _ = write!(
        out,
        "[workload]\nname = \"sysbench\"\ntitle = \"sysbench {name}\"\n\
         scale = \"table-size\"\ndefault_scale = 10000\n\
         terminals_per_scale = 0.000000001\nscale_from = \"sbtest1\"\n"
    );
}

fn table(out: &mut String, t: u32) {
    let _ = write!(
        out,
        "\n[[table]]\nname = \"sbtest{t}\"\nrows_per_scale = 1\nprimary_key = [\"id\"]\n\
         indexes = [{{ name = \"k_{t}\", columns = [\"k\"] }}]\ncolumns = [\n\
         {{ name = \"id\", type = \"int\", gen = \"sequence\" }},\n\
         {{ name = \"k\", type = \"int\", gen = \"key\", of = \"sbtest{t}.id\" }},\n\
         {{ name = \"c\", type = \"char(120)\", gen = \"pattern\", pattern = \"{C_PATTERN}\" }},\n\
         {{ name = \"pad\", type = \"char(60)\", gen = \"pattern\", pattern = \"{PAD_PATTERN}\" }},\n]\n"
    );
}

/// One transaction type being written: its parameters and statements, and
/// the table parameter of each group of statements.
struct Txn {
    params: Vec<String>,
    statements: Vec<String>,
    /// Each statement's group (from 1).
    groups_of: Vec<usize>,
    /// A row's id as `--rand-type` draws it, for a parameter's line.
    id_gen: String,
    tables: u32,
    /// The group count, which names each group's parameters.
    groups: usize,
}

impl Txn {
    fn new(counts: &Counts, tables: u32) -> Txn {
        let of = "of = \"sbtest1.id\"";
        let id_gen = match counts.rand_type {
            RandType::Uniform => format!("gen = \"key\", {of}"),
            RandType::Special => format!("gen = \"special\", {of}"),
            RandType::Gaussian => format!("gen = \"gaussian\", {of}"),
            RandType::Pareto => format!("gen = \"pareto\", {of}"),
            RandType::Zipfian => format!("gen = \"zipfian\", {of}, theta = 0.8"),
        };
        Txn {
            params: Vec::new(),
            statements: Vec::new(),
            groups_of: Vec::new(),
            id_gen,
            tables,
            groups: 0,
        }
    }

    /// A new group of statements on one table, drawn as sysbench draws it:
    /// its table parameter (when there are more tables than one) named
    /// `table_g<N>`.
    fn group(&mut self) -> usize {
        self.groups += 1;
        if self.tables > 1 {
            let last = self.tables - 1;
            self.params.push(format!(
                "{{ name = \"table_g{}\", gen = \"uniform\", min = 0, max = {last} }}",
                self.groups
            ));
        }
        self.groups
    }

    fn id(&mut self, name: &str) {
        let line = format!("{{ name = \"{name}\", {} }}", self.id_gen);
        self.params.push(line);
    }

    fn text(&mut self, name: &str, pattern: &str) {
        let line = format!("{{ name = \"{name}\", gen = \"pattern\", pattern = \"{pattern}\" }}");
        self.params.push(line);
    }

    fn statement(&mut self, group: usize, name: &str, sql: &str) {
        self.groups_of.push(group);
        self.statements
            .push(format!("{{ name = \"{name}\", sql = \"{sql}\" }}"));
    }

    fn point_selects(&mut self, n: u32) {
        let g = self.group();
        for i in 1..=n {
            let id = format!("point{i}");
            self.id(&id);
            let sql = format!("SELECT c FROM sbtest1 WHERE id=:{id}");
            self.statement(g, &format!("point_select{i}"), &sql);
        }
    }

    fn ranges(&mut self, counts: &Counts) {
        if !counts.range_selects {
            return;
        }
        let kinds = [
            (
                "simple_range",
                counts.simple_ranges,
                "SELECT c FROM sbtest1 WHERE id BETWEEN :{a} AND :{b}",
            ),
            (
                "sum_range",
                counts.sum_ranges,
                "SELECT SUM(k) FROM sbtest1 WHERE id BETWEEN :{a} AND :{b}",
            ),
            (
                "order_range",
                counts.order_ranges,
                "SELECT c FROM sbtest1 WHERE id BETWEEN :{a} AND :{b} ORDER BY c",
            ),
            (
                "distinct_range",
                counts.distinct_ranges,
                "SELECT DISTINCT c FROM sbtest1 WHERE id BETWEEN :{a} AND :{b} ORDER BY c",
            ),
        ];
        let span = i64::from(counts.range_size.max(1)) - 1;
        for (kind, n, sql) in kinds {
            let g = self.group();
            for i in 1..=n {
                let (a, b) = (format!("{kind}{i}"), format!("{kind}{i}_end"));
                self.id(&a);
                self.params.push(format!(
                    "{{ name = \"{b}\", gen = \"add\", to = \"{a}\", value = {span} }}"
                ));
                let sql = sql.replace("{a}", &a).replace("{b}", &b);
                self.statement(g, &format!("{kind}{i}"), &sql);
            }
        }
    }

    fn writes(&mut self, counts: &Counts) {
        self.index_updates(counts.index_updates);
        self.non_index_updates(counts.non_index_updates);
        let g = self.group();
        for i in 1..=counts.delete_inserts {
            let (id, k, c, pad) = (
                format!("delete{i}"),
                format!("insert{i}_k"),
                format!("insert{i}_c"),
                format!("insert{i}_pad"),
            );
            self.id(&id);
            self.id(&k);
            self.text(&c, C_PATTERN);
            self.text(&pad, PAD_PATTERN);
            self.statement(
                g,
                &format!("delete{i}"),
                &format!("DELETE FROM sbtest1 WHERE id=:{id}"),
            );
            let sql =
                format!("INSERT INTO sbtest1 (id, k, c, pad) VALUES (:{id}, :{k}, :{c}, :{pad})");
            self.statement(g, &format!("insert{i}"), &sql);
        }
    }

    fn index_updates(&mut self, n: u32) {
        let g = self.group();
        for i in 1..=n {
            let id = format!("index_update{i}");
            self.id(&id);
            let sql = format!("UPDATE sbtest1 SET k=k+1 WHERE id=:{id}");
            self.statement(g, &format!("index_update{i}"), &sql);
        }
    }

    fn non_index_updates(&mut self, n: u32) {
        let g = self.group();
        for i in 1..=n {
            let (id, c) = (
                format!("non_index_update{i}"),
                format!("non_index_update{i}_c"),
            );
            self.text(&c, C_PATTERN);
            self.id(&id);
            let sql = format!("UPDATE sbtest1 SET c=:{c} WHERE id=:{id}");
            self.statement(g, &format!("non_index_update{i}"), &sql);
        }
    }

    fn insert(&mut self) {
        let g = self.group();
        self.params
            .push("{ name = \"id\", gen = \"next-key\", of = \"sbtest1.id\" }".into());
        self.id("k");
        self.text("c", C_PATTERN);
        self.text("pad", PAD_PATTERN);
        let sql = "INSERT INTO sbtest1 (id, k, c, pad) VALUES (:id, :k, :c, :pad)";
        self.statement(g, "insert", sql);
    }

    fn delete(&mut self) {
        let g = self.group();
        self.id("id");
        self.statement(g, "delete", "DELETE FROM sbtest1 WHERE id=:id");
    }

    fn write(&self, out: &mut String, read_only: bool, autocommit: bool) {
        let _ = write!(
            out,
            "\n[[transaction]]\nname = \"transaction\"\nweight = 100\nread_only = {read_only}\n\
             autocommit = {autocommit}\nretry_duplicates = true\nparams = [\n"
        );
        for p in &self.params {
            let _ = writeln!(out, "  {p},");
        }
        out.push_str("]\nstatements = [\n");
        for s in &self.statements {
            let _ = writeln!(out, "  {s},");
        }
        out.push_str("]\n");
    }
}

/// With more tables than one, each statement (written for `sbtest1`) gets a
/// variant for every other table, picked by its group's table parameter.
fn spread_over_tables(spec: &mut Spec, groups: &[usize], tables: u32) {
    if tables < 2 {
        return;
    }
    for t in &mut spec.transactions {
        for (s, group) in t.statements.iter_mut().zip(groups) {
            s.pick = Some(format!("table_g{group}"));
            s.variants = (2..=tables)
                .map(|n| (s.sql.replace("sbtest1 ", &format!("sbtest{n} ")), None))
                .collect();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::custom::spec::Index;

    fn statement_sql(spec: &Spec) -> Vec<&str> {
        spec.transactions[0]
            .statements
            .iter()
            .map(|s| s.sql.as_str())
            .collect()
    }

    #[test]
    fn read_write_sends_sysbench_s_statements_in_its_order() {
        let spec = spec(Script::OltpReadWrite, &Counts::default(), 1);
        let sql = statement_sql(&spec);
        assert_eq!(sql.len(), 10 + 4 + 1 + 1 + 2, "{sql:?}");
        assert!(
            sql[..10]
                .iter()
                .all(|s| *s == "SELECT c FROM sbtest1 WHERE id=?")
        );
        assert_eq!(sql[10], "SELECT c FROM sbtest1 WHERE id BETWEEN ? AND ?");
        assert_eq!(
            sql[11],
            "SELECT SUM(k) FROM sbtest1 WHERE id BETWEEN ? AND ?"
        );
        assert_eq!(
            sql[12],
            "SELECT c FROM sbtest1 WHERE id BETWEEN ? AND ? ORDER BY c"
        );
        assert_eq!(
            sql[13],
            "SELECT DISTINCT c FROM sbtest1 WHERE id BETWEEN ? AND ? ORDER BY c"
        );
        assert_eq!(sql[14], "UPDATE sbtest1 SET k=k+1 WHERE id=?");
        assert_eq!(sql[15], "UPDATE sbtest1 SET c=? WHERE id=?");
        assert_eq!(sql[16], "DELETE FROM sbtest1 WHERE id=?");
        assert_eq!(
            sql[17],
            "INSERT INTO sbtest1 (id, k, c, pad) VALUES (?, ?, ?, ?)"
        );
        assert!(!spec.transactions[0].autocommit);
        // The delete and the insert take one id.
        let args = &spec.transactions[0].statements;
        assert_eq!(args[16].args[0], args[17].args[0]);
    }

    #[test]
    fn single_statement_scripts_and_skip_trx_run_in_autocommit() {
        for script in [
            Script::OltpPointSelect,
            Script::OltpUpdateIndex,
            Script::OltpUpdateNonIndex,
            Script::OltpInsert,
            Script::OltpDelete,
        ] {
            let spec = spec(script, &Counts::default(), 1);
            assert!(spec.transactions[0].autocommit, "{script:?}");
            assert_eq!(spec.transactions[0].statements.len(), 1, "{script:?}");
        }
        let skip = Counts {
            skip_trx: true,
            ..Counts::default()
        };
        assert!(spec(Script::OltpReadOnly, &skip, 1).transactions[0].autocommit);
        let counts = Counts {
            point_selects: 3,
            range_selects: false,
            ..Counts::default()
        };
        assert_eq!(
            statement_sql(&spec(Script::OltpReadOnly, &counts, 1)).len(),
            3
        );
    }

    #[test]
    fn more_tables_give_each_group_a_table_of_its_own() {
        let spec = spec(Script::OltpReadWrite, &Counts::default(), 12);
        assert_eq!(spec.tables.len(), 12);
        assert_eq!(
            spec.tables[11].indexes,
            [Index {
                name: "k_12".to_string(),
                columns: vec!["k".to_string()],
                unique: false
            }]
        );
        let statements = &spec.transactions[0].statements;
        let delete = &statements[16];
        assert_eq!(delete.pick.as_deref(), Some("table_g8"));
        assert_eq!(statements[17].pick.as_deref(), Some("table_g8"));
        assert_eq!(delete.variants.len(), 11);
        assert_eq!(delete.variants[10].0, "DELETE FROM sbtest12 WHERE id=?");
        assert_eq!(statements[0].pick.as_deref(), Some("table_g1"));
        assert_eq!(statements[9].pick, statements[0].pick);
    }
}

#[cfg(test)]
mod drawn {
    use super::*;
    use crate::custom::run::{Drawn, FileWorkload};
    use txbench_core::{Terminal, Workload};

    /// A range's end is its start plus `--range-size` - 1, drawn by the
    /// terminal from the start it drew first.
    #[test]
    fn every_range_ends_range_size_rows_after_its_start() {
        let counts = Counts {
            range_size: 50,
            ..Counts::default()
        };
        let spec = spec(Script::OltpReadOnly, &counts, 1);
        let names: Vec<String> = spec.transactions[0]
            .params
            .iter()
            .map(|(n, _)| n.clone())
            .collect();
        let workload = FileWorkload::new(spec, 1000);
        let mut terminal = workload.terminal(0, 7);
        for _ in 0..100 {
            let params = terminal.next().input.params;
            for kind in [
                "simple_range1",
                "sum_range1",
                "order_range1",
                "distinct_range1",
            ] {
                let at = |n: &str| names.iter().position(|x| x == n).unwrap();
                let (Drawn::Int(a), Drawn::Int(b)) =
                    (&params[at(kind)], &params[at(&format!("{kind}_end"))])
                else {
                    panic!("{kind}: {params:?}");
                };
                assert!((1..=1000).contains(a), "{kind} starts at {a}");
                assert_eq!(*b, a + 49, "{kind}");
            }
        }
    }
}
