//! A generator's settings checked: each kind with the settings it needs,
//! each mistake named by what the generator fills.

use super::Checker;
use super::nullable;
use crate::custom::bounds;
use crate::custom::errors::FileError;
use crate::custom::fits::Drawn;
use crate::custom::model::{FieldDef, WorkloadFile};
use crate::custom::spec::{Generator, KeyRange, Sum};

/// One generator being checked: its kind and the settings that kind needs.
pub(super) struct GenCheck<'a> {
    pub(super) checker: &'a Checker<'a>,
    pub(super) what: &'a str,
    pub(super) g: &'a FieldDef,
    pub(super) raw: &'a WorkloadFile,
    pub(super) kind: &'a str,
    /// The transaction's parameters before it; `None` for a column.
    pub(super) earlier: Option<&'a [(String, Generator)]>,
    /// A column's table's `for_each`, the keys it is made for.
    pub(super) parent: Option<&'a toml::Spanned<String>>,
}

impl GenCheck<'_> {
    pub(super) fn generator(&self) -> Result<Generator, FileError> {
        let drawn = self.unpadded()?;
        let Some(width) = self.g.width else {
            return Ok(drawn);
        };
        if !matches!(self.kind, "sequence" | "key") {
            return Err(self.error(format!(
                "width is a setting of gen = \"sequence\" and gen = \"key\", not of gen = \"{}\"",
                self.kind
            )));
        }
        if self.g.other_than.is_some() {
            // The terminal leaves a key out of the integers it draws.
            return Err(self.error("other_than draws an integer key: it takes no width".into()));
        }
        if !(1..=bounds::MAX_TEXT_LENGTH).contains(&width) {
            return Err(self.error(format!(
                "width {width}: digits from 1 to {}",
                bounds::MAX_TEXT_LENGTH
            )));
        }
        Ok(Generator::Padded {
            inner: Box::new(drawn),
            width,
        })
    }

    /// The generator its kind and settings make, before any `width`.
    fn unpadded(&self) -> Result<Generator, FileError> {
        let g = self.g;
        if g.home_step.is_some() && self.kind != "uniform" {
            return Err(self.error(format!(
                "home_step is a setting of gen = \"uniform\", not of gen = \"{}\"",
                self.kind
            )));
        }
        if g.inserted.is_some() && self.kind != "key" {
            return Err(self.error(format!(
                "inserted is a setting of gen = \"key\", not of gen = \"{}\"",
                self.kind
            )));
        }
        if g.other_than.is_some() && self.kind != "key" {
            // Left out silently, a skewed draw would still draw the key.
            return Err(self.error(format!(
                "other_than is a setting of gen = \"key\", not of gen = \"{}\"",
                self.kind
            )));
        }
        Ok(match self.kind {
            "sequence" => Generator::Sequence {
                start: g.min.unwrap_or(1),
                per: self.per()?,
            },
            "uniform" => {
                let (min, max) = self.range()?;
                Generator::Uniform {
                    min,
                    max,
                    home_step: self.home_step()?,
                }
            }
            "zipfian" => Generator::Zipfian {
                keys: self.keys()?,
                theta: self.theta(0.99)?,
                scrambled: g.scrambled.unwrap_or(false),
            },
            "latest" => Generator::Latest {
                keys: self.keys()?,
                theta: self.theta(0.99)?,
            },
            "normal" => {
                let (min, max) = self.range()?;
                Generator::Normal { min, max }
            }
            "nurand" => self.nurand()?,
            "string" => self.string()?,
            "number" => Generator::Number {
                digits: g
                    .length
                    .filter(|d| (1..=18).contains(d))
                    .ok_or_else(|| self.missing("length from 1 to 18"))?,
            },
            "constant" => {
                Generator::Constant(g.value.clone().ok_or_else(|| self.missing("value"))?)
            }
            "gaussian" => Generator::Gaussian {
                keys: self.keys()?,
                iterations: self.iterations()?,
            },
            "special" => Generator::Special {
                keys: self.keys()?,
                iterations: self.iterations()?,
                percent: self.percent("percent", g.percent, 1.0, false)?,
                resolution: self.percent("resolution", g.resolution, 75.0, true)?,
            },
            "pareto" => Generator::Pareto {
                keys: self.keys()?,
                h: self.pareto_h()?,
            },
            "pattern" => self.pattern()?,
            "add" => self.add()?,
            "list" => self.list()?,
            "histogram" => self.histogram()?,
            "key" if inserted(g) => self.inserted_key()?,
            "key" if self.g.other_than.is_some() => self.other_key()?,
            "key" => Generator::Key(self.keys()?),
            "next-key" => Generator::NextKey(self.keys()?),
            "now" => Generator::Now,
            "parent" => self.parent()?,
            "ordinal" => self.ordinal()?,
            // A `from` table's column (checked by the table): the query's.
            "" if self.earlier.is_none() => Generator::Selected,
            "" => return Err(self.missing_generator()),
            "null" if nullable(g) => Generator::Null,
            "null" => return Err(self.error("gen = \"null\" needs nullable = true".into())),
            other => {
                return Err(self.error(format!(
                    "unknown generator '{other}' (sequence, uniform, normal, zipfian, latest, \
                     gaussian, special, pareto, nurand, string, pattern, number, constant, list, histogram, \
                     key, next-key, add, now, null, parent, ordinal)"
                )));
            }
        })
    }

    /// A parameter without `gen`, named at its name.
    fn missing_generator(&self) -> FileError {
        let message = format!("{}: no gen", self.what);
        self.checker.at.error(self.g.name.span(), message)
    }

    /// The keys a `for_each` table's rows are made for, its column's.
    fn parent(&self) -> Result<Generator, FileError> {
        match self.parent {
            Some(of) => Ok(Generator::Parent(self.checker.key_range(of, self.raw, false)?)),
            None => Err(self.error(
                "gen = \"parent\" is the key a row of a for_each table is made for: a column of such a table's".into(),
            )),
        }
    }

    /// A key of the loaded ones or of those the run's inserts finished: a
    /// parameter's (a load inserts nothing), drawn alone.
    fn inserted_key(&self) -> Result<Generator, FileError> {
        if self.earlier.is_none() {
            return Err(self.error(
                "inserted = true draws the keys a run inserts too: a parameter's, not a column's"
                    .into(),
            ));
        }
        if self.g.width.is_some() || self.g.other_than.is_some() {
            return Err(self.error(
                "inserted = true draws any integer key: it takes no width or other_than".into(),
            ));
        }
        Ok(Generator::KeyOrInserted(self.keys()?))
    }

    /// A row's place among its key's rows, a `for_each` table's column's.
    fn ordinal(&self) -> Result<Generator, FileError> {
        match self.parent {
            Some(_) => Ok(Generator::Ordinal(self.g.min.unwrap_or(0))),
            None => Err(self.error(
                "gen = \"ordinal\" numbers the rows made for one key of a for_each table: a column of such a table's".into(),
            )),
        }
    }

    /// A mistake at the generator's kind, named by what it fills.
    fn error(&self, message: String) -> FileError {
        let what = self.what;
        self.checker
            .at
            .error(self.g.kind.span(), format!("{what}: {message}"))
    }

    fn missing(&self, key: &str) -> FileError {
        self.error(format!("gen = \"{}\" needs {key}", self.kind))
    }

    /// A sequence's rows per value: 1, or what `per` says (1 or more).
    fn per(&self) -> Result<i64, FileError> {
        match &self.g.per {
            None => Ok(1),
            Some(p) if *p.get_ref() >= 1 => Ok(*p.get_ref()),
            Some(p) => Err(self.checker.at.error(
                p.span(),
                format!(
                    "{}: per = {}: a value stands in 1 row or more",
                    self.what,
                    p.get_ref()
                ),
            )),
        }
    }

    /// A `uniform` parameter's `home_step` (0 when absent): a column is
    /// loaded by no terminal, so has no home.
    fn home_step(&self) -> Result<i64, FileError> {
        let Some(step) = &self.g.home_step else {
            return Ok(0);
        };
        if self.earlier.is_none() {
            return Err(self.error("home_step is a parameter's: a column has no terminal".into()));
        }
        match *step.get_ref() {
            s if s > 0 && s <= i64::from(i32::MAX) => Ok(s),
            s => Err(self.error(format!("home_step {s}: from 1 to {}", i32::MAX))),
        }
    }

    /// Its min and max, in order.
    fn range(&self) -> Result<(i64, i64), FileError> {
        match (self.g.min, self.g.max) {
            (Some(min), Some(max)) if min <= max => Ok((min, max)),
            (Some(min), Some(max)) => Err(self.error(format!("min {min} is above max {max}"))),
            _ => Err(self.missing("min and max")),
        }
    }

    /// The keys its `of` names; but for `next-key` (an insert's), of a
    /// table the load fills.
    fn keys(&self) -> Result<KeyRange, FileError> {
        let of = self.g.of.as_ref();
        let of = of.ok_or_else(|| self.missing("of = \"table.column\""))?;
        let inserts_past = self.kind == "next-key";
        let keys = self.checker.key_range(of, self.raw, inserts_past)?;
        if keys.rows.none() && self.kind != "next-key" {
            return Err(self.error(format!(
                "of = \"{}\": table '{}' is loaded empty: it has no keys to draw",
                of.get_ref(),
                keys.table
            )));
        }
        Ok(keys)
    }

    /// Its theta (`default` when the file gives none), above 0 and at most
    /// 10 (BenchBase skews Twitter's and Epinions' loads by 1.75 to 1.95).
    fn theta(&self, default: f64) -> Result<f64, FileError> {
        let t = self.g.theta.unwrap_or(default);
        if super::valid_theta(t) {
            Ok(t)
        } else {
            Err(self.error(format!("{}, not {t}", super::THETA_RANGE)))
        }
    }

    /// NURand's arithmetic, (random(0, A) | random(x, y)) + C, stays far
    /// from i64's ends within these bounds.
    fn nurand(&self) -> Result<Generator, FileError> {
        let (min, max) = self.range()?;
        let a = self.g.a.ok_or_else(|| self.missing("a"))?;
        let bound = 0..=i64::from(i32::MAX);
        if ![a, min, max].iter().all(|v| bound.contains(v)) {
            let most = i32::MAX;
            return Err(self.error(format!("nurand's a, min and max must be from 0 to {most}")));
        }
        Ok(Generator::NuRand { a, min, max })
    }

    /// How many uniform draws a gaussian or special value averages: 1 to
    /// 1,000 (sysbench's 12 when the file gives none).
    fn iterations(&self) -> Result<u32, FileError> {
        match self.g.iterations.unwrap_or(12) {
            n @ 1..=1_000 => Ok(n),
            n => Err(self.error(format!("iterations {n} is not from 1 to 1000"))),
        }
    }

    /// A percentage setting: above 0 (or from 0 where `zero` may be) and
    /// below 100 (or up to it where it may not be 0).
    fn percent(
        &self,
        key: &str,
        given: Option<f64>,
        default: f64,
        zero: bool,
    ) -> Result<f64, FileError> {
        let p = given.unwrap_or(default);
        let fits = if zero {
            (0.0..100.0).contains(&p)
        } else {
            p > 0.0 && p <= 100.0
        };
        if fits {
            Ok(p)
        } else {
            let range = if zero {
                "from 0 to below 100"
            } else {
                "above 0 and at most 100"
            };
            Err(self.error(format!("{key} {p} is not {range}")))
        }
    }

    /// Pareto's h, between 0 and 1 (sysbench's 0.2 when the file gives none).
    fn pareto_h(&self) -> Result<f64, FileError> {
        let h = self.g.h.unwrap_or(0.2);
        if h > 0.0 && h < 1.0 {
            Ok(h)
        } else {
            Err(self.error(format!("h {h} is not between 0 and 1")))
        }
    }

    /// A template of `#` digits, `@` letters and characters as written.
    fn pattern(&self) -> Result<Generator, FileError> {
        let template = (self.g.pattern.clone()).ok_or_else(|| self.missing("pattern"))?;
        let chars = template.chars().count();
        if chars == 0 || chars > bounds::MAX_TEXT_LENGTH as usize {
            return Err(self.error(format!(
                "a pattern of {chars} characters: it needs 1 to {}",
                bounds::MAX_TEXT_LENGTH
            )));
        }
        Ok(Generator::Pattern(template))
    }

    /// Strings of a length, or of lengths between two, or of lengths with
    /// weights.
    fn string(&self) -> Result<Generator, FileError> {
        let g = self.g;
        if let Some(lengths) = &g.lengths {
            return self.weighted_lengths(lengths);
        }
        let (min, max) = match (g.length, g.min_length, g.max_length) {
            (Some(n), None, None) => (n, n),
            (None, Some(min), Some(max)) if min <= max => (min, max),
            _ => return Err(self.missing("length, or min_length and max_length, or lengths")),
        };
        if max > bounds::MAX_STRING_LENGTH {
            return Err(self.error(format!(
                "strings of {max} characters, longer than {}, the longest a text column takes",
                bounds::MAX_STRING_LENGTH
            )));
        }
        Ok(Generator::Text { min, max })
    }

    /// `lengths = [[length, weight], ...]` alone: each length at most the
    /// longest string ([`bounds::MAX_STRING_LENGTH`]), at most [`bounds::MAX_LIST_VALUES`] of them, their
    /// weights not all 0.
    fn weighted_lengths(&self, lengths: &[(u32, u64)]) -> Result<Generator, FileError> {
        let g = self.g;
        if g.length.is_some() || g.min_length.is_some() || g.max_length.is_some() {
            return Err(self.error(
                "lengths gives every length: it takes no length, min_length or max_length".into(),
            ));
        }
        let longest = lengths.iter().map(|(n, _)| *n).max().unwrap_or(0);
        if lengths.is_empty() || lengths.len() > bounds::MAX_LIST_VALUES {
            return Err(self.error(format!(
                "lengths lists {} lengths: 1 to {}",
                lengths.len(),
                bounds::MAX_LIST_VALUES
            )));
        }
        if longest > bounds::MAX_STRING_LENGTH {
            return Err(self.error(format!(
                "strings of {longest} characters, longer than {}, the longest a text column takes",
                bounds::MAX_STRING_LENGTH
            )));
        }
        let total = lengths
            .iter()
            .try_fold(0u64, |sum, (_, w)| sum.checked_add(*w));
        if total.is_none_or(|t| t == 0) {
            return Err(
                self.error("lengths' weights must add up to more than 0 (and fit 64 bits)".into())
            );
        }
        Ok(Generator::WeightedText(lengths.to_vec()))
    }

    /// A `key` `other_than` an earlier parameter that draws keys of the
    /// same column; a parameter's only.
    fn other_key(&self) -> Result<Generator, FileError> {
        let Some(earlier) = self.earlier else {
            return Err(self.error(
                "other_than leaves out an earlier parameter's key: it draws a transaction's \
                 parameter, not a column"
                    .into(),
            ));
        };
        let keys = self.keys()?;
        let name = (self.g.other_than.as_ref()).map_or("", |n| n.get_ref().as_str());
        let Some(other_than) = earlier.iter().position(|(n, _)| n == name) else {
            return Err(self.error(format!(
                "other_than = \"{name}\" is not a parameter listed before it"
            )));
        };
        match earlier[other_than].1.loaded_keys() {
            Some(k) if *k == keys => Ok(Generator::OtherKey { keys, other_than }),
            _ => Err(self.error(format!(
                "other_than = \"{name}\" draws no key of {}.{}, which this one draws",
                keys.table, keys.column
            ))),
        }
    }

    /// An `add`: `to` an earlier parameter that draws integers, times an
    /// integer `times` (1), plus an integer `value` (0) and the earlier
    /// parameter `plus` (none), one of `value` and `plus` at least; a
    /// parameter's only.
    fn add(&self) -> Result<Generator, FileError> {
        let Some(earlier) = self.earlier else {
            return Err(self.error(
                "gen = \"add\" adds to an earlier parameter: it draws a transaction's \
                 parameter, not a column"
                    .into(),
            ));
        };
        let to = (self.g.to.as_ref()).ok_or_else(|| self.missing("to"))?;
        let value = match &self.g.value {
            None if self.g.plus.is_some() => 0,
            None => return Err(self.missing("an integer value or plus")),
            Some(v) => v
                .as_integer()
                .ok_or_else(|| self.missing("an integer value"))?,
        };
        let plus = (self.g.plus.as_ref())
            .map(|p| self.earlier_integer("plus", p.get_ref(), earlier))
            .transpose()?;
        Ok(Generator::Add(Sum {
            to: self.earlier_integer("to", to.get_ref(), earlier)?,
            times: self.g.times.unwrap_or(1),
            value,
            plus,
        }))
    }

    /// The index of the earlier parameter `name`, which must draw integers
    /// (`key` is the setting that names it).
    fn earlier_integer(
        &self,
        key: &str,
        name: &str,
        earlier: &[(String, Generator)],
    ) -> Result<usize, FileError> {
        match earlier.iter().position(|(n, _)| n == name) {
            Some(i) if matches!(earlier[i].1.drawn(), Drawn::Text(_) | Drawn::Time) => {
                Err(self.error(format!("{key} = \"{name}\" draws no integer")))
            }
            Some(i) => Ok(i),
            None => Err(self.error(format!(
                "{key} = \"{name}\" is not a parameter listed before it"
            ))),
        }
    }

    /// A `list`: `values`, one or more (at most [`bounds::MAX_LIST_VALUES`]),
    /// all integers or all strings.
    fn list(&self) -> Result<Generator, FileError> {
        let values = (self.g.values.as_ref()).ok_or_else(|| self.missing("values = [...]"))?;
        let most = bounds::MAX_LIST_VALUES;
        if values.is_empty() || values.len() > most {
            return Err(self.error(format!(
                "values: {} of them; a list has 1 to {most}",
                values.len()
            )));
        }
        let ints = values.iter().all(toml::Value::is_integer);
        let strings = values.iter().all(toml::Value::is_str);
        if !ints && !strings {
            return Err(
                self.error("values: all integers or all strings (a column holds one type)".into())
            );
        }
        Ok(Generator::List(values.clone()))
    }

    /// A `histogram`'s `values = [[value, weight], ...]`: integers, 1 to
    /// [`bounds::MAX_LIST_VALUES`] of them, their weights adding up to
    /// more than 0.
    fn histogram(&self) -> Result<Generator, FileError> {
        let values = (self.g.values.as_ref())
            .ok_or_else(|| self.missing("values = [[value, weight], ...]"))?;
        let most = bounds::MAX_LIST_VALUES;
        if values.is_empty() || values.len() > most {
            return Err(self.error(format!(
                "values: {} of them; a histogram has 1 to {most}",
                values.len()
            )));
        }
        Ok(Generator::Histogram(
            histogram_pairs(values).map_err(|e| self.error(e))?,
        ))
    }
}

