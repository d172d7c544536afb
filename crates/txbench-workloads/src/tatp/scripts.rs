//! TATP in the script form of a sharded key-value store (Redis Cluster,
//! [`Execution::Scripts`](txbench_core::Execution)): each transaction by
//! `s_id` is one Lua script on the subscriber's partition, atomic there, as a
//! single-partition stored procedure is; the types keyed by `sub_nbr` find
//! their subscriber first as the strategy says ([`super::key_access`]), or, with
//! `try-every-partition`, send the whole transaction by `sub_nbr` to every
//! partition, each looking the number up in its own index.
//!
//! The keys are the store's layout of the loaded rows ([`KvOp::Script`]): a
//! hash per row (`P subscriber:<s_id>`, `P special_facility:<s_id>:<sf_type>`,
//! ...), the primary keys of each table's rows in the partition (`P
//! call_forwarding`), and each partition's index on `sub_nbr` (`P
//! index:subscriber_sub_nbr`). Every start time of a call forwarding is 0, 8
//! or 16 (TATP's domain, which `tatp check` verifies), so Get-New-Destination
//! reads those three rows rather than a range.

use std::collections::BTreeMap;
use std::sync::Mutex;

use txbench_core::schema::{KvOp, ScriptOn, Statement};

use super::schema::SUBSCRIBER;

/// The first lines of every script: the partition's key prefix, and a row's
/// key from its table and primary key.
const PRELUDE: &str = "local P = KEYS[1]
local function row(t, ...) return P .. t .. ':' .. table.concat({...}, ':') end
";

/// The subscriber's `s_id` in the partition's own index of `sub_nbr`
/// (ARGV[1]); a partition that does not hold it changes nothing.
const BY_NUMBER: &str = "local s_id = redis.call('HGET', P .. 'index:subscriber_sub_nbr', ARGV[1])
if not s_id then return 0 end
";

/// The subscriber's `s_id`, given (ARGV[1]).
const BY_ID: &str = "local s_id = ARGV[1]\n";

/// Update-Location's change: 1 when the subscriber is there.
const UPDATE_LOCATION: &str = "local s = row('subscriber', s_id)
if redis.call('EXISTS', s) == 0 then return 0 end
redis.call('HSET', s, 'vlr_location', ARGV[2])
return 1
";

/// Insert-Call-Forwarding (ARGV: subscriber, sf_type, start_time, end_time,
/// numberx): 1 when inserted; 0 when the facility is missing or the start
/// time taken (the failures TATP expects).
const INSERT_FORWARDING: &str =
    "if redis.call('EXISTS', row('special_facility', s_id, ARGV[2])) == 0 then return 0 end
local pk = s_id .. ':' .. ARGV[2] .. ':' .. ARGV[3]
local cf = P .. 'call_forwarding:' .. pk
if redis.call('EXISTS', cf) == 1 then return 0 end
redis.call('HSET', cf, 's_id', s_id, 'sf_type', ARGV[2], 'start_time', ARGV[3],
  'end_time', ARGV[4], 'numberx', ARGV[5])
redis.call('SADD', P .. 'call_forwarding', pk)
return 1
";

/// Delete-Call-Forwarding (ARGV: subscriber, sf_type, start_time): 1 when
/// there was one.
const DELETE_FORWARDING: &str = "local pk = s_id .. ':' .. ARGV[2] .. ':' .. ARGV[3]
if redis.call('DEL', P .. 'call_forwarding:' .. pk) == 0 then return 0 end
redis.call('SREM', P .. 'call_forwarding', pk)
return 1
";

/// Get-New-Destination (ARGV: s_id, sf_type, start_time, end_time): the
/// `numberx` of each forwarding of an active facility that covers the time.
const NEW_DESTINATION: &str = "if redis.call('HGET', row('special_facility', ARGV[1], ARGV[2]), 'is_active') ~= '1' then
  return {}
