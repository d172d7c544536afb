//! A transaction type checked: its parameters, its statements (each
//! `:name` defined before it, by a parameter, an earlier statement's `into`
//! or a list an earlier query read), what each must return.

use std::collections::BTreeSet;
use std::time::Duration;

use toml::Spanned;

use super::{Checker, bounds, generators, name_problem};
use crate::custom::errors::{FileError, Locator};
use crate::custom::model::{AfterLoad, StatementDef, TransactionDef, WorkloadFile};
use crate::custom::spec::{Expect, Generator, ListRead, Statement, Transaction};

/// What a statement may use: the names defined before it, each by a
/// parameter (`None`) or by the statement that read it, and which of those
/// are lists (by their place among them).
struct Scope<'a> {
    defined: &'a [(String, Option<usize>)],
    lists: &'a [(usize, ListRead)],
}

impl Checker<'_> {
    pub(super) fn transaction(
        &self,
        t: &TransactionDef,
        raw: &WorkloadFile,
    ) -> Result<Transaction, FileError> {
        let name = t.name.get_ref();
        if *t.weight.get_ref() < 0.0 {
            return Err(self.at.error(
                t.weight.span(),
                format!("transaction '{name}': weight below 0"),
            ));
        }
        let mut defined: Vec<(String, Option<usize>)> = Vec::new();
        let mut params = Vec::new();
        for p in &t.params {
            let what = format!("transaction '{name}' parameter '{}'", p.name.get_ref());
            if let Some(extra) =
                p.ty.as_ref()
                    .map(|t| t.span())
                    .or(p.repeat.as_ref().map(|r| r.span()))
                    .or(p.nullable.as_ref().map(|n| n.span()))
            {
                return Err(self.at.error(
                    extra,
                    format!("{what}: a parameter has no type, repeat or nullable"),
                ));
            }
            let generator = self.generator(&what, p, raw, Ok(&params))?;
            let before: Vec<(&str, &Generator)> =
                params.iter().map(|(n, g)| (n.as_str(), g)).collect();
            let generator = generators::seeded(self, &what, p, generator, &before)?;
            let generator = generators::instead(self, &what, p, generator)?;
            params.push((p.name.get_ref().clone(), generator));
            defined.push((p.name.get_ref().clone(), None));
        }
        if let Some(p) = &t.expected_success
            && !(0.0..=1.0).contains(p.get_ref())
        {
            return Err(self.at.error(
                p.span(),
                format!(
                    "transaction '{name}': expected_success {} is not a share from 0 to 1",
                    p.get_ref()
                ),
            ));
        }
        if t.statements.is_empty() {
            return Err(self.at.error(
                t.name.span(),
                format!("transaction '{name}': no statements"),
            ));
        }
        let repeat = self.repeat(name, t.repeat.as_ref())?;
        let mut statements = Vec::new();
        // Each list read, with its place in `defined`.
        let mut lists: Vec<(usize, ListRead)> = Vec::new();
        for (i, s) in t.statements.iter().enumerate() {
            let scope = Scope {
                defined: &defined,
                lists: &lists,
            };
            let checked = self.statement(name, i, s, scope, t.read_only)?;
            for column in &checked.into {
                defined.push((column.clone(), Some(i)));
            }
            if let Some(list) = &checked.into_list {
                lists.push((defined.len(), list.clone()));
                defined.push((list.name.clone(), Some(i)));
            }
            statements.push(checked);
        }
        Ok(Transaction {
            name: name.clone(),
            share: t.weight.get_ref() / 100.0,
            read_only: t.read_only,
            autocommit: t.autocommit,
            retry_duplicates: t.retry_duplicates,
            expected_success: t.expected_success.as_ref().map(|p| *p.get_ref()),
            repeat,
            params,
            statements,
        })
    }

    /// A transaction's `repeat`: 1 when absent, at most
    /// [`bounds::MAX_REPEAT`].
    fn repeat(&self, txn: &str, repeat: Option<&Spanned<i64>>) -> Result<usize, FileError> {
        let Some(r) = repeat else {
            return Ok(1);
        };
        match usize::try_from(*r.get_ref()) {
            Ok(n) if (1..=bounds::MAX_REPEAT).contains(&n) => Ok(n),
            _ => Err(self.at.error(
                r.span(),
                format!(
                    "transaction '{txn}': repeat {}: from 1 to {}",
                    r.get_ref(),
                    bounds::MAX_REPEAT
                ),
            )),
        }
    }

    /// A statement's `pause_after`, a duration of at most
    /// [`bounds::MAX_PAUSE`].
    fn pause_after(
        &self,
        what: &str,
        pause: Option<&Spanned<String>>,
    ) -> Result<Option<Duration>, FileError> {
        let Some(p) = pause else {
            return Ok(None);
        };
        let refused = |why: String| {
            self.at.error(
                p.span(),
                format!("{what}: pause_after '{}': {why}", p.get_ref()),
            )
        };
        let d = humantime::parse_duration(p.get_ref())
            .map_err(|e| refused(format!("{e} (such as 1s or 2ms)")))?;
        if d > bounds::MAX_PAUSE {
            return Err(refused(format!(
                "at most {}",
                humantime::format_duration(bounds::MAX_PAUSE)
            )));
        }
        Ok(Some(d))
    }

    /// A statement, each `:name` it uses defined before it.
    fn statement(
        &self,
        txn: &str,
        index: usize,
        s: &StatementDef,
        Scope { defined, lists }: Scope<'_>,
        read_only: bool,
    ) -> Result<Statement, FileError> {
        let name = s.name.clone().unwrap_or_else(|| format!("s{}", index + 1));
        let what = format!("transaction '{txn}' statement '{name}'");
        let (sql, names) = placeholders(s.sql.get_ref());
        // A name given last is the one used: a list read, or a value.
        let list_of = |a: &str| {
            let last = defined.iter().rposition(|(n, _)| n == a)?;
            lists.iter().find(|(at, _)| *at == last).map(|(_, l)| l)
        };
        let (sql, args, used) = expand_lists(&sql, &names, list_of);
        let mut after = BTreeSet::new();
        for a in &names {
            match defined.iter().rev().find(|(n, _)| n == a) {
                Some((_, Some(statement))) => {
                    after.insert(*statement);
                }
                Some((_, None)) => {}
                None => {
                    return Err(self.at.error(
                        s.sql.span(),
                        format!("{what}: parameter ':{a}' is not defined by params or an earlier statement's into"),
                    ));
                }
            }
        }
        let when = self.when(&what, s, defined, &list_of)?;
        // The statement that read what `when` compares (a value or a list).
        let compared = (s.when.as_ref()).map(|w| w.get_ref().param.as_str());
        if let Some((_, Some(statement))) =
            compared.and_then(|p| defined.iter().rev().find(|(n, _)| n == p))
        {
            after.insert(*statement);
        }
        let query = is_query(&sql);
        if read_only && !query {
            return Err(self.at.error(
                s.sql.span(),
                format!("{what}: the transaction is read_only, but this statement changes rows"),
            ));
        }
        let expect = match s.expect.get_ref().as_str() {
            "one" => Expect::One,
            "one-or-none" => Expect::OneOrNone,
            "none" => Expect::None,
            "any" => Expect::Any,
            other => {
                return Err(self.at.error(
                    s.expect.span(),
                    format!("{what}: expect = \"{other}\" (one, one-or-none, none or any)"),
                ));
            }
        };
        if !s.into.is_empty() && !query {
            return Err(self.at.error(
                s.into[0].span(),
                format!("{what}: into reads a query's row, and this statement is not a query"),
            ));
        }
        let into_list = (s.into_list.as_ref())
            .map(|l| self.list_read(&what, l, query))
            .transpose()?;
        let pause_after = self.pause_after(&what, s.pause_after.as_ref())?;
        Ok(Statement {
            name,
            sql,
            args,
            query,
            expect,
            into: s.into.iter().map(|c| c.get_ref().clone()).collect(),
            into_list,
            lists: used,
            after: after.into_iter().collect(),
            kv: None,
            variants: Vec::new(),
            pick: None,
            pause_after,
            when,
            line: self.at.line(&s.sql.span()),
        })
    }

    /// A statement's `when`: a parameter defined before it (drawn, or
    /// read by an earlier statement's `into`), not a list.
    fn when<'l>(
        &self,
        what: &str,
        s: &StatementDef,
        defined: &[(String, Option<usize>)],
        list_of: &impl Fn(&str) -> Option<&'l ListRead>,
    ) -> Result<Option<(String, i64)>, FileError> {
        let Some(w) = &s.when else {
            return Ok(None);
        };
        let (param, equals) = (&w.get_ref().param, w.get_ref().equals);
        let bad = |why: &str| {
            let message = format!("{what}: when = {{ param = \"{param}\" }}: {why}");
            self.at.error(w.span(), message)
        };
        if !defined.iter().any(|(n, _)| n == param) {
            return Err(bad("not defined by params or an earlier statement's into"));
        }
        if list_of(param).is_some() {
            // A list's number of values read is the one value it compares.
            return Ok(Some((ListRead::length(param), equals)));
        }
        Ok(Some((param.clone(), equals)))
    }

    /// A query's `into_list`: a name, and 1 to [`bounds::MAX_LIST_ROWS`]
    /// values.
    fn list_read(
        &self,
        what: &str,
        l: &toml::Spanned<crate::custom::model::ListDef>,
        query: bool,
    ) -> Result<ListRead, FileError> {
        let def = l.get_ref();
        let bad = |why: String| self.at.error(l.span(), format!("{what}: into_list {why}"));
        if !query {
            return Err(bad(
                "reads a query's rows, and this statement is not a query".into(),
            ));
        }
        if let Some(problem) = name_problem(&def.name) {
            return Err(bad(format!("name: {problem}")));
        }
        let most = bounds::MAX_LIST_ROWS;
        if !(1..=most).contains(&(def.rows as usize)) {
            return Err(bad(format!("rows = {}: 1 to {most}", def.rows)));
        }
        Ok(ListRead {
            name: def.name.clone(),
            rows: def.rows as usize,
        })
    }
}

