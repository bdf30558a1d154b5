//! The compact form in which a controller's cache keeps each object ([`super::Cached`]):
//! its JSON value as tagged binary, each object key written as its number in one table
//! that the whole process shares.
//!
//! Why: most of a Kubernetes object's JSON is its keys (`lastTransitionTime`,
//! `observedGeneration`, label keys), and they are the same in every object of a kind: 275
//! of the 487 bytes that the cache kept of a scaffolded CronJob once Ready. Here each key
//! is kept once, for the life of the process. The table is bounded ([`KEYS_KEPT`]): once
//! full, new keys are written out in full in each object, so a kind whose keys are data (a
//! ConfigMap's) costs a bounded table, never a growing one.

use std::collections::HashMap;
use std::sync::{LazyLock, PoisonError, RwLock};

use serde::de::Error as _;
use serde_json::{Map, Number, Value};

/// How many distinct keys the process-wide table keeps: ample for the kinds of one
/// manager (a CronJob has about 20), and at most a megabyte or so when full.
pub const KEYS_KEPT: usize = 16_384;

static KEYS: LazyLock<Keys> = LazyLock::new(|| Keys::new(KEYS_KEPT));

/// `value` in its compact form.
pub fn encode(value: &Value) -> Box<[u8]> {
    KEYS.encode(value)
}

/// The value that [`encode`] wrote.
pub fn decode(bytes: &[u8]) -> serde_json::Result<Value> {
    KEYS.decode(bytes)
}

const NULL: u8 = 0;
const FALSE: u8 = 1;
const TRUE: u8 = 2;
/// A `u64`.
const UNSIGNED: u8 = 3;
/// A negative `i64` `n`, written as `!n`.
const NEGATIVE: u8 = 4;
/// An `f64`, little-endian.
const FLOAT: u8 = 5;
/// Its length in bytes, then its UTF-8.
const STRING: u8 = 6;
/// Its length, then each item.
const ARRAY: u8 = 7;
/// Its length, then each key and value. A key is its number in the table plus one, or 0
/// and the key written out as a string is.
const OBJECT: u8 = 8;

/// The table of keys: each key's number, and each number's key.
struct Keys {
    table: RwLock<Table>,
}

struct Table {
    numbers: HashMap<&'static str, u64>,
    /// Kept for the life of the process (the table only grows, up to `capacity`), hence
    /// `'static`: each key is one allocation, shared by both directions.
    names: Vec<&'static str>,
    capacity: usize,
}

impl Keys {
    fn new(capacity: usize) -> Self {
        let table = Table {
            numbers: HashMap::new(),
            names: Vec::new(),
            capacity,
        };
        Self {
            table: RwLock::new(table),
        }
    }

    fn encode(&self, value: &Value) -> Box<[u8]> {
        let mut out = Vec::new();
        self.write(value, &mut out);
        out.into_boxed_slice()
    }

    fn write(&self, value: &Value, out: &mut Vec<u8>) {
        match value {
            Value::Null => out.push(NULL),
            Value::Bool(false) => out.push(FALSE),
            Value::Bool(true) => out.push(TRUE),
            Value::Number(number) => write_number(number, out),
            Value::String(string) => {
                out.push(STRING);
                write_str(string, out);
            }
            Value::Array(items) => {
                out.push(ARRAY);
                write_length(items.len(), out);
                for item in items {
                    self.write(item, out);
                }
            }
            Value::Object(entries) => {
                out.push(OBJECT);
                write_length(entries.len(), out);
                for (key, item) in entries {
                    match self.number(key) {
                        Some(number) => write_varint(number + 1, out),
                        None => {
                            out.push(0);
                            write_str(key, out);
                        }
                    }
                    self.write(item, out);
                }
            }
        }
    }

