//! Strings of the chain of a Claude Code file: every uuid, parent and id is interned (see
//! [`Names`]), so a link per line costs a few words rather than a handful of heap
//! strings and lookups by uuid are plain vector indexing; a uuid takes 16 bytes. Timestamps,
//! only read back, are kept packed in 8 bytes each (see [`Stamps`]).

use std::borrow::Cow;
use std::hash::BuildHasher;

use hashbrown::HashTable;

use super::chunked::{Reader, Records, Writer};
use crate::chunked::Chunked;
pub(super) use crate::intern::{Interner, Sym};

/// The uuids, parents and ids of a file, each kept once and numbered in order of first
/// appearance (as [`Interner`] does). A uuid written as Claude Code writes it (lowercase,
/// hyphenated) is kept as its 16 bytes rather than 36 bytes of text and an 8-byte end; any
/// other string is kept as text, and every one reads back exactly as written.
#[derive(Debug, Default)]
pub(super) struct Names {
    /// Per number: the index of its uuid in `uuids`, or (top bit set) of its text in `texts`.
    slots: Chunked<u32>,
    uuids: Chunked<u128>,
    /// Where each text is in `bytes`.
    texts: Chunked<u64>,
    bytes: Records,
    /// The numbers of the strings, by content (uuid or text).
    table: HashTable<Sym>,
    hasher: foldhash::fast::FixedState,
}

/// The top bit of a [`Names`] slot: the string is text.
const TEXT_SLOT: u32 = 1 << 31;

/// Where the hyphens of a uuid stand.
const HYPHENS: [usize; 4] = [8, 13, 18, 23];

/// The 128 bits of `s`, when `s` is a lowercase hyphenated uuid.
pub(super) fn uuid_bits(b: &[u8]) -> Option<u128> {
    if b.len() != 36 || HYPHENS.iter().any(|&i| b[i] != b'-') {
        return None;
    }
    // Each half in a word of its own; a byte that is no digit shows in `bad` (255).
    let mut bad = 0u8;
    let mut half = |digits: [usize; 16]| {
        digits.iter().fold(0u64, |n, &i| {
            let v = HEX[b[i] as usize];
            bad |= v;
            n << 4 | u64::from(v)
        })
    };
    let hi = half(HIGH_DIGITS);
    let lo = half(LOW_DIGITS);
    (bad <= 15).then_some(u128::from(hi) << 64 | u128::from(lo))
}

/// Where the first and last 16 hex digits of a uuid stand.
const HIGH_DIGITS: [usize; 16] = [0, 1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12, 14, 15, 16, 17];
const LOW_DIGITS: [usize; 16] = [
    19, 20, 21, 22, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35,
];

/// The value of each lowercase hex digit; 255 for any other byte.
static HEX: [u8; 256] = {
    let mut t = [255u8; 256];
    let mut i = 0;
    while i < 10 {
        t[b'0' as usize + i] = i as u8;
        i += 1;
    }
    let mut i = 0;
    while i < 6 {
        t[b'a' as usize + i] = 10 + i as u8;
        i += 1;
    }
    t
};

/// The text [`uuid_bits`] read `n` from: lowercase hyphenated.
pub(super) fn uuid_text(n: u128) -> String {
    let hex = format!("{n:032x}");
    format!(
        "{}-{}-{}-{}-{}",
        &hex[..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..]
    )
}

impl Names {
    /// The number of `s`, adding it when new.
    #[cfg(test)]
    pub(super) fn intern(&mut self, s: &str) -> Sym {
        match uuid_bits(s.as_bytes()) {
            Some(bits) => self.intern_uuid(bits),
            None => self.intern_text(s),
        }
    }