/// The `[[after_load]]` statements: each changes rows (a query's rows
/// would go nowhere) and takes no parameter (nothing is drawn for it).
pub(super) fn after_load(
    at: &Locator<'_>,
    defs: &[AfterLoad],
) -> Result<Vec<(String, String)>, FileError> {
    defs.iter()
        .map(|d| {
            let sql = d.sql.get_ref();
            let refused =
                |why: &str| at.error(d.sql.span(), format!("after_load '{}': {why}", d.name));
            if is_query(sql) {
                return Err(refused(
                    "a query changes no row: write the UPDATE or INSERT",
                ));
            }
            if let Some(name) = placeholders(sql).1.first() {
                return Err(refused(&format!(
                    "':{name}': an after_load statement takes no parameters"
                )));
            }
            Ok((d.name.clone(), sql.clone()))
        })
        .collect()
}

/// The `?` of each list `:name` that `list_of` knows made as many `?` as
/// the list holds values, joined by commas: the SQL, the name of each
/// placeholder's value (a list's `name#0`, `name#1`, ...), and the lists
/// used.
fn expand_lists<'a>(
    sql: &str,
    names: &[String],
    list_of: impl Fn(&str) -> Option<&'a ListRead>,
) -> (String, Vec<String>, Vec<String>) {
    if names.iter().all(|n| list_of(n).is_none()) {
        return (sql.to_string(), names.to_vec(), Vec::new());
    }
    let mut out = String::with_capacity(sql.len() * 2);
    let (mut args, mut used) = (Vec::new(), Vec::new());
    let mut names = names.iter();
    for (i, piece) in split_at_placeholders(sql).into_iter().enumerate() {
        if i > 0 {
            let name = names.next().expect("a name for each placeholder");
            match list_of(name) {
                Some(list) => {
                    let marks = vec!["?"; list.rows].join(", ");
                    out.push_str(&marks);
                    args.extend((0..list.rows).map(|k| ListRead::slot(name, k)));
                    if !used.contains(name) {
                        used.push(name.clone());
                    }
                }
                None => {
                    out.push('?');
                    args.push(name.clone());
                }
            }
        }
        out.push_str(piece);
    }
    (out, args, used)
}

