//! A workload file read and checked: every mistake refused with the file, the
//! line and the key named, and what is accepted turned into the typed
//! workload ([`Spec`]) that loads and runs.

use std::collections::BTreeSet;

use txbench_core::identifier;
use txbench_core::schema::ColumnType;

use super::bounds;
use super::errors::{FileError, Locator};
use super::fits;
use super::kv_form;
use super::model::{FieldDef, WorkloadFile};
use super::spec::{Column, Count, Distinct, Each, Generator, Index, KeyRange, Rows, Spec, Table};

mod generators;
mod statements;
use generators::GenCheck;

/// The generators that draw keys of a table, which a `distinct` column may
/// use.
const KEY_DRAWS: [&str; 6] = ["key", "zipfian", "latest", "gaussian", "special", "pareto"];

/// A skew's bounds, in words.
const THETA_RANGE: &str = "theta above 0 and at most 10";

/// Whether `theta` is a skew the Zipf sampler takes and a file may ask
/// for: above 0 (0 is uniform: gen = "key"), at most 10 (all but the first
/// key are then rarer than one draw in a thousand).
fn valid_theta(theta: f64) -> bool {
    theta > 0.0 && theta <= 10.0
}

/// The longest workload name: its record, `txbench_<name>_meta`, is an
/// identifier of at most 63 characters.
const MAX_NAME: usize = 50;

/// How far the weights may be from 100 in all (rounding in the file).
const WEIGHT_SLACK: f64 = 1e-6;

/// Read and check the workload file `text`, named `file` in every error.
pub fn parse(file: &str, text: &str) -> Result<Spec, FileError> {
    let at = Locator::new(file, text);
    let check = Checker { at: &at };
    let raw: WorkloadFile = toml::from_str(text).map_err(|e| FileError {
        file: file.to_string(),
        line: e.span().map_or(0, |s| at.line(&s)),
        message: e.message().trim().to_string(),
    })?;
    let h = &raw.workload;
    let name = h.name.get_ref();
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
    {
        return Err(at.error(
            h.name.span(),
            format!("workload.name '{name}': use lowercase letters, digits and '-'"),
        ));
    }
    if name.len() > MAX_NAME {
        return Err(at.error(
            h.name.span(),
            format!("workload.name '{name}': at most {MAX_NAME} characters"),
        ));
    }
    if let Some(built_in) = crate::meta_table::built_in_sharing(name) {
        return Err(at.error(
            h.name.span(),
            format!(
                "workload.name '{name}': the built-in workload {built_in} records its loads under this name; give the file another"
            ),
        ));
    }
    if h.default_scale < 1 {
        return Err(at.whole(format!(
            "workload.default_scale {}: must be 1 or more",
            h.default_scale
        )));
    }
    let think_secs = match &h.think_time {
        None => 0.0,
        Some(t) => humantime::parse_duration(t.get_ref())
            .map_err(|e| {
                at.error(
                    t.span(),
                    format!("workload.think_time '{}': {e} (such as 10ms)", t.get_ref()),
                )
            })?
            .as_secs_f64(),
    };
    let tables = raw
        .tables
        .iter()
        .map(|t| check.table(t, &raw))
        .collect::<Result<Vec<_>, _>>()?;
    if raw.transactions.is_empty() {
        return Err(at.whole("no [[transaction]]: a workload needs at least one".into()));
    }
    let total: f64 = raw.transactions.iter().map(|t| *t.weight.get_ref()).sum();
    if (total - 100.0).abs() > WEIGHT_SLACK {
        let last = &raw.transactions[raw.transactions.len() - 1];
        return Err(at.error(
            last.weight.span(),
            format!("transaction weights sum to {total}, not 100"),
        ));
    }
    let mut transactions = raw
        .transactions
        .iter()
        .map(|t| check.transaction(t, &raw))
        .collect::<Result<Vec<_>, _>>()?;
    for (def, t) in raw.transactions.iter().zip(&mut transactions) {
        for (s_def, s) in def.statements.iter().zip(&mut t.statements) {
            if let Some(kv) = &s_def.kv {
                let what = format!("transaction '{}' statement '{}'", t.name, s.name);
                s.kv = Some(kv_form::check(&at, &what, kv, s, &tables)?);
            }
        }
    }
    unique(&at, raw.tables.iter().map(|t| &t.name), "table")?;
    let indexes = raw
        .tables
        .iter()
        .flat_map(|t| t.indexes.iter().map(|i| &i.name));
    unique(&at, indexes, "index")?;
    let scale_from = h
        .scale_from
        .as_ref()
        .map(|t| scale_table(&at, t, &tables))
        .transpose()?;
    unique(&at, raw.transactions.iter().map(|t| &t.name), "transaction")?;
    let spec = Spec {
        file: file.to_string(),
        name: name.clone(),
        title: h.title.clone().unwrap_or_else(|| name.clone()),
        scale_unit: h.scale.clone(),
        default_scale: h.default_scale,
        terminals_per_scale: h.terminals_per_scale,
        think_secs,
        tables,
        scale_from,
        transactions,
        invariants: raw
            .invariants
            .iter()
            .map(|i| (i.name.clone(), i.sql.clone()))
            .collect(),
        after_load: statements::after_load(&at, &raw.after_load)?,
    };
    match spec.beyond_bounds(spec.default_scale) {
        Some(beyond) => Err(at.whole(format!(
            "workload.default_scale {}: {beyond}",
            spec.default_scale
        ))),
        None => Ok(spec),
    }
}