    /// `key`'s number, given it one if the table has room.
    fn number(&self, key: &str) -> Option<u64> {
        let read = self.table.read().unwrap_or_else(PoisonError::into_inner);
        if let Some(&number) = read.numbers.get(key) {
            return Some(number);
        }
        drop(read);
        let mut table = self.table.write().unwrap_or_else(PoisonError::into_inner);
        if let Some(&number) = table.numbers.get(key) {
            return Some(number);
        }
        if table.names.len() >= table.capacity {
            return None;
        }
        let key: &'static str = Box::leak(key.into());
        let number = table.names.len() as u64;
        table.names.push(key);
        table.numbers.insert(key, number);
        Some(number)
    }

    fn decode(&self, bytes: &[u8]) -> serde_json::Result<Value> {
        let table = self.table.read().unwrap_or_else(PoisonError::into_inner);
        let mut reader = Reader {
            bytes,
            names: &table.names,
        };
        let value = reader.value()?;
        if !reader.bytes.is_empty() {
            return Err(corrupt("bytes after the value"));
        }
        Ok(value)
    }
}

fn write_number(number: &Number, out: &mut Vec<u8>) {
    if let Some(unsigned) = number.as_u64() {
        out.push(UNSIGNED);
        write_varint(unsigned, out);
    } else if let Some(negative) = number.as_i64() {
        out.push(NEGATIVE);
        write_varint(!negative as u64, out);
    } else {
        // A JSON number is one of the three (serde_json without `arbitrary_precision`).
        out.push(FLOAT);
        out.extend_from_slice(&number.as_f64().unwrap_or_default().to_le_bytes());
    }
}

fn write_str(string: &str, out: &mut Vec<u8>) {
    write_length(string.len(), out);
    out.extend_from_slice(string.as_bytes());
}

fn write_length(length: usize, out: &mut Vec<u8>) {
    write_varint(length as u64, out);
}

/// LEB128: seven bits a byte, the high bit set on all but the last.
fn write_varint(mut n: u64, out: &mut Vec<u8>) {
    while n >= 0x80 {
        out.push(n as u8 | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

struct Reader<'a> {
    bytes: &'a [u8],
    names: &'a [&'static str],
}

impl Reader<'_> {
    fn value(&mut self) -> serde_json::Result<Value> {
        Ok(match self.byte()? {
            NULL => Value::Null,
            FALSE => Value::Bool(false),
            TRUE => Value::Bool(true),
            UNSIGNED => Value::Number(self.varint()?.into()),
            NEGATIVE => Value::Number((!self.varint()? as i64).into()),
            FLOAT => {
                let bytes = self.take(8)?.try_into().expect("eight bytes");
                Number::from_f64(f64::from_le_bytes(bytes))
                    .map(Value::Number)
                    .ok_or_else(|| corrupt("a float that JSON cannot hold"))?
            }
            STRING => Value::String(self.string()?),
            ARRAY => {
                let length = self.length()?;
                let mut items = Vec::with_capacity(length.min(self.bytes.len()));
                for _ in 0..length {
                    items.push(self.value()?);
                }
                Value::Array(items)
            }
            OBJECT => {
                let length = self.length()?;
                let mut entries = Map::new();
                for _ in 0..length {
                    let key = match self.varint()? {
                        0 => self.string()?,
                        number => {
                            let name = usize::try_from(number - 1)
                                .ok()
                                .and_then(|index| self.names.get(index))
                                .ok_or_else(|| corrupt("a key the table does not hold"))?;
                            (*name).to_owned()
                        }
                    };
                    entries.insert(key, self.value()?);
                }
                Value::Object(entries)
            }
            _ => return Err(corrupt("an unknown tag")),
        })
    }

    fn byte(&mut self) -> serde_json::Result<u8> {
        Ok(self.take(1)?[0])
    }

    fn take(&mut self, n: usize) -> serde_json::Result<&[u8]> {
        if self.bytes.len() < n {
            return Err(corrupt("the end, mid-value"));
        }
        let (taken, rest) = self.bytes.split_at(n);
        self.bytes = rest;
        Ok(taken)
    }

    fn varint(&mut self) -> serde_json::Result<u64> {
        let mut n = 0u64;
        for shift in (0..64).step_by(7) {
            let byte = self.byte()?;
            n |= u64::from(byte & 0x7f) << shift;
            if byte < 0x80 {
                return Ok(n);
            }
        }
        Err(corrupt("a number longer than 64 bits"))
    }

    fn length(&mut self) -> serde_json::Result<usize> {
        usize::try_from(self.varint()?).map_err(|_| corrupt("a length beyond memory"))
    }

    fn string(&mut self) -> serde_json::Result<String> {
        let length = self.length()?;
        let bytes = self.take(length)?;
        String::from_utf8(bytes.to_vec()).map_err(|_| corrupt("a string that is not UTF-8"))
    }
}

