//! A row read by one HMGET, made into the result the statement returns
//! straight from the answer's bytes: no value of the redis crate's and no
//! string per field in between (YCSB's reads are ten fields a row, and
//! those allocations were the largest share of the client's user time left
//! on them).

use redis::RedisError;
use redis_protocol::resp2::types::RangeFrame;
use txbench_core::{Param, Room, Rows};

use super::connection::{row_of, text_of};

/// How an HMGET's answer is a row: the columns, and where the key's field
/// is, whose nil says there is no row (among the columns, or asked for
/// before them only to tell that).
#[derive(Debug, Clone, Copy)]
pub struct HmgetRow {
    /// The key's place among the columns, if it is one of them.
    key_at: Option<usize>,
    /// Columns of the result.
    width: usize,
}

impl HmgetRow {
    /// An HMGET of `width` columns, the key's field at `key_at` among them
    /// or, when it is not one of them, asked for before them.
    pub fn new(key_at: Option<usize>, width: usize) -> HmgetRow {
        HmgetRow { key_at, width }
    }

    /// The field whose nil says there is no row.
    fn presence(&self) -> usize {
        self.key_at.unwrap_or(0)
    }

    /// Fields before the columns, asked for only to tell that.
    fn skip(&self) -> usize {
        usize::from(self.key_at.is_none())
    }

    /// The result (no row, or one of `width` columns) of the answer
    /// `frame`, whose ranges are of `bytes`.
    pub fn rows(&self, frame: &RangeFrame, bytes: &[u8]) -> Result<Rows, RedisError> {
        let cells = match frame {
            RangeFrame::Array(cells) if cells.len() == self.skip() + self.width => cells,
            _ => return self.owned(frame, bytes),
        };
        match cells.get(self.presence()).map(|c| text_of(c, bytes)) {
            Some(Some(None)) => return Ok(Rows::new(self.width)),
            Some(Some(Some(_))) => {}
            _ => return self.owned(frame, bytes),
        }
        let columns = &cells[self.skip()..];
        // Room for all the row's text at once: no buffer grows while the
        // fields are copied in.
        let text = columns.iter().map(|c| match c {
            RangeFrame::BulkString((start, end)) => end - start,
            _ => 0,
        });
        let room = Room {
            rows: 1,
            text: text.sum(),
        };
        let mut rows = Rows::with_room(self.width, room);
        let mut odd = false;
        rows.push_row(columns.iter().map(|c| match text_of(c, bytes) {
            Some(text) => text.map_or(Param::Null, Param::Text),
            None => {
                odd = true;
                Param::Null
            }
        }));
        if odd {
            return self.owned(frame, bytes);
        }
        Ok(rows)
    }

    /// The same made through a text per field, as the redis crate converts
    /// them, its errors included: for an answer of another kind (an error,
    /// a field that is not text), which YCSB's records never give.
    fn owned(&self, frame: &RangeFrame, bytes: &[u8]) -> Result<Rows, RedisError> {
        let row = row_of(frame, bytes)?;
        if row.len() != self.skip() + self.width {
            return Err(RedisError::from((
                redis::ErrorKind::UnexpectedReturnType,
                "an HMGET answered another number of fields than it asked for",
            )));
        }
        let mut rows = Rows::new(self.width);
        if row[self.presence()].is_some() {
            let cells = row[self.skip()..].iter();
            rows.push_row(cells.map(|v| v.as_deref().map_or(Param::Null, Param::Text)));
        }
        Ok(rows)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use redis_protocol::resp2::decode::decode_range;

    fn rows(shape: HmgetRow, bytes: &[u8]) -> Result<Rows, RedisError> {
        let (frame, _) = decode_range(bytes).unwrap().unwrap();
        shape.rows(&frame, bytes)
    }

    /// The key asked for apart (skip 1) or among the columns (skip 0); a
    /// nil key field is no row; a nil column is NULL; an integer field is
    /// its text, as the redis crate makes it; an error answer fails.
    #[test]
    fn an_answer_becomes_no_row_or_one_row_of_its_columns() {
        let apart = HmgetRow::new(None, 2);
        let got = rows(apart, b"*3\r\n$1\r\n7\r\n$2\r\nab\r\n$-1\r\n").unwrap();
        let mut want = Rows::new(2);
        want.push_row([Param::Text("ab"), Param::Null]);
        assert_eq!(got, want);
        let none = rows(apart, b"*3\r\n$-1\r\n$-1\r\n$-1\r\n").unwrap();
        assert_eq!(none, Rows::new(2));

        let among = HmgetRow::new(Some(1), 2);
        let got = rows(among, b"*2\r\n:5\r\n$1\r\n7\r\n").unwrap();
        let mut want = Rows::new(2);
        want.push_row([Param::Text("5"), Param::Text("7")]);
        assert_eq!(got, want);
        assert_eq!(
            rows(among, b"*2\r\n$1\r\nx\r\n$-1\r\n").unwrap(),
            Rows::new(2)
        );

        let err = rows(among, b"-WRONGTYPE Operation against a key\r\n").unwrap_err();
        assert_eq!(err.code(), Some("WRONGTYPE"));
        let err = rows(among, b"*1\r\n$1\r\nx\r\n").unwrap_err();
        assert_eq!(err.kind(), redis::ErrorKind::UnexpectedReturnType);
        let err = rows(among, b"*2\r\n$1\r\nx\r\n$1\r\n\xff\r\n").unwrap_err();
        assert!(!err.is_io_error(), "{err}");
    }
}