/// `scale_from`'s table: one of the file's, of one row per unit of the
/// scale, so that its row count is the scale.
fn scale_table(
    at: &Locator<'_>,
    name: &toml::Spanned<String>,
    tables: &[Table],
) -> Result<String, FileError> {
    let table = tables.iter().find(|t| t.name == *name.get_ref());
    match table {
        Some(t) if t.rows == Rows::PerScale(1.0) => Ok(t.name.clone()),
        Some(t) => Err(at.error(
            name.span(),
            format!(
                "workload.scale_from '{}': its {}, so its row count is not the scale (it needs rows_per_scale 1)",
                t.name,
                match &t.rows {
                    Rows::PerScale(n) => format!("rows_per_scale is {n}"),
                    Rows::Fixed(n) => format!("rows are {n} at any scale"),
                    Rows::ForEach(_) => "rows are drawn for each key of another".to_string(),
                    Rows::Selected(_) => "rows are a query's".to_string(),
                }
            ),
        )),
        None => Err(at.error(
            name.span(),
            format!("workload.scale_from '{}': no such table", name.get_ref()),
        )),
    }
}

/// The first of `listed` that is named twice or is no column of `columns`,
/// and which (a primary key's or an index's columns).
fn listed_columns_problem<'a>(
    listed: &'a [String],
    columns: &[Column],
) -> Option<(&'a String, &'static str)> {
    let mut seen = BTreeSet::new();
    listed.iter().find_map(|c| {
        if !seen.insert(c) {
            Some((c, " twice"))
        } else if !columns.iter().any(|col| &col.name == c) {
            Some((c, ", which is not a column"))
        } else {
            None
        }
    })
}

/// Whether a column may hold NULL.
fn nullable(c: &FieldDef) -> bool {
    c.nullable.as_ref().is_some_and(|n| *n.get_ref())
}

/// Two of a kind with one name is a mistake at the second.
fn unique<'a>(
    at: &Locator<'_>,
    names: impl Iterator<Item = &'a toml::Spanned<String>>,
    what: &str,
) -> Result<(), FileError> {
    let mut seen = BTreeSet::new();
    for n in names {
        if !seen.insert(n.get_ref().clone()) {
            return Err(at.error(n.span(), format!("a second {what} named '{}'", n.get_ref())));
        }
    }
    Ok(())
}

/// The validator: each step checks one part of the file and names its
/// mistakes where they are.
struct Checker<'a> {
    at: &'a Locator<'a>,
}