/// A histogram's `[[value, weight], ...]`: two integers each, the weight 0
/// or more, the weights adding up to more than 0.
pub(super) fn histogram_pairs(values: &[toml::Value]) -> Result<Vec<(i64, u64)>, String> {
    let pair = |v: &toml::Value| match v.as_array().map(Vec::as_slice) {
        Some([toml::Value::Integer(v), toml::Value::Integer(w)]) if *w >= 0 => {
            Some((*v, *w as u64))
        }
        _ => None,
    };
    let pairs: Vec<(i64, u64)> = (values.iter().map(pair).collect::<Option<_>>())
        .ok_or("values: each a [value, weight] of two integers, the weight 0 or more")?;
    let total = pairs
        .iter()
        .try_fold(0u64, |sum, (_, w)| sum.checked_add(*w));
    if total.is_none_or(|t| t == 0) {
        return Err("values' weights must add up to more than 0 (and fit 64 bits)".into());
    }
    Ok(pairs)
}

/// The generators whose value may be a function of an earlier integer
/// (`seeded_by`): those that draw values, not keys, rows or times.
const SEEDABLE: &[&str] = &[
    "uniform",
    "normal",
    "nurand",
    "number",
    "string",
    "pattern",
    "list",
    "histogram",
    "constant",
];