end
local out = {}
for _, start in ipairs({'0', '8', '16'}) do
  if tonumber(start) <= tonumber(ARGV[3]) then
    local cf = redis.call('HMGET', row('call_forwarding', ARGV[1], ARGV[2], start), 'end_time', 'numberx')
    if cf[1] and tonumber(ARGV[4]) < tonumber(cf[1]) then out[#out + 1] = {cf[2]} end
  end
end
return out
";

/// Get-Access-Data (ARGV: s_id, ai_type): its four data columns.
const ACCESS_DATA: &str = "local k = row('access_info', ARGV[1], ARGV[2])
if redis.call('EXISTS', k) == 0 then return {} end
return {redis.call('HMGET', k, 'data1', 'data2', 'data3', 'data4')}
";

/// Update-Subscriber-Data (ARGV: s_id, bit_1, sf_type, data_a): 1 when
/// both changed; 0, changing nothing, when the facility is missing.
const SUBSCRIBER_DATA: &str = "local s = row('subscriber', ARGV[1])
if redis.call('EXISTS', s) == 0 then return redis.error_reply('missing row: subscriber ' .. ARGV[1]) end
local f = row('special_facility', ARGV[1], ARGV[3])
if redis.call('EXISTS', f) == 0 then return 0 end
redis.call('HSET', s, 'bit_1', ARGV[2])
redis.call('HSET', f, 'data_a', ARGV[4])
return 1
";

/// `s_id` of `sub_nbr` (ARGV[1]) in the alternative key's own hash, placed
/// by the number: one row, or none.
const FIND_IN_INDEX: &str = "local s = redis.call('HGET', row('subscriber_nbr', ARGV[1]), 's_id')
if not s then return {} end
return {{tonumber(s)}}
";

/// `s_id` of `sub_nbr` (ARGV[1]) in the partition's own index: one row, or
/// none.
const FIND_IN_PARTITION: &str =
    "local s = redis.call('HGET', P .. 'index:subscriber_sub_nbr', ARGV[1])
if not s then return {} end
return {{tonumber(s)}}
";

/// The population's invariants in one partition (see [`super::check`]):
/// rows `{'count', condition, violations}` for conditions 1..7 (below), then
/// `{'subscriber', s_id, sub_nbr}` for each subscriber and `{'nbr', sub_nbr,
/// s_id}` for each entry of the alternative key's hash placed here, which
/// are compared across partitions.
///
/// 1. 1..4 access-info rows per subscriber; 2. their types in 1..4, of a
///    subscriber; 3. 1..4 facilities per subscriber; 4. their types in 1..4,
///    active 0 or 1, of a subscriber; 5. at most 3 forwardings per facility;
///    6. their start times 0, 8 or 16, of a facility; 7. the partition's
///    index of `sub_nbr`: each subscriber's number, to its `s_id`, and no other.
const CHECK: &str = "local out = {}
local bad = {0, 0, 0, 0, 0, 0, 0}
local function split(pk) local t = {} for v in string.gmatch(pk, '[^:]+') do t[#t + 1] = v end return t end
local function within(v, lo, hi) local n = tonumber(v) return n ~= nil and n >= lo and n <= hi end
local subscribers = redis.call('SMEMBERS', P .. 'subscriber')
local index = P .. 'index:subscriber_sub_nbr'
for _, s in ipairs(subscribers) do
  local nbr = redis.call('HGET', row('subscriber', s), 'sub_nbr')
  out[#out + 1] = {'subscriber', tonumber(s), nbr}
  local ai, sf = 0, 0
  for t = 1, 4 do
    ai = ai + redis.call('EXISTS', row('access_info', s, t))
    sf = sf + redis.call('EXISTS', row('special_facility', s, t))
  end
  if ai < 1 or ai > 4 then bad[1] = bad[1] + 1 end
  if sf < 1 or sf > 4 then bad[3] = bad[3] + 1 end
  if not nbr or redis.call('HGET', index, nbr) ~= s then bad[7] = bad[7] + 1 end
end
local entries = redis.call('HGETALL', index)
for i = 1, #entries, 2 do
  if redis.call('HGET', row('subscriber', entries[i + 1]), 'sub_nbr') ~= entries[i] then bad[7] = bad[7] + 1 end
end
for _, pk in ipairs(redis.call('SMEMBERS', P .. 'access_info')) do
  local k = split(pk)
  if not within(k[2], 1, 4) or redis.call('EXISTS', row('subscriber', k[1])) == 0 then bad[2] = bad[2] + 1 end
end
for _, pk in ipairs(redis.call('SMEMBERS', P .. 'special_facility')) do
  local k = split(pk)
  local active = redis.call('HGET', row('special_facility', k[1], k[2]), 'is_active')
  if not within(k[2], 1, 4) or (active ~= '0' and active ~= '1')
    or redis.call('EXISTS', row('subscriber', k[1])) == 0 then bad[4] = bad[4] + 1 end
end
local per_facility = {}
for _, pk in ipairs(redis.call('SMEMBERS', P .. 'call_forwarding')) do
  local k = split(pk)
  local facility = k[1] .. ':' .. k[2]
  per_facility[facility] = (per_facility[facility] or 0) + 1
  if (k[3] ~= '0' and k[3] ~= '8' and k[3] ~= '16')
    or redis.call('EXISTS', row('special_facility', k[1], k[2])) == 0 then bad[6] = bad[6] + 1 end
end
for _, n in pairs(per_facility) do if n > 3 then bad[5] = bad[5] + 1 end end
for _, nbr in ipairs(redis.call('SMEMBERS', P .. 'subscriber_nbr')) do
  out[#out + 1] = {'nbr', nbr, tonumber(redis.call('HGET', row('subscriber_nbr', nbr), 's_id'))}
end
for i = 1, 7 do out[#out + 1] = {'count', i, bad[i]} end
return out
";

/// The scripts of a load in a number of partitions.
#[derive(Debug)]
pub struct Scripts {
    /// Get-Subscriber-Data.
    pub subscriber: Statement,
    /// Get-New-Destination.
    pub new_destination: Statement,
    /// Get-Access-Data.
    pub access_data: Statement,
    /// Update-Subscriber-Data.
    pub subscriber_data: Statement,
    /// Update-Location by `s_id`.
    pub update_location: Statement,
    /// Insert-Call-Forwarding by `s_id`.
    pub insert_forwarding: Statement,
    /// Delete-Call-Forwarding by `s_id`.
    pub delete_forwarding: Statement,
    /// `s_id` by `sub_nbr` in the alternative key's own hash.
    pub find_in_index: Statement,
    /// Each partition's scripts, by its number.
    pub partitions: Vec<PartitionScripts>,
}

/// The scripts sent to one partition by number.
#[derive(Debug)]
pub struct PartitionScripts {
    /// `s_id` by `sub_nbr` in the partition's own index.
    pub find: Statement,
    /// Update-Location by `sub_nbr`.
    pub update_location: Statement,
    /// Insert-Call-Forwarding by `sub_nbr`.
    pub insert_forwarding: Statement,
    /// Delete-Call-Forwarding by `sub_nbr`.
    pub delete_forwarding: Statement,
    /// The partition's invariants (`tatp check`).
    pub check: Statement,
}

/// A script's whole source, made once per partition count (and kept, as a
/// statement is).
fn source(parts: &[&str]) -> &'static str {
    Box::leak(parts.concat().into_boxed_str())
}

/// A script statement.
fn script(name: String, source: &'static str, on: ScriptOn, partitions: u32) -> Statement {
    Statement::new(Box::leak(name.into_boxed_str()), "").key_value(KvOp::Script {
        source,
        on,
        partitions,
    })
}

impl Scripts {
    fn new(count: u32) -> Scripts {
        let by_subscriber = ScriptOn::PartitionOf { param: 0 };
        let columns: Vec<String> = SUBSCRIBER
            .columns
            .iter()
            .map(|c| format!("'{}'", c.name))
            .collect();
        let get_subscriber = format!(
            "local k = row('subscriber', ARGV[1])
if redis.call('EXISTS', k) == 0 then return {{}} end
return {{redis.call('HMGET', k, {})}}
",
            columns.join(", ")
        );
        let on_subscriber = |name: &str, parts: &[&str]| {
            script(name.to_string(), source(parts), by_subscriber, count)
        };
        let partitions = (0..count)
            .map(|index| {
                let on = ScriptOn::Partition { index };
                let named = |what: &str| format!("{what} in partition {index}");
                PartitionScripts {
                    find: script(
                        named("find s_id"),
                        source(&[PRELUDE, FIND_IN_PARTITION]),
                        on,
                        count,
                    ),
                    update_location: script(
                        named("update location"),
                        source(&[PRELUDE, BY_NUMBER, UPDATE_LOCATION]),
                        on,
                        count,
                    ),
                    insert_forwarding: script(
                        named("insert call forwarding"),
                        source(&[PRELUDE, BY_NUMBER, INSERT_FORWARDING]),
                        on,
                        count,
                    ),
                    delete_forwarding: script(
                        named("delete call forwarding"),
                        source(&[PRELUDE, BY_NUMBER, DELETE_FORWARDING]),
                        on,
                        count,
                    ),
                    check: script(named("check"), source(&[PRELUDE, CHECK]), on, count),
                }
            })
            .collect();
        Scripts {
            subscriber: on_subscriber("get subscriber", &[PRELUDE, &get_subscriber]),
            new_destination: on_subscriber("get new destination", &[PRELUDE, NEW_DESTINATION]),
            access_data: on_subscriber("get access data", &[PRELUDE, ACCESS_DATA]),
            subscriber_data: on_subscriber("update subscriber data", &[PRELUDE, SUBSCRIBER_DATA]),
            update_location: on_subscriber(
                "update location by s_id",
                &[PRELUDE, BY_ID, UPDATE_LOCATION],
            ),
            insert_forwarding: on_subscriber(
                "insert call forwarding by s_id",
                &[PRELUDE, BY_ID, INSERT_FORWARDING],
            ),
            delete_forwarding: on_subscriber(
                "delete call forwarding by s_id",
                &[PRELUDE, BY_ID, DELETE_FORWARDING],
            ),
            // Placed by the number (the hash's own partitioning column).
            find_in_index: on_subscriber(
                "s_id by sub_nbr in subscriber_nbr",
                &[PRELUDE, FIND_IN_INDEX],
            ),
            partitions,
        }
    }
}

/// The scripts of a load in `count` partitions, made once per process.
pub fn scripts(count: u32) -> &'static Scripts {
    static MADE: Mutex<BTreeMap<u32, &'static Scripts>> = Mutex::new(BTreeMap::new());
    let mut made = MADE.lock().unwrap_or_else(|e| e.into_inner());
    made.entry(count)
        .or_insert_with(|| Box::leak(Box::new(Scripts::new(count))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_partition_count_is_made_once_placed_as_its_rows() {
        let four = scripts(4);
        assert!(std::ptr::eq(four, scripts(4)));
        assert_eq!(four.partitions.len(), 4);
        let Some(KvOp::Script { on, partitions, .. }) = four.partitions[3].find.kv else {
            panic!("a script");
        };
        assert_eq!((on, partitions), (ScriptOn::Partition { index: 3 }, 4));
        let Some(KvOp::Script { on, source, .. }) = four.subscriber.kv else {
            panic!("a script");
        };
        assert_eq!(on, ScriptOn::PartitionOf { param: 0 });
        assert!(source.contains("'vlr_location'"), "{source}");
        let Some(KvOp::Script { source, .. }) = four.partitions[0].update_location.kv else {
            panic!("a script");
        };
        assert!(source.starts_with(PRELUDE) && source.contains(BY_NUMBER));
    }
}