impl Checker<'_> {
    fn table(&self, t: &super::model::TableDef, raw: &WorkloadFile) -> Result<Table, FileError> {
        let name = t.name.get_ref();
        if let Some(problem) = name_problem(name) {
            return Err(self
                .at
                .error(t.name.span(), format!("a table's name: {problem}")));
        }
        let rows = self.rows(name, t, raw)?;
        let columns = self.table_columns(name, t, raw)?;
        self.drawn_columns(name, t, &rows, &columns)?;
        self.primary_key(name, t, &columns)?;
        let indexes = (t.indexes.iter())
            .map(|i| self.index(name, i, &columns))
            .collect::<Result<_, _>>()?;
        Ok(Table {
            name: name.clone(),
            rows,
            primary_key: t.primary_key.get_ref().clone(),
            columns,
            indexes,
        })
    }

    /// A table's rows: `rows_per_scale` (0 or more; 0 is a table loaded
    /// empty, which the transactions fill, a history) or `rows`, one of them,
    /// within the rows a load may write.
    fn rows(
        &self,
        name: &str,
        t: &super::model::TableDef,
        raw: &WorkloadFile,
    ) -> Result<Rows, FileError> {
        if let Some(query) = &t.from {
            let given = [
                t.rows.as_ref().map(|r| r.span()),
                t.rows_per_scale.as_ref().map(|r| r.span()),
            ];
            let given = given
                .into_iter()
                .flatten()
                .chain(t.for_each.as_ref().map(|f| f.span()));
            if let Some(span) = given.into_iter().next() {
                let message = format!(
                    "table '{name}': from loads the query's rows: it takes no rows, rows_per_scale or for_each"
                );
                return Err(self.at.error(span, message));
            }
            return Ok(Rows::Selected(query.get_ref().clone()));
        }
        if let Some(parent) = &t.for_each {
            return self.rows_each(name, t, parent, raw);
        }
        if let Some(count) = &t.rows_each {
            let message = format!("table '{name}': rows_each needs for_each = \"table.column\"");
            return Err(self.at.error(count.span(), message));
        }
        let (key, n, span, rows) = match (&t.rows_per_scale, &t.rows) {
            (Some(p), None) => {
                let n = *p.get_ref();
                ("rows_per_scale", n, p.span(), Rows::PerScale(n))
            }
            (None, Some(r)) => {
                let n = *r.get_ref();
                ("rows", n as f64, r.span(), Rows::Fixed(n))
            }
            (Some(_), Some(rows)) => return Err(self.at.error(
                rows.span(),
                format!("table '{name}': rows and rows_per_scale: give one of them"),
            )),
            (None, None) => return Err(self.at.error(
                t.name.span(),
                format!(
                    "table '{name}': how many rows? rows_per_scale = N (a unit of the scale) or rows = N (at any scale)"
                ),
            )),
        };
        let most = bounds::MAX_LOAD_ROWS;
        if !(0.0..=most).contains(&n) {
            let shown = match &rows {
                Rows::Fixed(r) => r.to_string(),
                _ => n.to_string(),
            };
            return Err(self.at.error(
                span,
                format!(
                    "table '{name}': {key} {shown} must be 0 or more and at most {most:.0e}, the rows a load may write"
                ),
            ));
        }
        Ok(rows)
    }

    /// A `for_each` table's rows: the keys of a sequence column of a table
    /// of rows not drawn (so never its own), and `rows_each`, how many
    /// each is given, instead of `rows` and `rows_per_scale`.
    fn rows_each(
        &self,
        name: &str,
        t: &super::model::TableDef,
        parent: &toml::Spanned<String>,
        raw: &WorkloadFile,
    ) -> Result<Rows, FileError> {
        if let Some(span) = (t.rows.as_ref().map(|r| r.span()))
            .or_else(|| t.rows_per_scale.as_ref().map(|r| r.span()))
        {
            let message = format!(
                "table '{name}': for_each draws its rows: it takes no rows or rows_per_scale"
            );
            return Err(self.at.error(span, message));
        }
        // Not a table of drawn rows, itself included (refused by name).
        let parent_keys = self.key_range(parent, raw, false)?;
        let Some(count) = &t.rows_each else {
            let message = format!(
                "table '{name}': for_each needs rows_each = {{ gen = \"uniform\" or \"zipfian\", min, max }} or {{ gen = \"histogram\", values }}"
            );
            return Err(self.at.error(parent.span(), message));
        };
        let count = self.count(name, count)?;
        Ok(Rows::ForEach(Box::new(Each {
            parent: parent_keys,
            count,
        })))
    }

    /// `rows_each`: uniform in `[min, max]` or zipfian below `max`, `max`
    /// fixed or per unit of the scale, within [`bounds::MAX_ROWS_EACH`].
    fn count(
        &self,
        name: &str,
        c: &toml::Spanned<super::model::CountDef>,
    ) -> Result<Count, FileError> {
        let bad = |why: String| {
            self.at
                .error(c.span(), format!("table '{name}': rows_each: {why}"))
        };
        let def = c.get_ref();
        if def.kind == "histogram" {
            return self.count_histogram(def).map_err(&bad);
        }
        let min = def.min.unwrap_or(0);
        let max = match (def.max, def.max_per_scale) {
            (Some(max), None) => Rows::Fixed(max),
            (None, Some(per)) if per > 0.0 && per.is_finite() => Rows::PerScale(per),
            (None, Some(per)) => return Err(bad(format!("max_per_scale {per} must be above 0"))),
            _ => return Err(bad("give max or max_per_scale, one of them".into())),
        };
        let most = bounds::MAX_ROWS_EACH;
        if !(0..=most).contains(&min) || matches!(max, Rows::Fixed(m) if !(min..=most).contains(&m))
        {
            return Err(bad(format!(
                "min and max from 0 to {most}, min no more than max"
            )));
        }
        let theta = match def.kind.as_str() {
            "uniform" if def.theta.is_none() => None,
            "uniform" => return Err(bad("theta is a setting of a zipfian".into())),
            "zipfian" => Some(def.theta.unwrap_or(0.99)).filter(|t| valid_theta(*t)),
            other => {
                return Err(bad(format!(
                    "gen = \"{other}\": uniform, zipfian or histogram"
                )));
            }
        };
        if def.kind == "zipfian" && theta.is_none() {
            return Err(bad(format!(
                "{THETA_RANGE}, not {}",
                def.theta.unwrap_or(0.99)
            )));
        }
        if def.values.is_some() {
            return Err(bad("values is a setting of a histogram".into()));
        }
        Ok(Count {
            min,
            max,
            theta,
            histogram: None,
        })
    }

    /// A `rows_each` histogram: its counts from 0 to
    /// [`bounds::MAX_ROWS_EACH`], and no other setting.
    fn count_histogram(&self, def: &super::model::CountDef) -> Result<Count, String> {
        if def.min.is_some()
            || def.max.is_some()
            || def.max_per_scale.is_some()
            || def.theta.is_some()
        {
            return Err(
                "a histogram's counts are its values: it takes no min, max, max_per_scale or theta"
                    .into(),
            );
        }
        let values = def
            .values
            .as_ref()
            .ok_or("a histogram needs values = [[count, weight], ...]")?;
        let most = bounds::MAX_ROWS_EACH;
        if values.is_empty() || values.len() > bounds::MAX_LIST_VALUES {
            return Err(format!("values: 1 to {} counts", bounds::MAX_LIST_VALUES));
        }
        let counts = generators::histogram_pairs(values)?;
        if counts.iter().any(|(n, _)| !(0..=most).contains(n)) {
            return Err(format!("counts from 0 to {most}"));
        }
        let (min, max) = (counts.iter().map(|(n, _)| *n))
            .fold((i64::MAX, 0), |(lo, hi), n| (lo.min(n), hi.max(n)));
        Ok(Count {
            min,
            max: Rows::Fixed(max),
            theta: None,
            histogram: Some(counts),
        })
    }

    /// The columns only a `for_each` table has, where they belong: `parent`
    /// columns and `distinct` ones, each of those drawing keys of a table
    /// (so that a row's values are a set), its `other_than` an earlier
    /// column.
    fn drawn_columns(
        &self,
        name: &str,
        t: &super::model::TableDef,
        rows: &Rows,
        columns: &[Column],
    ) -> Result<(), FileError> {
        let drawn = matches!(rows, Rows::ForEach(_));
        for (def, column) in t.columns.iter().zip(columns) {
            let what = format!("table '{name}' column '{}'", column.name);
            let misplaced = |key: &str| {
                let message = format!("{what}: {key} belongs to a table of for_each");
                self.at.error(def.kind.span(), message)
            };
            if !drawn && column.distinct.is_some() {
                return Err(misplaced("distinct"));
            }
        }
        Ok(())
    }

    /// A secondary index: a name, and columns of the table, each once.
    fn index(
        &self,
        table: &str,
        i: &super::model::IndexDef,
        columns: &[Column],
    ) -> Result<Index, FileError> {
        let name = i.name.get_ref();
        if let Some(problem) = name_problem(name) {
            let message = format!("table '{table}': an index's name: {problem}");
            return Err(self.at.error(i.name.span(), message));
        }
        let indexed = i.columns.get_ref();
        let problem = match (indexed.first(), listed_columns_problem(indexed, columns)) {
            (None, _) => Some("no columns".to_string()),
            (_, Some((c, problem))) => Some(format!("'{c}'{problem}")),
            _ => None,
        };
        match problem {
            Some(p) => Err(self.at.error(
                i.columns.span(),
                format!("table '{table}' index '{name}': columns names {p}"),
            )),
            None => Ok(Index {
                name: name.clone(),
                columns: indexed.clone(),
                unique: i.unique,
            }),
        }
    }

    /// A table's columns, each name once, no more than [`MAX_COLUMNS`].
    fn table_columns(
        &self,
        name: &str,
        t: &super::model::TableDef,
        raw: &WorkloadFile,
    ) -> Result<Vec<Column>, FileError> {
        let mut columns: Vec<Column> = Vec::new();
        for c in &t.columns {
            let distinct = self.distinct(name, t, c, &columns)?;
            let drawn = match distinct {
                // Its other_than is the column's, not a key draw's.
                Some(_) => &FieldDef {
                    other_than: None,
                    ..c.clone()
                },
                None => c,
            };
            self.generator_given(name, t, c)?;
            if let Some(instead) = &c.instead {
                let message = format!(
                    "table '{name}' column '{}': instead is a parameter's (a column's share of values is its generator's)",
                    c.name.get_ref()
                );
                return Err(self.at.error(instead.span(), message));
            }
            for mut column in self.columns(name, drawn, raw, t.for_each.as_ref())? {
                column.distinct = distinct;
                let what = format!("table '{name}' column '{}'", column.name);
                let before: Vec<(&str, &Generator)> = (columns.iter())
                    .map(|e| (e.name.as_str(), &e.generator))
                    .collect();
                column.generator = generators::seeded(self, &what, c, column.generator, &before)?;
                if column.distinct.is_some() && c.seeded_by.is_some() {
                    return Err(self.at.error(
                        c.name.span(),
                        format!("{what}: seeded_by and distinct: a seeded value is drawn once"),
                    ));
                }
                if columns.iter().any(|seen| seen.name == column.name) {
                    let message =
                        format!("table '{name}': a second column named '{}'", column.name);
                    return Err(self.at.error(c.name.span(), message));
                }
                columns.push(column);
            }
        }
        if columns.len() > MAX_COLUMNS {
            let message = format!(
                "table '{name}': {} columns, more than {MAX_COLUMNS} (under every engine's limit: InnoDB's is 1,017)",
                columns.len()
            );
            return Err(self.at.error(t.name.span(), message));
        }
        Ok(columns)
    }

    /// A column names a generator, but in a `from` table, whose query gives
    /// its values.
    fn generator_given(
        &self,
        name: &str,
        t: &super::model::TableDef,
        c: &FieldDef,
    ) -> Result<(), FileError> {
        let what = format!("table '{name}' column '{}'", c.name.get_ref());
        match (t.from.is_some(), c.kind.get_ref().is_empty()) {
            (true, false) => Err(self.at.error(
                c.kind.span(),
                format!("{what}: the table's from query gives its values: it takes no gen"),
            )),
            (false, true) => Err(self.at.error(c.name.span(), format!("{what}: no gen"))),
            _ => Ok(()),
        }
    }

    /// A column's `distinct` (a `for_each` table's): its `other_than`, if
    /// any, an earlier column of the table; its generator one that draws
    /// keys of a table (checked by [`Checker::drawn_columns`]'s caller).
    fn distinct(
        &self,
        name: &str,
        t: &super::model::TableDef,
        c: &FieldDef,
        earlier: &[Column],
    ) -> Result<Option<Distinct>, FileError> {
        let what = format!("table '{name}' column '{}'", c.name.get_ref());
        let Some(distinct) = c.distinct.as_ref().filter(|d| *d.get_ref()) else {
            if let (Some(other), Some(_)) = (&c.other_than, &t.for_each) {
                let message =
                    format!("{what}: other_than in a table of for_each needs distinct = true");
                return Err(self.at.error(other.span(), message));
            }
            return Ok(None);
        };
        if t.for_each.is_none() {
            let message = format!("{what}: distinct belongs to a table of for_each");
            return Err(self.at.error(distinct.span(), message));
        }
        if !KEY_DRAWS.contains(&c.kind.get_ref().as_str()) {
            let message = format!(
                "{what}: distinct draws keys of a table ({}), not gen = \"{}\"",
                KEY_DRAWS.join(", "),
                c.kind.get_ref()
            );
            return Err(self.at.error(distinct.span(), message));
        }
        if c.width.is_some() {
            let message =
                format!("{what}: a distinct column draws integer keys: it takes no width");
            return Err(self.at.error(distinct.span(), message));
        }
        let other_than = match &c.other_than {
            None => None,
            Some(other) => {
                let found = earlier.iter().position(|e| e.name == *other.get_ref());
                let message = format!(
                    "{what}: other_than = \"{}\" is not a column before it",
                    other.get_ref()
                );
                Some(found.ok_or_else(|| self.at.error(other.span(), message))?)
            }
        };
        Ok(Some(Distinct { other_than }))
    }

    /// The primary key: columns of the table, each named once, none nullable.
    fn primary_key(
        &self,
        name: &str,
        t: &super::model::TableDef,
        columns: &[Column],
    ) -> Result<(), FileError> {
        let keys = t.primary_key.get_ref();
        let nullable = (keys.iter())
            .find(|k| columns.iter().any(|c| &c.name == *k && c.nullable))
            .map(|k| (k, ", which is nullable: a key's columns hold no NULL"));
        match listed_columns_problem(keys, columns).or(nullable) {
            Some((key, problem)) => Err(self.at.error(
                t.primary_key.span(),
                format!("table '{name}': primary_key names '{key}'{problem}"),
            )),
            None => Ok(()),
        }
    }

    /// A column, or the columns a `repeat` makes of it.
    fn columns(
        &self,
        table: &str,
        c: &FieldDef,
        raw: &WorkloadFile,
        parent: Option<&toml::Spanned<String>>,
    ) -> Result<Vec<Column>, FileError> {
        let what = format!("table '{table}' column '{}'", c.name.get_ref());
        let ty =
            c.ty.as_ref()
                .ok_or_else(|| self.at.error(c.name.span(), format!("{what}: no type")))?;
        let ty = column_type(ty.get_ref()).ok_or_else(|| {
            self.at.error(
                ty.span(),
                format!("{what}: unknown type '{}' ({TYPES})", ty.get_ref()),
            )
        })?;
        let generator = self.generator(&what, c, raw, Err(parent))?;
        if let Some(misfit) = fits::misfit(ty, &generator.drawn()) {
            return Err(self.at.error(c.kind.span(), format!("{what}: {misfit}")));
        }
        let names: Vec<String> = match &c.repeat {
            None => vec![c.name.get_ref().clone()],
            Some(n) if *n.get_ref() as usize > MAX_COLUMNS => {
                return Err(self.at.error(
                    n.span(),
                    format!(
                        "{what}: repeat = {}, more than a table's {MAX_COLUMNS} columns",
                        n.get_ref()
                    ),
                ));
            }
            Some(n) if c.name.get_ref().contains("{i}") => (0..*n.get_ref())
                .map(|i| c.name.get_ref().replace("{i}", &i.to_string()))
                .collect(),
            Some(n) => {
                return Err(self.at.error(
                    n.span(),
                    format!("{what}: repeat needs '{{i}}' in the name to number the columns"),
                ));
            }
        };
        if let Some(problem) = names.iter().find_map(|n| name_problem(n)) {
            return Err(self.at.error(c.name.span(), format!("{what}: {problem}")));
        }
        Ok(names
            .into_iter()
            .map(|name| Column {
                name,
                ty,
                nullable: nullable(c),
                generator: generator.clone(),
                distinct: None,
            })
            .collect())
    }

    /// A generator, each setting it needs present; `of` is the
    /// transaction's parameters before it, or for a column the keys its
    /// table is made for (`for_each`), if it is.
    fn generator(
        &self,
        what: &str,
        g: &FieldDef,
        raw: &WorkloadFile,
        of: Result<&[(String, Generator)], Option<&toml::Spanned<String>>>,
    ) -> Result<Generator, FileError> {
        let gen_check = GenCheck {
            checker: self,
            what,
            g,
            raw,
            kind: g.kind.get_ref().as_str(),
            earlier: of.ok(),
            parent: of.err().flatten(),
        };
        gen_check.generator()
    }

    /// The keys `of = "table.column"` names: a sequence column of a table;
    /// of a table whose rows are drawn for each key of another too when
    /// `inserts_past` (a `next-key`'s, which starts past the largest key
    /// the run finds, whatever the load drew).
    fn key_range(
        &self,
        of: &toml::Spanned<String>,
        raw: &WorkloadFile,
        inserts_past: bool,
    ) -> Result<KeyRange, FileError> {
        let bad = |why: String| {
            self.at
                .error(of.span(), format!("of = \"{}\": {why}", of.get_ref()))
        };
        let (table, column) = of
            .get_ref()
            .split_once('.')
            .ok_or_else(|| bad("expected table.column".into()))?;
        let t = raw
            .tables
            .iter()
            .find(|t| t.name.get_ref() == table)
            .ok_or_else(|| bad(format!("no table '{table}'")))?;
        let c = t
            .columns
            .iter()
            .find(|c| c.name.get_ref() == column)
            .ok_or_else(|| bad(format!("table '{table}' has no column '{column}'")))?;
        if (t.for_each.is_some() && !inserts_past) || t.from.is_some() {
            return Err(bad(format!(
                "table '{table}' draws its rows (for_each) or selects them (from), so its keys are not known"
            )));
        }
        if c.kind.get_ref() != "sequence" {
            return Err(bad(format!(
                "'{column}' is not a sequence column, so its keys are not known"
            )));
        }
        if c.per.as_ref().is_some_and(|p| *p.get_ref() != 1) {
            return Err(bad(format!(
                "'{column}' repeats each value (per), so its values are not keys"
            )));
        }
        Ok(KeyRange {
            table: table.to_string(),
            column: column.to_string(),
            start: c.min.unwrap_or(1),
            rows: self.rows(table, t, raw)?,
        })
    }
}

