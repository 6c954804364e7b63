//! A JSON value tree that remembers where each value sits in the payload.
//!
//! `serde_json` validates the text and reports syntax errors with their
//! position, but its values carry no positions. This small parser rebuilds
//! the tree of an already validated value with the byte range of every node,
//! so each edit can name the payload lines of its JSON object. Strings are
//! decoded by `serde_json` itself (escapes, surrogate pairs), numbers are kept
//! as their text. It never panics: on anything unexpected it returns `None`.

/// A JSON value and the byte range `start..end` of its text.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    /// The value.
    pub value: Value,
    /// Byte offset of its first character.
    pub start: usize,
    /// Byte offset just past its last character.
    pub end: usize,
}

/// A JSON value whose children are [`Node`]s.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number, as written.
    Number(String),
    /// A decoded string.
    String(String),
    /// An array.
    Array(Vec<Node>),
    /// An object's members in payload order (duplicates kept; the last wins).
    Object(Vec<(String, Node)>),
}

impl Node {
    /// What the value is, for error messages: `a string`, `an array`, ...
    pub fn kind(&self) -> &'static str {
        match self.value {
            Value::Null => "null",
            Value::Bool(_) => "a boolean",
            Value::Number(_) => "a number",
            Value::String(_) => "a string",
            Value::Array(_) => "an array",
            Value::Object(_) => "an object",
        }
    }

    /// The member `key` of an object, `None` when absent, `null` or not an object.
    pub fn get(&self, key: &str) -> Option<&Node> {
        match &self.value {
            Value::Object(members) => members
                .iter()
                .rev()
                .find(|(k, _)| k == key)
                .map(|(_, v)| v)
                .filter(|v| v.value != Value::Null),
            _ => None,
        }
    }

    /// Does the object have a (non-null) member `key`?
    pub fn has(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// The string, if the value is one.
    pub fn as_str(&self) -> Option<&str> {
        match &self.value {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// The elements, if the value is an array.
    pub fn as_array(&self) -> Option<&[Node]> {
        match &self.value {
            Value::Array(items) => Some(items),
            _ => None,
        }
    }

    /// Gives this node and every node inside it the byte range `start..end`
    /// (for a value decoded from a JSON string: its positions are the string's).
    pub fn relocate(&mut self, start: usize, end: usize) {
        self.start = start;
        self.end = end;
        match &mut self.value {
            Value::Array(items) => items.iter_mut().for_each(|n| n.relocate(start, end)),
            Value::Object(members) => members.iter_mut().for_each(|(_, n)| n.relocate(start, end)),
            _ => {}
        }
    }
}

/// Arrays and objects nested deeper than this are not read: no tool call
/// nests so deep, and the tree, its walk and its drop recurse once a
/// level (`serde_json`'s own limit, which its validation of a value it
/// ignores does not apply).
pub const MAX_DEPTH: usize = 128;

/// Why [`parse_at`] read no value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unread {
    /// The text is not the JSON value it should be.
    Broken,
    /// Arrays and objects nest deeper than [`MAX_DEPTH`].
    TooDeep,
}

/// Parses the valid JSON value that starts at byte `pos` of `text`
/// (whitespace before it is skipped).
pub fn parse_at(text: &str, pos: usize) -> Result<Node, Unread> {
    let mut parser = Parser {
        text,
        bytes: text.as_bytes(),
        pos,
        depth: 0,
        too_deep: false,
    };
    match parser.value() {
        Some(node) => Ok(node),
        None if parser.too_deep => Err(Unread::TooDeep),
        None => Err(Unread::Broken),
    }
}

/// Byte offset of the first non-whitespace character at or after `pos`.
pub fn skip_whitespace(text: &str, pos: usize) -> usize {
    let bytes = text.as_bytes();
    let mut pos = pos;
    while bytes.get(pos).is_some_and(|b| b.is_ascii_whitespace()) {
        pos += 1;
    }
    pos
}

/// A cursor over validated JSON text.
struct Parser<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    /// Arrays and objects open around the cursor.
    depth: usize,
    /// Set when a value was given up for nesting past [`MAX_DEPTH`].
    too_deep: bool,
}

