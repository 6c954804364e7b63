//! JSON-RPC 2.0 checks of one message body, before the protocol layer sees
//! it.
//!
//! A body goes on only when it is one JSON object (batches are not part of
//! LSP) with `"jsonrpc": "2.0"`, an `id` that is a string, an integer within
//! `i64` or null, and either a string `method` (a request or notification,
//! `params` an object, an array or null when present) or exactly one of `result` and
//! `error` (a response). It is re-serialized, so what goes on is canonical
//! JSON without duplicate keys. Anything else gets the error response the
//! JSON-RPC specification names: `-32700` (parse error, `id` null) for
//! what is not JSON, `-32600` (invalid request, with the `id` when it could
//! be read) for JSON that is not a message.
//!
//! One repair keeps an editor's text usable: a lone UTF-16 surrogate escape
//! (`\ud800` without its pair, which JavaScript strings may hold) becomes
//! `\ufffd`, one UTF-16 unit for one, so positions still line up. Nesting
//! is limited by `serde_json`'s recursion limit (at most 127 nested arrays
//! or objects), which the protocol layer shares.

use std::borrow::Cow;

use memchr::memmem;
use serde_json::{json, Map, Value};

/// JSON-RPC: invalid JSON.
pub const PARSE_ERROR: i64 = -32700;
/// JSON-RPC: JSON that is not a valid request object.
pub const INVALID_REQUEST: i64 = -32600;

/// A message that may go on.
#[derive(Debug, PartialEq)]
pub struct Incoming {
    /// The canonical JSON to forward.
    pub json: Vec<u8>,
    /// The method of a request or notification (`None`: a response).
    pub method: Option<String>,
    /// Whether it has an `id` (a request or a response).
    pub has_id: bool,
}

/// A message refused, with the error response to send back.
#[derive(Debug, PartialEq)]
pub struct Rejected {
    /// `-32700` or `-32600`.
    pub code: i64,
    /// The `id` to answer (null when unreadable).
    pub id: Value,
    /// What is wrong.
    pub message: String,
}

impl Rejected {
    /// A frame the reader could not take (a parse error).
    pub fn bad_frame(why: String) -> Rejected {
        Rejected::parse(format!("bad framing: {why}"))
    }

    fn parse(message: String) -> Rejected {
        Rejected {
            code: PARSE_ERROR,
            id: Value::Null,
            message,
        }
    }

    fn invalid(id: Value, message: impl Into<String>) -> Rejected {
        Rejected {
            code: INVALID_REQUEST,
            id,
            message: message.into(),
        }
    }

    /// The JSON-RPC error response.
    pub fn response(&self) -> Vec<u8> {
        let name = if self.code == PARSE_ERROR {
            "Parse error"
        } else {
            "Invalid request"
        };
        let response = json!({
            "jsonrpc": "2.0",
            "id": self.id,
            "error": {"code": self.code, "message": format!("{name}: {}", self.message)},
        });
        serde_json::to_vec(&response).expect("a JSON value serializes")
    }
}

/// Checks one body; see the module documentation.
pub fn check(body: &[u8]) -> Result<Incoming, Rejected> {
    let body = repair_lone_surrogates(body);
    let value: Value = serde_json::from_slice(&body).map_err(|e| {
        if e.to_string().starts_with("recursion limit exceeded") {
            Rejected::invalid(Value::Null, "JSON nested deeper than 127 levels")
        } else {
            Rejected::parse(format!("not JSON: {e}"))
        }
    })?;
    let object = match value {
        Value::Object(object) => object,
        Value::Array(_) => {
            return Err(Rejected::invalid(
                Value::Null,
                "batches are not supported; send one message at a time",
            ));
        }
        other => {
            return Err(Rejected::invalid(
                Value::Null,
                format!("a message is a JSON object, not {}", kind(&other)),
            ));
        }
    };
    let (id, method) = check_object(&object)?;
    Ok(Incoming {
        json: serde_json::to_vec(&object).expect("a JSON value serializes"),
        method,
        has_id: id.is_some(),
    })
}