    /// Text `k`.
    fn text(&self, k: u32) -> Cow<'_, str> {
        Reader(self.bytes.from(self.texts[k as usize])).str()
    }

    /// The bytes of text `k` (UTF-8: they were a `str`).
    fn text_bytes(&self, k: u32) -> &[u8] {
        Reader(self.bytes.from(self.texts[k as usize])).bytes()
    }

    /// The hash of string `sym`.
    fn hash_of(&self, sym: Sym) -> u64 {
        let slot = self.slots[sym as usize];
        if slot & TEXT_SLOT == 0 {
            self.hasher.hash_one(self.uuids[slot as usize])
        } else {
            self.hasher.hash_one(self.text_bytes(slot & !TEXT_SLOT))
        }
    }

    /// The number the next new string gets.
    fn next(&self) -> Sym {
        let next = Sym::try_from(self.slots.len()).expect("fewer than 2^31 distinct strings");
        assert!(next < TEXT_SLOT, "fewer than 2^31 distinct strings");
        next
    }

    pub(super) fn intern_text(&mut self, s: &str) -> Sym {
        let next = self.next();
        let hash = self.hasher.hash_one(s.as_bytes());
        let is_s = |sym: Sym| {
            let slot = self.slots[sym as usize];
            slot & TEXT_SLOT != 0 && self.text_bytes(slot & !TEXT_SLOT) == s.as_bytes()
        };
        if let Some(&sym) = self.table.find(hash, |&sym| is_s(sym)) {
            return sym;
        }
        let k = u32::try_from(self.texts.len()).expect("fewer than 2^31 distinct strings");
        self.texts.push(self.bytes.push_str(s));
        self.slots.push(TEXT_SLOT | k);
        self.insert(hash, next);
        next
    }

    pub(super) fn intern_uuid(&mut self, bits: u128) -> Sym {
        let next = self.next();
        let hash = self.hasher.hash_one(bits);
        let is_bits = |sym: Sym| {
            let slot = self.slots[sym as usize];
            slot & TEXT_SLOT == 0 && self.uuids[slot as usize] == bits
        };
        if let Some(&sym) = self.table.find(hash, |&sym| is_bits(sym)) {
            return sym;
        }
        self.slots.push(self.uuids.len() as u32);
        self.uuids.push(bits);
        self.insert(hash, next);
        next
    }

    /// Add the new string `sym`, whose hash is `hash`, to the table.
    fn insert(&mut self, hash: u64, sym: Sym) {
        let mut table = std::mem::take(&mut self.table);
        table.insert_unique(hash, sym, |&s| self.hash_of(s));
        self.table = table;
    }

    /// The string numbered `sym`, as it was written.
    pub(super) fn get(&self, sym: Sym) -> Cow<'_, str> {
        let slot = self.slots[sym as usize];
        if slot & TEXT_SLOT == 0 {
            Cow::Owned(uuid_text(self.uuids[slot as usize]))
        } else {
            self.text(slot & !TEXT_SLOT)
        }
    }

    /// How many strings there are (every number is below this).
    pub(super) fn len(&self) -> usize {
        self.slots.len()
    }

    /// Free what finds a uuid's number: the strings are only read back from here on.
    pub(super) fn forget_lookups(&mut self) {
        self.table = HashTable::new();
    }
}

/// Timestamps, numbered in order (not deduplicated, not looked up: only read back and
/// compared as text; a line without one takes a number too). One written as Claude Code
/// writes it (`2025-11-03T10:00:00.000Z`) is packed as its 17 digits in one number, which
/// orders as the text does; any other is kept as text. They are kept in groups of [`GROUP`]:
/// each a run of variable-length numbers, a packed timestamp written as its difference from
/// the group's packed one before it (a few bytes: a session's timestamps seldom go far from
/// one line to the next), so one is read back by reading its group from the start.
#[derive(Debug, Default)]
pub(super) struct Stamps {
    /// Where each full group starts in `records`.
    groups: Chunked<u64>,
    records: Records,
    /// The group being filled.
    current: Vec<u8>,
    /// The last packed timestamp of the group being filled (0: none yet).
    last: u64,
    /// How many timestamps there are.
    count: usize,
    other: String,
    ends: Vec<usize>,
}

/// Timestamps per group of [`Stamps`].
const GROUP: usize = 32;

/// One timestamp of [`Stamps`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stamp {
    None,
    Packed(u64),
    /// The number of its text.
    Text(usize),
}

/// The tags of a [`Stamp`] as written, in its two low bits.
const TAG_NONE: u64 = 0;
const TAG_PACKED: u64 = 1;
const TAG_TEXT: u64 = 2;

/// Where the fixed punctuation of `YYYY-MM-DDTHH:MM:SS.mmmZ` stands.
const PUNCTUATION: [(usize, u8); 7] = [
    (4, b'-'),
    (7, b'-'),
    (10, b'T'),
    (13, b':'),
    (16, b':'),
    (19, b'.'),
    (23, b'Z'),
];

/// Where its digits stand.
const DIGITS: [usize; 17] = [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18, 20, 21, 22];

/// The digits of `s` as one number, when `s` is `YYYY-MM-DDTHH:MM:SS.mmmZ` exactly.
pub(super) fn pack(b: &[u8]) -> Option<u64> {
    if b.len() != 24 || PUNCTUATION.iter().any(|&(i, c)| b[i] != c) {
        return None;
    }
    let mut n = 0u64;
    for i in DIGITS {
        let digit = b[i].wrapping_sub(b'0');
        if digit > 9 {
            return None;
        }
        n = n * 10 + u64::from(digit);
    }
    Some(n)
}

