//! A stream cut into blocks of whole lines, to read the lines of one big file on many threads.
//! Lines are split exactly as [`crate::read::each_line_from`] splits them, and a line over the
//! limit is measured, not kept, so memory stays at about one block.

use std::io::{self, Read};

use crate::read::Line;

/// A run of whole lines of the stream.
#[derive(Debug, Default)]
pub struct Block {
    /// The lines' bytes, and after them room that was read into before (kept to be read into
    /// again without clearing it first).
    bytes: Vec<u8>,
    lines: Vec<At>,
    /// No block follows.
    pub last: bool,
}

/// Where a line is in its block.
#[derive(Debug, Clone, Copy)]
struct At {
    number: usize,
    start: usize,
    /// The text's range in the block.
    text: (usize, usize),
    too_long: Option<usize>,
    last: bool,
}

impl Block {
    /// The lines of the block, in order.
    pub fn lines(&self) -> impl ExactSizeIterator<Item = Line<'_>> + '_ {
        self.lines.iter().map(|at| Line {
            number: at.number,
            start: at.start,
            text: &self.bytes[at.text.0..at.text.1],
            too_long: at.too_long,
            last: at.last,
        })
    }

    /// The `i`th line of the block.
    pub fn line(&self, i: usize) -> Line<'_> {
        let at = self.lines[i];
        Line {
            number: at.number,
            start: at.start,
            text: &self.bytes[at.text.0..at.text.1],
            too_long: at.too_long,
            last: at.last,
        }
    }
}

/// Cuts a stream into blocks of about `size` bytes of whole lines.
pub struct Blocks<R> {
    reader: R,
    /// Lines longer than this are measured, not kept (0: no limit).
    max: usize,
    size: usize,
    /// `buf[..filled]`: bytes read and not yet handed out; `buf[0]` is at `offset` in the
    /// stream. The rest of `buf` is room to read into (already written, so not cleared again:
    /// a reader that cannot read into uncleared memory would cost a clearing of every block).
    buf: Vec<u8>,
    filled: usize,
    offset: usize,
    number: usize,
    eof: bool,
    /// The bytes of a block handed back, to read into again (fresh memory costs page faults).
    spare: Vec<u8>,
}

impl<R: Read> Blocks<R> {
    /// Blocks of about `size` bytes from `reader`, lines over `max` bytes (0: no limit) not kept.
    pub fn new(reader: R, max: usize, size: usize) -> Blocks<R> {
        Blocks {
            reader,
            max,
            size: size.max(1),
            buf: Vec::new(),
            filled: 0,
            offset: 0,
            number: 0,
            eof: false,
            spare: Vec::new(),
        }
    }

    /// Hand back a block that is done with, so that its memory is read into again.
    pub fn recycle(&mut self, block: Block) {
        self.spare = block.bytes;
    }