/// The id and method of a message object.
fn check_object(object: &Map<String, Value>) -> Result<(Option<Value>, Option<String>), Rejected> {
    let id = match object.get("id") {
        None => None,
        Some(id @ (Value::String(_) | Value::Null)) => Some(id.clone()),
        Some(Value::Number(n)) if n.is_i64() => Some(Value::Number(n.clone())),
        Some(other) => {
            return Err(Rejected::invalid(
                Value::Null,
                format!("the id must be a string or an integer within 64 bits, not {other}"),
            ));
        }
    };
    let answer = id.clone().unwrap_or(Value::Null);
    match object.get("jsonrpc") {
        Some(Value::String(v)) if v == "2.0" => {}
        other => {
            let got = other.map_or("nothing".to_owned(), Value::to_string);
            return Err(Rejected::invalid(
                answer,
                format!("`jsonrpc` must be \"2.0\", not {got}"),
            ));
        }
    }
    let is_response = object.contains_key("result") || object.contains_key("error");
    match object.get("method") {
        Some(Value::String(method)) if !is_response => {
            match object.get("params") {
                // Null is not JSON-RPC, but clients send it for `exit`.
                None | Some(Value::Null | Value::Object(_) | Value::Array(_)) => {}
                Some(other) => {
                    return Err(Rejected::invalid(
                        answer,
                        format!(
                            "`params` must be an object or an array, not {}",
                            kind(other)
                        ),
                    ));
                }
            }
            Ok((id, Some(method.clone())))
        }
        Some(Value::String(_)) => Err(Rejected::invalid(
            answer,
            "a message is a request or a response, not both",
        )),
        Some(other) => Err(Rejected::invalid(
            answer,
            format!("`method` must be a string, not {}", kind(other)),
        )),
        None => {
            check_response(object, id.as_ref())?;
            Ok((id, None))
        }
    }
}

/// A response: an id, and exactly one of `result` and a valid `error`.
fn check_response(object: &Map<String, Value>, id: Option<&Value>) -> Result<(), Rejected> {
    let answer = id.cloned().unwrap_or(Value::Null);
    let Some(_) = id else {
        return Err(Rejected::invalid(
            answer,
            "a message needs a `method` (a request or notification) or an `id` (a response)",
        ));
    };
    match (object.get("result"), object.get("error")) {
        (Some(_), None) => Ok(()),
        (None, Some(Value::Object(error)))
            if error.get("code").is_some_and(Value::is_i64)
                && error.get("message").is_some_and(Value::is_string) =>
        {
            Ok(())
        }
        (None, Some(_)) => Err(Rejected::invalid(
            answer,
            "an `error` needs an integer `code` and a string `message`",
        )),
        _ => Err(Rejected::invalid(
            answer,
            "a response has exactly one of `result` and `error`",
        )),
    }
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Replaces every `\uXXXX` escape of a surrogate without its pair by
/// `\ufffd`. Only escapes inside strings are looked at; the rest of the
/// syntax is left for the JSON parser to judge.
fn repair_lone_surrogates(body: &[u8]) -> Cow<'_, [u8]> {
    if memmem::find(body, b"\\u").is_none() {
        return Cow::Borrowed(body);
    }
    let mut out: Option<Vec<u8>> = None;
    let mut copied = 0;
    let mut in_string = false;
    let mut i = 0;
    while i < body.len() {
        match (in_string, body[i]) {
            (false, b'"') => in_string = true,
            (true, b'"') => in_string = false,
            (true, b'\\') if body.get(i + 1) == Some(&b'u') => {
                let unit = hex4(&body[i + 2..]);
                let pair = unit.filter(|u| (0xD800..0xDC00).contains(u)).and_then(|_| {
                    (body.get(i + 6..i + 8) == Some(b"\\u"))
                        .then(|| hex4(&body[i + 8..]))
                        .flatten()
                        .filter(|low| (0xDC00..0xE000).contains(low))
                });
                match unit {
                    Some(_) if pair.is_some() => i += 12,
                    Some(0xD800..0xE000) => {
                        let out = out.get_or_insert_with(|| Vec::with_capacity(body.len()));
                        out.extend_from_slice(&body[copied..i]);
                        out.extend_from_slice(b"\\ufffd");
                        i += 6;
                        copied = i;
                    }
                    Some(_) => i += 6,
                    None => i += 2,
                }
                continue;
            }
            (true, b'\\') => i += 1,
            _ => {}
        }
        i += 1;
    }
    match out {
        Some(mut out) => {
            out.extend_from_slice(&body[copied..]);
            Cow::Owned(out)
        }
        None => Cow::Borrowed(body),
    }
}

