//! Loading rows with `LOAD DATA LOCAL INFILE`: a batch is written as
//! tab-separated text and streamed to the server, which parses it without a
//! statement of 60,000 placeholders or a binary packet of the same size per
//! chunk (the cost of the multi-row INSERTs: about 0.9x go-tpc's load speed on
//! MariaDB, with 320-348 MB of client memory).

use std::fmt::Write as _;

use bytes::Bytes;
use futures_util::StreamExt;
use futures_util::stream;
use txbench_core::Value;
use txbench_core::schema::Table;
use txbench_core::value::RowBatch;

use super::types::{QUOTE, push_datetime};

/// The `LOAD DATA` statement for a table, its columns in the schema's order
/// and the text format [`encode`] writes. The file's name is the handler's, not the table's: no name reaches a
/// string literal.
pub(super) fn statement(table: &Table) -> String {
    format!(
        "LOAD DATA LOCAL INFILE 'txbench-rows' INTO TABLE {table} CHARACTER SET utf8mb4 \
         FIELDS TERMINATED BY '\\t' ESCAPED BY '\\\\' LINES TERMINATED BY '\\n' ({columns})",
        table = QUOTE.name(table.name),
        columns = table.column_list(QUOTE)
    )
}

/// A batch as the server's LOAD DATA text: tab between fields, newline after
/// each row, `\N` for NULL, and backslash escapes for what would end a field.
pub(super) fn encode(batch: &RowBatch) -> Bytes {
    let mut out = String::with_capacity(batch.values.len() * 12);
    for row in batch.rows() {
        for (i, value) in row.iter().enumerate() {
            if i > 0 {
                out.push('\t');
            }
            field(&mut out, value);
        }
        out.push('\n');
    }
    Bytes::from(out)
}

fn field(out: &mut String, value: &Value) {
    match value {
        Value::Null => out.push_str("\\N"),
        Value::Int(v) => {
            let _ = write!(out, "{v}");
        }
        // Rust writes the shortest text that reads back as the same f64,
        // never with an exponent.
        Value::Float(v) => {
            let _ = write!(out, "{v}");
        }
        Value::Timestamp(us) => push_datetime(out, *us),
        Value::Text(s) => {
            for ch in s.chars() {
                match ch {
                    '\\' => out.push_str("\\\\"),
                    '\t' => out.push_str("\\t"),
                    '\n' => out.push_str("\\n"),
                    '\r' => out.push_str("\\r"),
                    '\0' => out.push_str("\\0"),
                    _ => out.push(ch),
                }
            }
        }
    }
}

/// The most bytes of a batch sent as one packet: the client refuses a
/// packet larger than the server's `max_allowed_packet` (16 MiB by
/// default on MariaDB, as small as 1 MiB where it is set so), and a batch
/// of large texts is larger (Wikipedia's revisions, up to 100,000
/// characters each).
const INFILE_CHUNK: usize = 1 << 20;

/// The data a connection sends when the server asks for the file, in
/// chunks of at most [`INFILE_CHUNK`] bytes (slices of the one buffer).
pub(super) fn infile(data: Bytes) -> mysql_async::InfileData {
    let chunks: Vec<std::io::Result<Bytes>> = (0..data.len())
        .step_by(INFILE_CHUNK)
        .map(|at| Ok(data.slice(at..(at + INFILE_CHUNK).min(data.len()))))
        .collect();
    stream::iter(chunks).boxed()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_tab_separated_with_escapes_and_null() {
        let mut batch = RowBatch::with_capacity("t", 4, 2);
        batch.values = vec![
            Value::Int(-7),
            Value::Float(0.1),
            Value::Text("a\tb\\c\nd".into()),
            Value::Null,
            Value::Int(1),
            Value::Float(2.5),
            Value::Text(String::new()),
            Value::Timestamp(1_795_385_965_138_449),
        ];
        let text = encode(&batch);
        assert_eq!(
            std::str::from_utf8(&text).unwrap(),
            "-7\t0.1\ta\\tb\\\\c\\nd\t\\N\n1\t2.5\t\t2026-11-22 22:19:25.138449\n"
        );
    }
    #[test]
    fn a_batch_goes_to_the_server_in_chunks_no_larger_than_a_packet_may_be() {
        let data = Bytes::from(vec![b'x'; 2 * INFILE_CHUNK + 5]);
        let chunks: Vec<Bytes> = pollster::block_on(infile(data.clone()).collect::<Vec<_>>())
            .into_iter()
            .map(Result::unwrap)
            .collect();
        let sizes: Vec<usize> = chunks.iter().map(Bytes::len).collect();
        assert_eq!(sizes, [INFILE_CHUNK, INFILE_CHUNK, 5]);
        assert_eq!(chunks.concat(), data);
    }
}
