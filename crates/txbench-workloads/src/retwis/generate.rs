//! The initial population: keys 1..=N, each with a random value of the
//! configured size, by unit of [`CHUNK`] keys (each unit its own random stream).

use txbench_core::Value;
use txbench_core::rng::Rand;
use txbench_core::value::RowBatch;

use super::schema::KV;

/// Keys per load unit.
pub const CHUNK: u64 = 10_000;

/// The units of a key space of `keys`.
pub fn units(keys: u64) -> Vec<u64> {
    (0..keys.div_ceil(CHUNK)).collect()
}

/// The rows of keys `chunk * CHUNK + 1 ..= min((chunk + 1) * CHUNK, keys)`.
pub fn generate(seed: u64, keys: u64, value_size: usize, chunk: u64) -> RowBatch {
    let mut rng = Rand::derive(seed, chunk);
    let first = chunk * CHUNK + 1;
    let last = ((chunk + 1) * CHUNK).min(keys);
    let mut batch = RowBatch::for_table(&KV, (last + 1).saturating_sub(first) as usize);
    for k in first..=last {
        batch.values.push(Value::Int(k as i64));
        batch
            .values
            .push(Value::Text(rng.astring(value_size, value_size)));
    }
    batch
}