/// Four hex digits at the start of `bytes`.
fn hex4(bytes: &[u8]) -> Option<u32> {
    let digits = std::str::from_utf8(bytes.get(..4)?).ok()?;
    if !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u32::from_str_radix(digits, 16).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use tower_lsp_server::jsonrpc::{Request, Response};

    fn rejected(body: &str) -> Rejected {
        check(body.as_bytes()).expect_err(body)
    }

    #[test]
    fn forwards_what_the_protocol_layer_decodes() {
        let requests = [
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#,
            r#"{"jsonrpc":"2.0","id":"a","method":"shutdown"}"#,
            r#"{"jsonrpc":"2.0","id":-9223372036854775808,"method":"x","params":[]}"#,
            r#"{"jsonrpc":"2.0","method":"exit"}"#,
            r#"{"jsonrpc":"2.0","method":"exit","params":null}"#,
            r#"{"jsonrpc":"1.0","jsonrpc":"2.0","method":"exit"}"#,
        ];
        for body in requests {
            let incoming = check(body.as_bytes()).expect(body);
            serde_json::from_slice::<Request>(&incoming.json).expect(body);
            assert!(incoming.method.is_some());
        }
        let responses = [
            r#"{"jsonrpc":"2.0","id":1,"result":null}"#,
            r#"{"jsonrpc":"2.0","id":"x","error":{"code":-1,"message":"no"}}"#,
        ];
        for body in responses {
            let incoming = check(body.as_bytes()).expect(body);
            serde_json::from_slice::<Response>(&incoming.json).expect(body);
            assert_eq!(incoming.method, None);
        }
    }

    #[test]
    fn invalid_json_is_a_parse_error_with_a_null_id() {
        for body in [
            &b"{"[..],
            b"",
            b"{\"jsonrpc\":\"2.0\",}",
            b"{\"a\":\"\xff\"}",
        ] {
            let got = check(body).unwrap_err();
            assert_eq!((got.code, &got.id), (PARSE_ERROR, &Value::Null));
        }
    }

    #[test]
    fn json_that_is_no_message_is_an_invalid_request() {
        let cases = [
            (r#"[]"#, Value::Null, "batches are not supported"),
            (r#"42"#, Value::Null, "not a number"),
            (
                r#"{"jsonrpc":"2.0","id":1.5,"method":"x"}"#,
                Value::Null,
                "not 1.5",
            ),
            (
                r#"{"jsonrpc":"2.0","id":1180591620717411303424,"method":"x"}"#,
                Value::Null,
                "within 64 bits",
            ),
            (
                r#"{"jsonrpc":"1.0","id":3,"method":"x"}"#,
                json!(3),
                "not \"1.0\"",
            ),
            (r#"{"id":"s","method":"x"}"#, json!("s"), "not nothing"),
            (
                r#"{"jsonrpc":"2.0","id":4,"method":7}"#,
                json!(4),
                "not a number",
            ),
            (
                r#"{"jsonrpc":"2.0","id":4,"method":"x","params":1}"#,
                json!(4),
                "`params`",
            ),
            (
                r#"{"jsonrpc":"2.0","id":5,"method":"x","result":1}"#,
                json!(5),
                "not both",
            ),
            (r#"{"jsonrpc":"2.0"}"#, Value::Null, "needs a `method`"),
            (r#"{"jsonrpc":"2.0","id":6}"#, json!(6), "exactly one of"),
            (
                r#"{"jsonrpc":"2.0","id":6,"error":{"code":1.5}}"#,
                json!(6),
                "integer `code`",
            ),
        ];
        for (body, id, why) in cases {
            let got = rejected(body);
            assert_eq!((got.code, &got.id), (INVALID_REQUEST, &id), "{body}");
            assert!(got.message.contains(why), "{body}: {}", got.message);
        }
    }

    #[test]
    fn nesting_is_limited_to_what_the_protocol_layer_accepts() {
        let nested = |depth: usize| {
            format!(
                r#"{{"jsonrpc":"2.0","method":"x","params":{}{}}}"#,
                "[".repeat(depth - 1),
                "]".repeat(depth - 1)
            )
        };
        let ok = check(nested(127).as_bytes()).unwrap();
        serde_json::from_slice::<Request>(&ok.json).unwrap();
        let got = rejected(&nested(128));
        assert_eq!(got.code, INVALID_REQUEST);
        assert!(got.message.contains("deeper than 127"), "{}", got.message);
        assert_eq!(rejected(&"[".repeat(100_000)).code, INVALID_REQUEST);
    }

    #[test]
    fn lone_surrogates_become_replacement_characters() {
        let body = r#"{"jsonrpc":"2.0","method":"x","params":{"t":"a\ud800b\udc00c\ud83d\ude00\\ud800\u0041"}}"#;
        let got = check(body.as_bytes()).unwrap();
        let value: Value = serde_json::from_slice(&got.json).unwrap();
        assert_eq!(value["params"]["t"], "a\u{fffd}b\u{fffd}c😀\\ud800A");
        let cut = r#"{"jsonrpc":"2.0","method":"x","params":{"t":"\ud800\u"}}"#;
        assert_eq!(rejected(cut).code, PARSE_ERROR);
    }

    #[test]
    fn error_responses_are_json_rpc() {
        let response = Rejected::invalid(json!(7), "bad").response();
        let response: Response = serde_json::from_slice(&response).unwrap();
        let value = serde_json::to_value(&response).unwrap();
        assert_eq!(value["id"], 7);
        assert_eq!(value["error"]["code"], INVALID_REQUEST);
        assert_eq!(value["error"]["message"], "Invalid request: bad");
    }
}