/// Only a bug of this module can make it: the bytes are the cache's own.
fn corrupt(what: &str) -> serde_json::Error {
    serde_json::Error::custom(format_args!("the cached object is corrupt: {what}"))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn every_shape() -> Value {
        json!({
            "apiVersion": "batch.example.com/v1",
            "metadata": {"labels": {"app.kubernetes.io/name": "ünïcode ✓", "": "empty key"}},
            "spec": {
                "replicas": 3,
                "offset": -7,
                "min": i64::MIN,
                "max": u64::MAX,
                "ratio": 0.25,
                "huge": 1e300,
                "suspend": false,
                "paused": true,
                "note": null,
                "args": ["a", 1, [], {}, [null, {"nested": [-1.5]}]],
                "long": "x".repeat(300),
            },
        })
    }

    #[test]
    fn every_json_value_reads_back_as_it_was() {
        let keys = Keys::new(KEYS_KEPT);
        let value = every_shape();
        assert_eq!(keys.decode(&keys.encode(&value)).expect("decoded"), value);
    }

    /// What the table is for: each key costs one byte (its number, below 128 here) instead
    /// of a marker, its length and itself.
    #[test]
    fn keys_in_the_table_cost_their_number_only() {
        let value = every_shape();
        let written_out = Keys::new(0).encode(&value).len();
        let keys = Keys::new(KEYS_KEPT);
        let first = keys.encode(&value).len();
        assert_eq!(
            keys.encode(&value).len(),
            first,
            "the first object's keys are numbered too"
        );
        let saved: usize = keys_of(&value).iter().map(|key| key.len() + 1).sum();
        assert_eq!(written_out - first, saved);
    }

    fn keys_of(value: &Value) -> Vec<&str> {
        match value {
            Value::Object(entries) => entries
                .iter()
                .flat_map(|(key, item)| std::iter::once(key.as_str()).chain(keys_of(item)))
                .collect(),
            Value::Array(items) => items.iter().flat_map(keys_of).collect(),
            _ => Vec::new(),
        }
    }

    /// The table is bounded: the keys beyond it are written out, and read back.
    #[test]
    fn a_full_table_writes_new_keys_out() {
        let keys = Keys::new(2);
        let value = every_shape();
        let encoded = keys.encode(&value);
        assert_eq!(keys.table.read().unwrap().names.len(), 2);
        assert_eq!(keys.decode(&encoded).expect("decoded"), value);
        let roomy = Keys::new(KEYS_KEPT);
        assert!(roomy.encode(&value).len() < encoded.len());
    }

    #[test]
    fn damaged_bytes_are_an_error_not_a_panic() {
        let keys = Keys::new(KEYS_KEPT);
        let encoded = keys.encode(&every_shape());
        for cut in 0..encoded.len() {
            assert!(keys.decode(&encoded[..cut]).is_err(), "cut at {cut}");
        }
        let mut extra = encoded.to_vec();
        extra.push(NULL);
        assert!(keys.decode(&extra).is_err());
        assert!(
            keys.decode(&[OBJECT, 1, 200, 1, NULL]).is_err(),
            "an unknown key"
        );
        assert!(keys.decode(&[42]).is_err(), "an unknown tag");
    }
}