/// `generator`, made a function of the earlier integer its `seeded_by`
/// names among `earlier` (a table's columns before it, or a transaction's
/// parameters), if it names one.
pub(super) fn seeded(
    checker: &Checker<'_>,
    what: &str,
    g: &FieldDef,
    generator: Generator,
    earlier: &[(&str, &Generator)],
) -> Result<Generator, FileError> {
    let Some(by) = &g.seeded_by else {
        if let Some(suffix) = &g.suffix {
            let message = format!("{what}: suffix follows a seeded_by value, and this has none");
            return Err(checker.at.error(suffix.span(), message));
        }
        return Ok(generator);
    };
    let refused = |why: String| {
        checker.at.error(
            by.span(),
            format!("{what}: seeded_by = \"{}\": {why}", by.get_ref()),
        )
    };
    let kind = g.kind.get_ref().as_str();
    if !SEEDABLE.contains(&kind) {
        return Err(refused(format!(
            "gen = \"{kind}\" draws keys, rows or times; a seeded value is one of {}",
            SEEDABLE.join(", ")
        )));
    }
    if g.width.is_some() || g.home_step.is_some() || g.repeat.is_some() {
        return Err(refused(
            "it takes no width, home_step or repeat (every copy would be one value)".into(),
        ));
    }
    let Some(index) = earlier.iter().position(|(n, _)| n == by.get_ref()) else {
        return Err(refused("not one listed before it".into()));
    };
    if !matches!(
        earlier[index].1.drawn(),
        Drawn::Ints(..) | Drawn::KeysFrom(_)
    ) {
        return Err(refused("it draws no integer".into()));
    }
    let suffix = g
        .suffix
        .as_ref()
        .map(|t| suffix(checker, what, t, &generator));
    Ok(Generator::Seeded {
        inner: Box::new(generator),
        by: index,
        suffix: suffix.transpose()?,
    })
}

