//! The identifiers and stamps LangGraph gives a new checkpoint: a time-ordered UUIDv6 id whose
//! clock sequence is the step, an ISO 8601 timestamp, and channel versions
//! `"{n:032}.{random:016}"` (`SqliteSaver.get_next_version`).

use std::time::{SystemTime, UNIX_EPOCH};

/// 100-ns intervals between the UUID epoch (1582-10-15) and the Unix epoch.
const UUID_EPOCH_OFFSET: u64 = 0x01B2_1DD2_1381_4000;

fn random_u64() -> u64 {
    let mut b = [0u8; 8];
    // Without an entropy source the id stays unique by its time stamp; only the node differs.
    let _ = getrandom::fill(&mut b);
    u64::from_le_bytes(b)
}

/// The 60-bit time stamp of a UUIDv6 string, if it is one.
pub fn uuid6_timestamp(id: &str) -> Option<u64> {
    let hex: String = id.chars().filter(|c| *c != '-').collect();
    if hex.len() != 32 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) || &hex[12..13] != "6" {
        return None;
    }
    let high = u64::from_str_radix(&hex[..12], 16).ok()?;
    let low = u64::from_str_radix(&hex[13..16], 16).ok()?;
    Some((high << 12) | low)
}

/// A new UUIDv6 later than `after` (the latest checkpoint's id), as LangGraph's `uuid6(clock_seq
/// = step)` makes them: ordered by time, so it sorts after every existing checkpoint id.
pub fn uuid6(after: &str, step: i64) -> String {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64 / 100)
        + UUID_EPOCH_OFFSET;
    let timestamp = match uuid6_timestamp(after) {
        Some(t) if t >= now => t + 1,
        _ => now,
    };
    let clock_seq = (step as u64) & 0x3FFF;
    let node = random_u64() & 0xFFFF_FFFF_FFFF;
    let hi = (timestamp >> 12) & 0xFFFF_FFFF_FFFF;
    let lo = timestamp & 0x0FFF;
    format!(
        "{:08x}-{:04x}-6{:03x}-{:04x}-{:012x}",
        hi >> 16,
        hi & 0xFFFF,
        lo,
        0x8000 | clock_seq,
        node
    )
}

/// A random UUIDv4 string (`str(uuid.uuid4())`, the id `add_messages` gives a message).
pub fn uuid4() -> String {
    let (a, b) = (random_u64(), random_u64());
    format!(
        "{:08x}-{:04x}-4{:03x}-{:04x}-{:012x}",
        a >> 32,
        (a >> 16) & 0xFFFF,
        a & 0x0FFF,
        0x8000 | (b >> 48) & 0x3FFF,
        b & 0xFFFF_FFFF_FFFF
    )
}

/// Now as LangGraph writes `ts`: `2026-12-01T08:21:17.002892+00:00`.
pub fn timestamp() -> String {
    let d = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    let secs = d.as_secs();
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let (y, m, day) = civil_from_days(days as i64);
    format!(
        "{y:04}-{m:02}-{day:02}T{:02}:{:02}:{:02}.{:06}+00:00",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        d.subsec_micros()
    )
}

/// Year, month, day of a count of days since 1970-01-01 (Howard Hinnant's algorithm).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// The next channel version after the highest of `versions` (string versions
/// `"{n:032}.{hash}"` or integers), in the same form.
pub fn next_version<'a>(versions: impl Iterator<Item = &'a rmpv::Value>) -> rmpv::Value {
    let mut max = 0u64;
    let mut strings = true;
    for v in versions {
        let n = match v {
            rmpv::Value::Integer(i) => {
                strings = false;
                i.as_u64().unwrap_or(0)
            }
            v => v
                .as_str()
                .and_then(|s| s.split('.').next())
                .and_then(|n| n.parse().ok())
                .unwrap_or(0),
        };
        max = max.max(n);
    }
    if strings {
        let hash = (random_u64() >> 11) as f64 / (1u64 << 53) as f64;
        rmpv::Value::from(format!("{:032}.{hash:016}", max + 1).as_str())
    } else {
        rmpv::Value::from(max + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uuid6_sorts_after_the_latest_and_carries_the_step() {
        let latest = "1f1ed602-215d-662f-8004-41373c4f11f8";
        let id = uuid6(latest, 5);
        assert!(id.as_str() > latest, "{id}");
        assert_eq!(&id[19..23], "8005");
        assert_eq!(id.len(), 36);
        // A latest id from the future still gets a later id.
        let future = "ffffffff-ffff-6ffe-8004-41373c4f11f8";
        assert!(uuid6(future, 0).as_str() > future);
        assert_eq!(
            uuid6_timestamp(&uuid6(latest, 1)).map(|t| t > 0),
            Some(true)
        );
        assert_eq!(uuid6_timestamp("not-a-uuid"), None);
    }

    #[test]
    fn dates_and_versions() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(20_788), (2026, 12, 1));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
        let ts = timestamp();
        assert_eq!(ts.len(), "2026-12-01T08:21:17.002892+00:00".len());
        let v = [
            rmpv::Value::from("00000000000000000000000000000006.0.007992761433160855"),
            rmpv::Value::from("00000000000000000000000000000004.0.14"),
        ];
        let next = next_version(v.iter());
        assert!(
            next.as_str()
                .unwrap()
                .starts_with("00000000000000000000000000000007.0."),
            "{next}"
        );
        let ints = [rmpv::Value::from(3u64), rmpv::Value::from(9u64)];
        assert_eq!(next_version(ints.iter()), rmpv::Value::from(10u64));
        assert!(uuid4().chars().nth(14) == Some('4'));
    }
}