/// An ISO 8601 date and time (`YYYY-MM-DDTHH:MM:SS`, a fraction of a second of which
/// milliseconds count, then `Z`, an offset `+HH:MM`/`-HH:MM`, or nothing, read as UTC) in
/// milliseconds since 1970, as the client's `Date` reads what Claude Code writes; `None` for
/// any other text (the client finds no time in it either).
pub(super) fn millis(b: &[u8]) -> Option<i64> {
    let num = |r: std::ops::Range<usize>| -> Option<i64> {
        let d = b.get(r)?;
        d.iter()
            .all(u8::is_ascii_digit)
            .then(|| d.iter().fold(0i64, |n, &c| n * 10 + i64::from(c - b'0')))
    };
    let punctuation = [(4, b'-'), (7, b'-'), (10, b'T'), (13, b':'), (16, b':')];
    if punctuation.iter().any(|&(i, c)| b.get(i) != Some(&c)) {
        return None;
    }
    let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (h, mi, sec) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || sec > 59 {
        return None;
    }
    let mut at = 19;
    let mut ms = 0;
    if b.get(at) == Some(&b'.') {
        let digits = b[at + 1..]
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count();
        if digits == 0 {
            return None;
        }
        for k in 0..3 {
            ms = ms * 10
                + if k < digits {
                    i64::from(b[at + 1 + k] - b'0')
                } else {
                    0
                };
        }
        at += 1 + digits;
    }
    let offset = match &b[at..] {
        [] | [b'Z'] => 0,
        [sign @ (b'+' | b'-'), ..] if b.len() == at + 6 && b[at + 3] == b':' => {
            let m = num(at + 1..at + 3)? * 60 + num(at + 4..at + 6)?;
            if *sign == b'+' { m } else { -m }
        }
        _ => return None,
    };
    // Days from 1970-01-01 to the date (the proleptic Gregorian calendar).
    let (y, mo) = if mo <= 2 {
        (y - 1, mo + 9)
    } else {
        (y, mo - 3)
    };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * mo + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(((days * 24 + h) * 60 + mi - offset) * 60_000 + sec * 1000 + ms)
}

/// The text [`pack`] made `n` from.
fn unpack(mut n: u64) -> String {
    let mut b = [0u8; 24];
    for (i, c) in PUNCTUATION {
        b[i] = c;
    }
    for i in DIGITS.into_iter().rev() {
        b[i] = b'0' + (n % 10) as u8;
        n /= 10;
    }
    String::from_utf8_lossy(&b).into_owned()
}

impl Stamps {
    /// Keep `s`; its number.
    pub(super) fn push(&mut self, s: &str) -> Sym {
        let stamp = match pack(s.as_bytes()) {
            Some(n) => Stamp::Packed(n),
            None => {
                self.other.push_str(s);
                self.ends.push(self.other.len());
                Stamp::Text(self.ends.len() - 1)
            }
        };
        self.push_stamp(stamp)
    }

    /// Keep the place of a missing timestamp; its number.
    pub(super) fn push_none(&mut self) -> Sym {
        self.push_stamp(Stamp::None)
    }

    /// Keep a timestamp [`pack`] packed into `n`; its number.
    pub(super) fn push_number(&mut self, n: u64) -> Sym {
        self.push_stamp(Stamp::Packed(n))
    }

    fn push_stamp(&mut self, stamp: Stamp) -> Sym {
        let sym = Sym::try_from(self.count).expect("fewer than 2^32 timestamps");
        if self.count > 0 && self.count.is_multiple_of(GROUP) {
            self.groups.push(self.records.push(&self.current));
            self.current.clear();
            self.last = 0;
        }
        let entry = match stamp {
            Stamp::None => TAG_NONE,
            Stamp::Packed(n) => {
                // The difference, zigzagged (small either way), above the tag.
                let d = n.wrapping_sub(self.last) as i64;
                self.last = n;
                (((d << 1) ^ (d >> 63)) as u64) << 2 | TAG_PACKED
            }
            Stamp::Text(k) => (k as u64) << 2 | TAG_TEXT,
        };
        Writer(&mut self.current).uint(entry);
        self.count += 1;
        sym
    }

    /// The timestamps of group `g`, the first `n` of them, to `each`.
    fn read_group(&self, g: usize, n: usize, mut each: impl FnMut(Stamp)) {
        let bytes = match self.groups.get(g) {
            Some(&at) => self.records.from(at),
            None => &self.current,
        };
        let mut r = Reader(bytes);
        let mut last = 0u64;
        for _ in 0..n {
            let entry = r.uint();
            let payload = entry >> 2;
            each(match entry & 3 {
                TAG_PACKED => {
                    let d = (payload >> 1) as i64 ^ -((payload & 1) as i64);
                    last = last.wrapping_add(d as u64);
                    Stamp::Packed(last)
                }
                TAG_TEXT => Stamp::Text(payload as usize),
                _ => Stamp::None,
            });
        }
    }