/// A `suffix`, text with `{}` once at most where the integer goes, after a
/// text value: split at the integer.
fn suffix(
    checker: &Checker<'_>,
    what: &str,
    template: &toml::Spanned<String>,
    generator: &Generator,
) -> Result<(String, String), FileError> {
    let refused = |why: &str| {
        let message = format!("{what}: suffix \"{}\": {why}", template.get_ref());
        checker.at.error(template.span(), message)
    };
    if !matches!(generator.drawn(), Drawn::Text(_)) {
        return Err(refused("it follows text, and this draws none"));
    }
    match template.get_ref().split_once("{}") {
        Some((_, after)) if after.contains("{}") => Err(refused("one {} at most")),
        Some((before, after)) => Ok((before.to_string(), after.to_string())),
        None => Err(refused(
            "no {} for the integer (write it where the integer goes)",
        )),
    }
}

/// A parameter's `generator`, or the `instead` value in so many percent of
/// its draws: a value of the same kind (an integer for integers, text for
/// text), for a generator that draws alone (not an insert's key, a sum,
/// another key or a seeded value, which are what they are).
pub(super) fn instead(
    checker: &Checker<'_>,
    what: &str,
    g: &FieldDef,
    generator: Generator,
) -> Result<Generator, FileError> {
    let Some(instead) = &g.instead else {
        return Ok(generator);
    };
    let (value, percent) = (&instead.get_ref().value, instead.get_ref().percent);
    let refused = |why: String| {
        checker
            .at
            .error(instead.span(), format!("{what}: instead: {why}"))
    };
    let alone = !matches!(
        generator,
        Generator::NextKey(_)
            | Generator::Add(_)
            | Generator::OtherKey { .. }
            | Generator::Seeded { .. }
    );
    if !alone || g.home_step.is_some() {
        return Err(refused(format!(
            "gen = \"{}\" is not drawn alone (an insert's key, a sum, another key, a seeded or homed value)",
            g.kind.get_ref()
        )));
    }
    if !(percent > 0.0 && percent <= 100.0) {
        return Err(refused(format!("percent {percent}: above 0, at most 100")));
    }
    let same_kind = match generator.drawn() {
        Drawn::Ints(..) | Drawn::KeysFrom(_) => value.is_integer(),
        Drawn::Text(_) => value.is_str(),
        _ => value.is_integer() || value.is_str(),
    };
    if !same_kind {
        return Err(refused(format!(
            "value {value} is not of the kind gen = \"{}\" draws",
            g.kind.get_ref()
        )));
    }
    Ok(Generator::Instead {
        inner: Box::new(generator),
        value: value.clone(),
        percent,
    })
}

/// Whether a generator asks for `inserted = true`.
fn inserted(g: &FieldDef) -> bool {
    g.inserted.as_ref().is_some_and(|i| *i.get_ref())
}