    /// Read until `buf` holds `want` bytes or the stream ends.
    fn fill(&mut self, want: usize) -> io::Result<()> {
        if self.eof || self.filled >= want {
            return Ok(());
        }
        if self.buf.len() < want {
            self.buf.resize(want, 0);
        }
        while !self.eof && self.filled < want {
            match self.reader.read(&mut self.buf[self.filled..want]) {
                Ok(0) => self.eof = true,
                Ok(n) => self.filled += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// The next block, `None` at the end of the stream.
    pub fn next_block(&mut self) -> io::Result<Option<Block>> {
        let mut want = self.size;
        loop {
            // One byte more than the block, so that a line cut off is known not to be the last.
            self.fill(want + 1)?;
            if self.eof {
                if self.filled == 0 {
                    return Ok(None);
                }
                let end = std::mem::take(&mut self.filled);
                let bytes = std::mem::take(&mut self.buf);
                return Ok(Some(self.cut(bytes, end, true)));
            }
            let body = &self.buf[..self.filled - 1];
            if let Some(nl) = memchr::memrchr(b'\n', body) {
                // The bytes after the block's last line go to the front of the spare room.
                let left = self.filled - (nl + 1);
                let mut rest = std::mem::take(&mut self.spare);
                if rest.len() < left {
                    rest.resize(left, 0);
                }
                rest[..left].copy_from_slice(&self.buf[nl + 1..self.filled]);
                let bytes = std::mem::replace(&mut self.buf, rest);
                self.filled = left;
                return Ok(Some(self.cut(bytes, nl + 1, false)));
            }
            // No line end yet (`body` ends just before the last byte, which may be one) and
            // more than the limit, a line ending included: the line is too long.
            if self.max > 0 && self.filled > self.max + 1 && self.buf[self.filled - 1] != b'\n' {
                return self.skip_long().map(Some);
            }
            want = self.filled * 2;
        }
    }

    /// Split `bytes[..len]` (whole lines; the last one may lack its newline when `last`) into
    /// lines.
    fn cut(&mut self, bytes: Vec<u8>, len: usize, last: bool) -> Block {
        let mut lines = Vec::new();
        let mut from = 0;
        while from < len {
            let end = memchr::memchr(b'\n', &bytes[from..len]).map_or(len, |k| from + k);
            let at_end = last && end + 1 >= len;
            lines.push(self.line(from, &bytes[from..end], at_end));
            from = end + 1;
        }
        self.offset += len;
        Block { bytes, lines, last }
    }

    /// The line whose body (before its newline) is `body`, at `from` in its block.
    fn line(&mut self, from: usize, body: &[u8], last: bool) -> At {
        self.number += 1;
        let text = body.strip_suffix(b"\r").unwrap_or(body);
        let too_long = (self.max > 0 && text.len() > self.max).then_some(body.len());
        At {
            number: self.number,
            start: self.offset + from,
            text: if too_long.is_some() {
                (from, from)
            } else {
                (from, from + text.len())
            },
            too_long,
            last,
        }
    }

    /// A line over the limit that does not fit the buffer: read through it, counting its
    /// bytes, and hand it out alone.
    fn skip_long(&mut self) -> io::Result<Block> {
        let start = self.offset;
        let mut len = 0;
        let mut chunk = std::mem::take(&mut self.buf);
        let mut n = std::mem::take(&mut self.filled);
        loop {
            if let Some(k) = memchr::memchr(b'\n', &chunk[..n]) {
                len += k;
                self.buf.extend_from_slice(&chunk[k + 1..n]);
                self.filled = self.buf.len();
                self.offset += 1;
                break;
            }
            len += n;
            chunk.resize(1 << 16, 0);
            n = loop {
                match self.reader.read(&mut chunk) {
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    other => break other?,
                }
            };
            if n == 0 {
                self.eof = true;
                break;
            }
        }
        self.offset += len;
        self.fill(1)?;
        self.number += 1;
        Ok(Block {
            bytes: Vec::new(),
            lines: vec![At {
                number: self.number,
                start,
                text: (0, 0),
                too_long: Some(len),
                last: self.filled == 0 && self.eof,
            }],
            last: self.filled == 0 && self.eof,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::each_line_from;

    type Split = Vec<(usize, usize, Vec<u8>, Option<usize>, bool)>;

    fn by_lines(src: &[u8], max: usize) -> Split {
        let mut out = Vec::new();
        each_line_from(
            io::BufReader::with_capacity(3, src),
            max,
            |n, s, t, l, last| out.push((n, s, t.to_vec(), l, last)),
        )
        .unwrap();
        out
    }

    /// A reader that gives at most two bytes at a time, and is interrupted every third call.
    struct Trickle<'a>(&'a [u8], usize);

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            self.1 += 1;
            if self.1.is_multiple_of(3) {
                return Err(io::ErrorKind::Interrupted.into());
            }
            let n = buf.len().min(2).min(self.0.len());
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    fn by_blocks(src: &[u8], max: usize, size: usize) -> Split {
        let whole = by_blocks_from(src, max, size);
        assert_eq!(
            whole,
            by_blocks_from(Trickle(src, 0), max, size),
            "read in trickles"
        );
        whole
    }

    fn by_blocks_from(src: impl Read, max: usize, size: usize) -> Split {
        let mut blocks = Blocks::new(src, max, size);
        let mut out = Vec::new();
        let mut ended = false;
        while let Some(block) = blocks.next_block().unwrap() {
            assert!(!ended, "a block after the last one");
            ended = block.last;
            out.extend(
                block
                    .lines()
                    .map(|l| (l.number, l.start, l.text.to_vec(), l.too_long, l.last)),
            );
            // The block's room is read into again, as the stream reader does.
            blocks.recycle(block);
        }
        assert!(ended || out.is_empty(), "no block said it was the last");
        out
    }

    #[test]
    fn blocks_split_lines_as_the_line_reader_does() {
        let cases: [&[u8]; 9] = [
            b"",
            b"\n",
            b"ab\r\ncdefgh\n\nxyz",
            b"ab\r\ncdefgh\n\nxyz\n",
            b"one\n\n\n",
            b"0123456789\nok\r\n0123456789abcdef\r\nx",
            b"\xEF\xBB\xBF{}\n{}\r\n",
            b"abcd\r\nabcde\r\nabcdef\r\n\r\n",
            b"a very long line with no end at all",
        ];
        for src in cases {
            for max in [0, 1, 4, 5, 6, 100] {
                for size in [1, 2, 3, 5, 8, 64] {
                    assert_eq!(
                        by_blocks(src, max, size),
                        by_lines(src, max),
                        "{:?} max {max} block {size}",
                        String::from_utf8_lossy(src)
                    );
                }
            }
        }
    }
}