    /// Timestamp `sym`.
    fn stamp(&self, sym: Sym) -> Stamp {
        let i = sym as usize;
        let mut found = Stamp::None;
        self.read_group(i / GROUP, i % GROUP + 1, |s| found = s);
        found
    }

    /// The timestamp numbered `sym`, as it was written (`None`: none was).
    pub(super) fn get(&self, sym: Sym) -> Option<Cow<'_, str>> {
        match self.stamp(sym) {
            Stamp::None => None,
            Stamp::Packed(n) => Some(Cow::Owned(unpack(n))),
            Stamp::Text(k) => Some(self.text(k)),
        }
    }

    /// Each timestamp in milliseconds since 1970 ([`millis`]), in order, to `each`.
    pub(super) fn each_millis(&self, mut each: impl FnMut(Sym, Option<i64>)) {
        let mut i: Sym = 0;
        for g in 0..self.count.div_ceil(GROUP) {
            let n = GROUP.min(self.count - g * GROUP);
            self.read_group(g, n, |s| {
                each(i, self.millis_of(s));
                i += 1;
            });
        }
    }

    /// Timestamp `sym` in milliseconds since 1970 ([`millis`]).
    pub(super) fn millis(&self, sym: Sym) -> Option<i64> {
        self.millis_of(self.stamp(sym))
    }

    fn millis_of(&self, stamp: Stamp) -> Option<i64> {
        match stamp {
            Stamp::None => None,
            Stamp::Packed(n) => millis(unpack(n).as_bytes()),
            Stamp::Text(k) => millis(self.text(k).as_bytes()),
        }
    }

    /// Text `k`.
    fn text(&self, k: usize) -> Cow<'_, str> {
        let start = if k == 0 { 0 } else { self.ends[k - 1] };
        Cow::Borrowed(&self.other[start..self.ends[k]])
    }
}

/// An optional [`Sym`] in four bytes (`u32::MAX`: none), to keep per-line records small.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct OptSym(u32);

impl OptSym {
    pub(super) fn new(sym: Option<Sym>) -> OptSym {
        OptSym(sym.unwrap_or(u32::MAX))
    }