/// The most columns a file's table may have: under every engine's limit.
const MAX_COLUMNS: usize = 1_000;

/// What is wrong with a file's table or column name: not an identifier
/// ([`identifier::problem`]), or one of the names txbench keeps for its own
/// tables.
fn name_problem(name: &str) -> Option<String> {
    identifier::problem(name).or_else(|| {
        name.starts_with("txbench_")
            .then(|| format!("'{name}': names starting with 'txbench_' are txbench's own"))
    })
}

/// The most digits of a `decimal(P,S)`: MariaDB's limit (PostgreSQL's is 1,000).
const MAX_DECIMAL_DIGITS: u8 = 65;
/// The longest `char(N)`: MariaDB's limit.
const MAX_CHAR: u16 = 255;
/// The longest `varchar(N)`: MariaDB's row holds 65,535 bytes, 16,383
/// characters of utf8mb4.
const MAX_VARCHAR: u16 = 16_383;

/// The types a file may give a column, as its messages state them.
const TYPES: &str = "int, bigint, decimal(P,S) with P from 1 to 65 and S up to P, \
                     char(N) with N from 1 to 255, varchar(N) with N from 1 to 16383, text, timestamp";

/// A column type as the file writes it.
fn column_type(text: &str) -> Option<ColumnType> {
    let t = text.trim().to_ascii_lowercase();
    let args = |prefix: &str| -> Option<Vec<u16>> {
        let inner = t
            .strip_prefix(prefix)?
            .strip_prefix('(')?
            .strip_suffix(')')?;
        inner.split(',').map(|n| n.trim().parse().ok()).collect()
    };
    Some(match t.as_str() {
        "int" | "integer" => ColumnType::Int,
        "bigint" => ColumnType::BigInt,
        "timestamp" => ColumnType::Timestamp,
        "text" => ColumnType::Text,
        _ => {
            if let Some([p, s]) = args("decimal").as_deref() {
                let (p, s) = (u8::try_from(*p).ok()?, u8::try_from(*s).ok()?);
                (1..=MAX_DECIMAL_DIGITS).contains(&p).then_some(())?;
                (s <= p).then_some(ColumnType::Decimal(p, s))?
            } else if let Some([n]) = args("varchar").as_deref() {
                (1..=MAX_VARCHAR)
                    .contains(n)
                    .then_some(ColumnType::Varchar(*n))?
            } else if let Some([n]) = args("char").as_deref() {
                (1..=MAX_CHAR).contains(n).then_some(ColumnType::Char(*n))?
            } else {
                return None;
            }
        }
    })
}

#[cfg(test)]
mod tests;
