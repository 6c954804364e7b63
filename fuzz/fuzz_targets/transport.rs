//! Fuzzes the language server's transport: any bytes as a client's stdin,
//! through the frame reader and the JSON-RPC checks.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    llm_edit_lsp_fuzz::transport::frames_and_check(data);
});
