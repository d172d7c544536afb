//! Where rows live in etcd's one flat, ordered key space.
//!
//! Row `k` of table `t` is the key `t:k` (`kv_store::row_key`, as in Redis). A table of a key and one value
//! (Retwis's) holds the value itself. A wider table (YCSB's) holds the whole
//! row as a JSON array of its columns in table order, and its integer keys
//! are written so that etcd's byte order is their numeric order (20 digits,
//! offset so that negative keys sort first): a range read in key order is
//! one etcd range request, and the largest key one reversed range of one key.
//! A non-integer key of such a table is written after every integer one
//! (`t:~key`).

use txbench_core::{DbError, ErrorKind};

/// The sign bit: offsetting by it maps i64's order onto u64's.
const OFFSET: u64 = 1 << 63;

/// The prefix of every row key of `table`.
pub fn prefix(table: &str) -> String {
    format!("{table}:")
}

/// The first key after every row key of `table` (the prefix's range end).
pub fn prefix_end(table: &str) -> String {
    format!("{table};")
}

/// The key of row `key` of an encoded table: integer keys in numeric order.
pub fn ordered_key(table: &str, key: &str) -> String {
    match key.parse::<i64>() {
        Ok(k) => ordered_int(table, k),
        Err(_) => format!("{table}:~{key}"),
    }
}

/// The key of integer row `k` of an encoded table.
pub fn ordered_int(table: &str, k: i64) -> String {
    format!("{table}:{:020}", (k as u64) ^ OFFSET)
}

/// The first key after every integer row key of an encoded table.
pub fn integers_end(table: &str) -> String {
    format!("{table}:~")
}

/// The integer row key `key` (of [`ordered_int`]) stands for.
pub fn int_of(table: &str, key: &[u8]) -> Option<i64> {
    let digits = key.strip_prefix(prefix(table).as_bytes())?;
    let n: u64 = std::str::from_utf8(digits).ok()?.parse().ok()?;
    Some((n ^ OFFSET) as i64)
}

/// A row of an encoded table as stored: its columns in table order.
pub fn encode_row(row: &[Option<String>]) -> String {
    serde_json::to_string(row).expect("a list of strings encodes")
}

/// A stored row of an encoded table.
pub fn decode_row(key: &[u8], value: &[u8]) -> Result<Vec<Option<String>>, DbError> {
    serde_json::from_slice(value).map_err(|e| {
        DbError::new(
            ErrorKind::Data,
            format!(
                "etcd key '{}' does not hold a txbench row: {e}",
                String::from_utf8_lossy(key)
            ),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_keys_sort_as_numbers_and_read_back() {
        let keys = [i64::MIN, -5, -1, 0, 1, 9, 10, 1_000_000, i64::MAX];
        let stored: Vec<String> = keys.iter().map(|k| ordered_int("t", *k)).collect();
        let mut sorted = stored.clone();
        sorted.sort();
        assert_eq!(sorted, stored);
        for (k, s) in keys.iter().zip(&stored) {
            assert_eq!(int_of("t", s.as_bytes()), Some(*k));
            assert_eq!(ordered_key("t", &k.to_string()), *s);
            assert!(s.as_str() < integers_end("t").as_str() && s.as_str() > prefix("t").as_str());
        }
        assert!(ordered_key("t", "user7").as_str() > integers_end("t").as_str());
        assert!(prefix_end("t").as_str() > ordered_key("t", "~~~").as_str());
    }

    #[test]
    fn rows_round_trip() {
        let row = vec![Some("1".to_string()), None, Some("a\"b".to_string())];
        assert_eq!(
            decode_row(b"t:1", encode_row(&row).as_bytes()).unwrap(),
            row
        );
        let e = decode_row(b"t:1", b"not json").unwrap_err();
        assert_eq!(e.kind, ErrorKind::Data);
        assert!(e.message.contains("t:1"), "{}", e.message);
    }
}