    pub(super) fn get(self) -> Option<Sym> {
        (self.0 != u32::MAX).then_some(self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_read_as_the_clients_date_reads_them() {
        let at = |s: &str| millis(s.as_bytes());
        // 2026-11-20T10:00:00Z, from `date -u -d 2026-11-20T10:00:00Z +%s`.
        let base = 1_795_168_800_000;
        assert_eq!(at("2026-11-20T10:00:00.000Z"), Some(base));
        assert_eq!(at("2026-11-20T10:00:05.0004Z"), Some(base + 5_000));
        assert_eq!(at("2026-11-20T10:00:05.5Z"), Some(base + 5_500));
        assert_eq!(at("2026-11-20T10:00:00Z"), Some(base));
        assert_eq!(at("2026-11-20T10:00:00"), Some(base));
        assert_eq!(at("2026-11-20T12:00:00+02:00"), Some(base));
        assert_eq!(at("2026-11-20T09:30:00-00:30"), Some(base));
        assert_eq!(at("1970-01-01T00:00:00.000Z"), Some(0));
        assert_eq!(at("2024-02-29T00:00:00Z").map(|m| m % 86_400_000), Some(0));
        for bad in [
            "",
            "not-a-time",
            "2026-11-20",
            "2026-13-01T00:00:00Z",
            "2026-11-20T10:00:00.Z",
        ] {
            assert_eq!(at(bad), None, "{bad}");
        }
        let mut stamps = Stamps::default();
        for s in ["2026-11-20T10:00:00.000Z", "x", "2026-11-20T10:00:00+00:00"] {
            stamps.push(s);
        }
        stamps.push_none();
        let mut all = Vec::new();
        stamps.each_millis(|i, ms| all.push((i, ms)));
        assert_eq!(
            all,
            [(0, Some(base)), (1, None), (2, Some(base)), (3, None)]
        );
        assert_eq!(stamps.millis(2), Some(base));
        // Past a group of stamps, in order.
        let mut stamps = Stamps::default();
        for k in 0..70 {
            stamps.push(&format!("2026-11-20T10:{:02}:{:02}.000Z", k / 60, k % 60));
        }
        let mut all = Vec::new();
        stamps.each_millis(|i, ms| all.push((i, ms)));
        let want: Vec<_> = (0..70)
            .map(|k| (k, Some(base + i64::from(k) * 1000)))
            .collect();
        assert_eq!(all, want);
    }

    #[test]
    fn names_read_back_as_written_and_share_a_number_when_equal() {
        let written = [
            "0b7d4c3e-1f2a-4b5c-8d9e-0123456789ab",
            "toolu_01",
            "0B7D4C3E-1F2A-4B5C-8D9E-0123456789AB",
            "0b7d4c3e1f2a4b5c8d9e0123456789ab",
            "0b7d4c3e-1f2a-4b5c-8d9e-0123456789a",
            "0b7d4c3e-1f2a-4b5c-8d9e-0123456789ag",
            "0b7d4c3e-1f2a-4b5c-8d9e-0123456789ab ",
            "00000000-0000-0000-0000-000000000000",
            "",
            "0b7d4c3e-1f2a-4b5c-8d9e-0123456789ab",
            "toolu_01",
        ];
        let mut names = Names::default();
        let syms: Vec<Sym> = written.iter().map(|s| names.intern(s)).collect();
        assert_eq!(syms, [0, 1, 2, 3, 4, 5, 6, 7, 8, 0, 1]);
        assert_eq!(names.len(), 9);
        for (s, &sym) in written.iter().zip(&syms) {
            assert_eq!(names.get(sym), *s);
        }
        // Two canonical uuids are 16 bytes each; the rest is text.
        assert_eq!(names.uuids.len(), 2);
        assert_eq!(names.texts.len(), 7);
        // Found again once the table grew, and nowhere after it is freed.
        for (s, &sym) in written.iter().zip(&syms) {
            assert_eq!(names.intern(s), sym);
        }
        names.forget_lookups();
        assert_eq!(names.table.len(), 0);
        assert_eq!(names.get(syms[1]), "toolu_01");
    }

    #[test]
    fn timestamps_read_back_as_written_and_order_as_text() {
        let written = [
            "2025-11-03T10:00:00.000Z",
            "2025-11-03T09:59:59.999Z",
            "0000-00-00T00:00:00.000Z",
            "9999-99-99T99:99:99.999Z",
            "2025-11-03T10:00:00Z",
            "2025-11-03T10:00:00.000+01:00",
            "2025-11-03T1a:00:00.000Z",
            "",
            "t1",
        ];
        let mut stamps = Stamps::default();
        let syms: Vec<Sym> = written.iter().map(|s| stamps.push(s)).collect();
        for (s, &sym) in written.iter().zip(&syms) {
            assert_eq!(stamps.get(sym).as_deref(), Some(*s));
        }
        let none = stamps.push_none();
        assert_eq!(stamps.get(none), None);
        // Packed where the line was read, kept where it is taken.
        let packed = pack(written[1].as_bytes()).expect("packed");
        let taken = stamps.push_number(packed);
        assert_eq!(stamps.get(taken).as_deref(), Some(written[1]));
        // Groups past the first, and differences of every size and sign.
        let many: Vec<String> = (0..5 * GROUP)
            .map(|k| match k % 7 {
                3 => "t".repeat(k % 5),
                5 => format!("2025-11-03T10:00:00.000Z{k}"),
                _ => format!(
                    "{:04}-{:02}-03T{:02}:00:{:02}.{:03}Z",
                    2025 - (k % 3) * 1000,
                    k % 13,
                    k % 24,
                    k % 60,
                    k
                ),
            })
            .collect();
        let mut grouped = Stamps::default();
        let mut numbers = Vec::new();
        for (k, s) in many.iter().enumerate() {
            numbers.push(if k % 11 == 0 {
                grouped.push_none()
            } else {
                grouped.push(s)
            });
        }
        for (k, s) in many.iter().enumerate() {
            let want = (k % 11 != 0).then_some(s.as_str());
            assert_eq!(grouped.get(numbers[k]).as_deref(), want, "{k}");
        }
        // Packed: 8 bytes each, no text kept.
        assert_eq!(
            stamps.other.len(),
            "2025-11-03T10:00:00Z2025-11-03T10:00:00.000+01:002025-11-03T1a:00:00.000Zt1".len()
        );
        for &a in &syms[..4] {
            for &b in &syms[..4] {
                let (Stamp::Packed(pa), Stamp::Packed(pb)) = (stamps.stamp(a), stamps.stamp(b))
                else {
                    panic!("packed");
                };
                assert_eq!(pa.cmp(&pb), written[a as usize].cmp(written[b as usize]));
            }
        }
    }
}
