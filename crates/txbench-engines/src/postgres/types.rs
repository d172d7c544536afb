//! Values across the PostgreSQL wire: parameters bound by the server's declared
//! type, and result columns read by their type.

use std::error::Error;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use bytes::BytesMut;
use rust_decimal::Decimal;
use rust_decimal::prelude::{FromPrimitive, ToPrimitive};
use tokio_postgres::Row;
use tokio_postgres::types::{FromSql, IsNull, ToSql, Type, to_sql_checked};
use txbench_core::schema::ColumnType;
use txbench_core::{DbError, ErrorKind, Param};

type BoxError = Box<dyn Error + Sync + Send>;

/// A parameter encoded as whatever type the server expects for it.
#[derive(Debug)]
pub struct PgParam<'a>(pub Param<'a>);

impl<'a> PgParam<'a> {
    /// The parameter for a loaded value.
    pub fn of(value: &'a txbench_core::Value) -> Self {
        PgParam(value.as_param())
    }
}

fn timestamp(micros: i64) -> SystemTime {
    if micros >= 0 {
        UNIX_EPOCH + Duration::from_micros(micros as u64)
    } else {
        UNIX_EPOCH - Duration::from_micros(micros.unsigned_abs())
    }
}

impl ToSql for PgParam<'_> {
    fn to_sql(&self, ty: &Type, out: &mut BytesMut) -> Result<IsNull, BoxError> {
        match self.0 {
            Param::Null => Ok(IsNull::Yes),
            Param::Int(v) => match *ty {
                Type::INT2 => i16::try_from(v)?.to_sql(ty, out),
                Type::INT4 => i32::try_from(v)?.to_sql(ty, out),
                Type::INT8 => v.to_sql(ty, out),
                Type::NUMERIC => Decimal::from(v).to_sql(ty, out),
                Type::FLOAT8 => (v as f64).to_sql(ty, out),
                Type::FLOAT4 => (v as f32).to_sql(ty, out),
                Type::TIMESTAMP | Type::TIMESTAMPTZ => timestamp(v).to_sql(ty, out),
                _ => Err(format!("cannot send an integer as {ty}").into()),
            },
            Param::Float(v) => match *ty {
                Type::NUMERIC => Decimal::from_f64(v)
                    .ok_or_else(|| format!("{v} is not a finite decimal"))?
                    // f64 carries cents inexactly; the column's scale decides, but 6
                    // places already removes the binary noise.
                    .round_dp(6)
                    .normalize()
                    .to_sql(ty, out),
                Type::FLOAT8 => v.to_sql(ty, out),
                Type::FLOAT4 => (v as f32).to_sql(ty, out),
                _ => Err(format!("cannot send a float as {ty}").into()),
            },
            Param::Text(v) => v.to_sql(ty, out),
            Param::Timestamp(v) => timestamp(v).to_sql(ty, out),
        }
    }

    fn accepts(_ty: &Type) -> bool {
        true
    }

    to_sql_checked!();
}

/// Column `i` of a row, its text read in place.
pub fn value(row: &Row, i: usize) -> Result<Param<'_>, DbError> {
    let ty = row.columns()[i].type_();
    let raw = row
        .try_get::<_, RawColumn>(i)
        .map_err(|e| DbError::new(ErrorKind::Other, format!("reading a {ty} column: {e}")))?;
    decode(ty, raw.0)
}

/// A column's bytes as the server sent them (binary format), `None` for NULL.
struct RawColumn<'a>(Option<&'a [u8]>);

impl<'a> FromSql<'a> for RawColumn<'a> {
    fn from_sql(_ty: &Type, raw: &'a [u8]) -> Result<Self, BoxError> {
        Ok(RawColumn(Some(raw)))
    }

    fn from_sql_null(_ty: &Type) -> Result<Self, BoxError> {
        Ok(RawColumn(None))
    }

    fn accepts(_ty: &Type) -> bool {
        true
    }
}

/// A column of type `ty` from its binary bytes (`None` for NULL), text read
/// in place.
pub fn decode<'a>(ty: &Type, raw: Option<&'a [u8]>) -> Result<Param<'a>, DbError> {
    fn read<'a, T: FromSql<'a>>(ty: &Type, raw: Option<&'a [u8]>) -> Result<Option<T>, DbError> {
        Option::<T>::from_sql_nullable(ty, raw)
            .map_err(|e| DbError::new(ErrorKind::Other, format!("reading a {ty} column: {e}")))
    }
    Ok(match *ty {
        Type::INT2 => read::<i16>(ty, raw)?.map_or(Param::Null, |v| Param::Int(v.into())),
        Type::INT4 => read::<i32>(ty, raw)?.map_or(Param::Null, |v| Param::Int(v.into())),
        Type::INT8 => read::<i64>(ty, raw)?.map_or(Param::Null, Param::Int),
        Type::NUMERIC => read::<Decimal>(ty, raw)?.map_or(Param::Null, |d| {
            Param::Float(d.to_f64().unwrap_or(f64::NAN))
        }),
        Type::FLOAT8 => read::<f64>(ty, raw)?.map_or(Param::Null, Param::Float),
        Type::FLOAT4 => read::<f32>(ty, raw)?.map_or(Param::Null, |v| Param::Float(v.into())),
        Type::BOOL => read::<bool>(ty, raw)?.map_or(Param::Null, |v| Param::Int(v.into())),
        Type::TIMESTAMP | Type::TIMESTAMPTZ => {
            read::<SystemTime>(ty, raw)?.map_or(Param::Null, |t| {
                Param::Timestamp(match t.duration_since(UNIX_EPOCH) {
                    Ok(d) => d.as_micros() as i64,
                    Err(e) => -(e.duration().as_micros() as i64),
                })
            })
        }
        _ => read::<&str>(ty, raw)?.map_or(Param::Null, Param::Text),
    })
}

/// The PostgreSQL type of a logical column type.
pub fn pg_type(ty: ColumnType) -> Type {
    match ty {
        ColumnType::Int => Type::INT4,
        ColumnType::BigInt => Type::INT8,
        ColumnType::Decimal(..) => Type::NUMERIC,
        ColumnType::Char(_) => Type::BPCHAR,
        ColumnType::Varchar(_) => Type::VARCHAR,
        ColumnType::Text => Type::TEXT,
        ColumnType::Timestamp => Type::TIMESTAMP,
    }
}

/// The DDL spelling of a logical column type.
pub fn ddl_type(ty: ColumnType) -> String {
    match ty {
        ColumnType::Int => "integer".into(),
        ColumnType::BigInt => "bigint".into(),
        ColumnType::Decimal(p, s) => format!("numeric({p}, {s})"),
        ColumnType::Char(n) => format!("char({n})"),
        ColumnType::Varchar(n) => format!("varchar({n})"),
        ColumnType::Text => "text".into(),
        ColumnType::Timestamp => "timestamp".into(),
    }
}