impl Parser<'_> {
    fn value(&mut self) -> Option<Node> {
        self.pos = skip_whitespace(self.text, self.pos);
        let start = self.pos;
        let value = match *self.bytes.get(self.pos)? {
            b'{' | b'[' if self.depth == MAX_DEPTH => {
                self.too_deep = true;
                return None;
            }
            b'{' => self.nested(Self::object)?,
            b'[' => self.nested(Self::array)?,
            b'"' => Value::String(self.string()?),
            b't' => self.literal("true", Value::Bool(true))?,
            b'f' => self.literal("false", Value::Bool(false))?,
            b'n' => self.literal("null", Value::Null)?,
            _ => self.number()?,
        };
        Some(Node {
            value,
            start,
            end: self.pos,
        })
    }

    /// An array or an object, one level deeper.
    fn nested(&mut self, read: fn(&mut Self) -> Option<Value>) -> Option<Value> {
        self.depth += 1;
        let value = read(self);
        self.depth -= 1;
        value
    }

    fn object(&mut self) -> Option<Value> {
        self.pos += 1;
        let mut members = Vec::new();
        if self.next_is(b'}') {
            return Some(Value::Object(members));
        }
        loop {
            self.pos = skip_whitespace(self.text, self.pos);
            let key = self.string()?;
            if !self.next_is(b':') {
                return None;
            }
            let value = self.value()?;
            members.push((key, value));
            if self.next_is(b',') {
                continue;
            }
            return self.next_is(b'}').then_some(Value::Object(members));
        }
    }

    fn array(&mut self) -> Option<Value> {
        self.pos += 1;
        let mut items = Vec::new();
        if self.next_is(b']') {
            return Some(Value::Array(items));
        }
        loop {
            items.push(self.value()?);
            if self.next_is(b',') {
                continue;
            }
            return self.next_is(b']').then_some(Value::Array(items));
        }
    }

    /// Skips whitespace; consumes `byte` if it comes next.
    fn next_is(&mut self, byte: u8) -> bool {
        self.pos = skip_whitespace(self.text, self.pos);
        let found = self.bytes.get(self.pos) == Some(&byte);
        if found {
            self.pos += 1;
        }
        found
    }

    fn string(&mut self) -> Option<String> {
        let start = self.pos;
        if self.bytes.get(start) != Some(&b'"') {
            return None;
        }
        self.pos += 1;
        loop {
            match *self.bytes.get(self.pos)? {
                b'\\' => self.pos += 2,
                b'"' => break,
                _ => self.pos += 1,
            }
        }
        self.pos += 1;
        serde_json::from_str(self.text.get(start..self.pos)?).ok()
    }

    fn literal(&mut self, word: &str, value: Value) -> Option<Value> {
        let end = self.pos + word.len();
        (self.text.get(self.pos..end)? == word).then(|| {
            self.pos = end;
            value
        })
    }

    fn number(&mut self) -> Option<Value> {
        let start = self.pos;
        while self
            .bytes
            .get(self.pos)
            .is_some_and(|b| b.is_ascii_digit() || b"-+.eE".contains(b))
        {
            self.pos += 1;
        }
        let text = self.text.get(start..self.pos)?;
        (!text.is_empty()).then(|| Value::Number(text.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_byte_ranges_of_nested_values() {
        let text = "{\"a\": [1, \"x«\\n\"],\n \"b\": {\"c\": null}}";
        let node = parse_at(text, 0).unwrap();
        assert_eq!((node.start, node.end), (0, text.len()));
        let a = node.get("a").unwrap();
        assert_eq!(&text[a.start..a.end], "[1, \"x«\\n\"]");
        assert_eq!(a.as_array().unwrap()[1].as_str(), Some("x«\n"));
        let b = node.get("b").unwrap();
        assert_eq!(&text[b.start..b.end], "{\"c\": null}");
        assert!(b.get("c").is_none(), "null members count as absent");
    }

    #[test]
    fn last_duplicate_key_wins() {
        let node = parse_at("{\"k\": 1, \"k\": true}", 0).unwrap();
        assert_eq!(node.get("k").unwrap().value, Value::Bool(true));
    }

    #[test]
    fn gives_up_without_panicking_on_broken_text() {
        for text in [
            "{\"a\": ",
            "[1, 2",
            "\"abc",
            "{\"a\" 1}",
            "tru",
            "",
            "{\"a\":1,}",
        ] {
            assert_eq!(parse_at(text, 0), Err(Unread::Broken), "{text}");
        }
    }

    #[test]
    fn nesting_stops_at_the_limit() {
        let nested = |depth: usize| format!("{}1{}", "[".repeat(depth), "]".repeat(depth));
        assert!(parse_at(&nested(MAX_DEPTH), 0).is_ok());
        assert_eq!(parse_at(&nested(MAX_DEPTH + 1), 0), Err(Unread::TooDeep));
        let objects = format!(
            "{}1{}",
            "{\"a\":".repeat(MAX_DEPTH + 1),
            "}".repeat(MAX_DEPTH + 1)
        );
        assert_eq!(parse_at(&objects, 0), Err(Unread::TooDeep));
        // Deep enough to overflow the stack of a parser that recursed on.
        assert_eq!(parse_at(&nested(1_000_000), 0), Err(Unread::TooDeep));
    }

    #[test]
    fn relocates_every_node() {
        let mut node = parse_at("{\"a\": [1]}", 0).unwrap();
        node.relocate(7, 9);
        let a = node.get("a").unwrap();
        assert_eq!((a.start, a.end), (7, 9));
        assert_eq!((a.as_array().unwrap()[0].start), 7);
    }
}
