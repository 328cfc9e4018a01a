//! Frames of a `text/event-stream` body, by the WHATWG rules: `\r\n`, `\r` or `\n` line ends,
//! comment lines, multi-line data.

/// One Server-Sent Events frame.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Frame {
    pub id: Option<String>,
    pub event: Option<String>,
    pub data: String,
    /// the reconnection delay the server asked for, if this frame set one
    pub retry: Option<u64>,
}

#[derive(Default)]
pub(crate) struct Parser {
    buffer: Vec<u8>,
    frame: Frame,
    has_data: bool,
}

impl Parser {
    pub fn push(&mut self, chunk: &[u8]) {
        self.buffer.extend_from_slice(chunk);
    }

    /// The next complete frame in what was pushed so far.
    pub fn next_frame(&mut self) -> Option<Frame> {
        loop {
            let end = self.buffer.iter().position(|&b| b == b'\n' || b == b'\r')?;
            // a lone \r at the end may be half of \r\n: wait for the next byte
            if self.buffer[end] == b'\r' && end + 1 == self.buffer.len() {
                return None;
            }
            let skip = if self.buffer[end] == b'\r' && self.buffer.get(end + 1) == Some(&b'\n') {
                2
            } else {
                1
            };
            let line: Vec<u8> = self.buffer.drain(..end + skip).take(end).collect();
            let line = String::from_utf8_lossy(&line);
            if line.is_empty() {
                let frame = std::mem::take(&mut self.frame);
                let has_data = std::mem::take(&mut self.has_data);
                // a frame without data is only worth telling when it changes the reconnection delay
                if has_data || frame.retry.is_some() {
                    return Some(frame);
                }
                continue;
            }
            if line.starts_with(':') {
                continue;
            }
            let (field, value) = match line.find(':') {
                Some(colon) => (
                    &line[..colon],
                    line[colon + 1..].strip_prefix(' ').unwrap_or(&line[colon + 1..]),
                ),
                None => (&line[..], ""),
            };
            match field {
                "data" => {
                    if self.has_data {
                        self.frame.data.push('\n');
                    }
                    self.frame.data.push_str(value);
                    self.has_data = true;
                }
                "event" => self.frame.event = Some(value.to_owned()),
                "id" if !value.contains('\0') => self.frame.id = Some(value.to_owned()),
                "retry" => self.frame.retry = value.parse().ok(),
                _ => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames(chunks: &[&str]) -> Vec<Frame> {
        let mut parser = Parser::default();
        let mut out = Vec::new();
        for chunk in chunks {
            parser.push(chunk.as_bytes());
            while let Some(frame) = parser.next_frame() {
                out.push(frame);
            }
        }
        out
    }

    #[test]
    fn frames_across_chunks_and_line_ends() {
        let got = frames(&[
            ": hello\r\n\r\nid: evt_1\r",
            "\nevent: x\ndata: {\"a\":\ndata: 1}\n",
            "\nid: evt_2\rdata: b\r\n\r\n",
        ]);
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].id.as_deref(), Some("evt_1"));
        assert_eq!(got[0].event.as_deref(), Some("x"));
        assert_eq!(got[0].data, "{\"a\":\n1}");
        assert_eq!(got[1].id.as_deref(), Some("evt_2"));
        assert_eq!(got[1].data, "b");
    }

    #[test]
    fn a_retry_frame_is_told_and_comments_are_not() {
        let got = frames(&["retry: 2500\n\n: keep-alive\n\n"]);
        assert_eq!(
            got,
            vec![Frame {
                retry: Some(2500),
                ..Frame::default()
            }]
        );
    }

    #[test]
    fn an_unfinished_frame_waits() {
        assert!(frames(&["id: evt_1\ndata: x\n"]).is_empty());
    }
}
