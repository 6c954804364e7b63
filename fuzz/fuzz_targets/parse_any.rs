//! Fuzzes format auto-detection: any bytes, read as (lossy) UTF-8, through
//! `parse::parse(text, None)`; no panic, model invariants hold.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    llm_edit_lsp_fuzz::parse_and_check(data, None);
});