/// `sql` (with `?` placeholders) cut at each placeholder: the `?` outside
/// quoted strings, which [`placeholders`] wrote.
fn split_at_placeholders(sql: &str) -> Vec<&str> {
    let mut pieces = Vec::new();
    let (mut start, mut quoted) = (0, false);
    for (i, c) in sql.char_indices() {
        match c {
            '\'' => quoted = !quoted,
            '?' if !quoted => {
                pieces.push(&sql[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    pieces.push(&sql[start..]);
    pieces
}

/// `:name` parameters replaced by `?`, in order, outside quoted strings and
/// PostgreSQL's `::` casts.
fn placeholders(sql: &str) -> (String, Vec<String>) {
    let mut out = String::with_capacity(sql.len());
    let mut args = Vec::new();
    let mut chars = sql.chars().peekable();
    let mut quoted = false;
    while let Some(c) = chars.next() {
        if c == '\'' {
            quoted = !quoted;
            out.push(c);
        } else if c == ':' && !quoted && chars.peek() == Some(&':') {
            out.push_str("::");
            chars.next();
        } else if c == ':'
            && !quoted
            && chars
                .peek()
                .is_some_and(|n| n.is_ascii_alphabetic() || *n == '_')
        {
            let mut name = String::new();
            while let Some(n) = chars
                .peek()
                .filter(|n| n.is_ascii_alphanumeric() || **n == '_')
            {
                name.push(*n);
                chars.next();
            }
            args.push(name);
            out.push('?');
        } else {
            out.push(c);
        }
    }
    (out, args)
}

/// Whether `sql` returns rows: it starts with `SELECT` or `WITH`.
fn is_query(sql: &str) -> bool {
    first_word(sql)
        .is_some_and(|w| w.eq_ignore_ascii_case("select") || w.eq_ignore_ascii_case("with"))
}

fn first_word(sql: &str) -> Option<&str> {
    sql.split_whitespace()
        .next()
        .map(|w| w.trim_start_matches('('))
}
