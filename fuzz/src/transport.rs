//! The language server's transport on arbitrary input: the frame reader
//! (small limits, so resynchronization is exercised) and the JSON-RPC
//! checks never panic and always end; what a check lets through is a
//! JSON-RPC 2.0 object that passes the check again unchanged; what it
//! refuses gets a JSON-RPC error response.

use llm_edit_lsp::lsp::transport::frame::{Frame, FrameReader, Limits};
use llm_edit_lsp::lsp::transport::message::{self, INVALID_REQUEST, PARSE_ERROR};
use serde_json::Value;

/// Reads `data` as a client's stdin and checks every frame.
pub fn frames_and_check(data: &[u8]) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a runtime");
    let limits = Limits {
        header: 256,
        message: 4096,
    };
    runtime.block_on(async {
        let mut reader = FrameReader::new(data, limits);
        while let Some(frame) = reader.next().await {
            if let Frame::Message(body) = frame {
                assert!(body.len() <= limits.message);
                check_message(&body);
            }
        }
    });
    check_message(data);
}

/// One body through [`message::check`].
pub fn check_message(body: &[u8]) {
    match message::check(body) {
        Ok(incoming) => {
            let value: Value = serde_json::from_slice(&incoming.json).expect("forwarded JSON");
            assert_eq!(value["jsonrpc"], "2.0");
            let again = message::check(&incoming.json).expect("forwarded JSON passes again");
            assert_eq!(again, incoming);
        }
        Err(rejected) => {
            assert!(rejected.code == PARSE_ERROR || rejected.code == INVALID_REQUEST);
            let response: Value = serde_json::from_slice(&rejected.response()).expect("JSON");
            assert_eq!(response["error"]["code"], rejected.code);
        }
    }
}
