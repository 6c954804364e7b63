//! Fuzzes the `code_block` parser: any bytes, read as (lossy) UTF-8, through
//! `parse::parse(text, Some(Format::CodeBlock))`; no panic, model invariants hold.
#![no_main]

use libfuzzer_sys::fuzz_target;
use llm_edit_lsp::model::Format;

fuzz_target!(|data: &[u8]| {
    llm_edit_lsp_fuzz::parse_and_check(data, Some(Format::CodeBlock));
});
