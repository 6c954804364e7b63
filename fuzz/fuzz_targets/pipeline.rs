//! Fuzzes the whole engine: options, a payload and up to two in-memory
//! files through `engine::run`; no panic, and every planned change's edits
//! applied to its `before` text give its `after` text.
#![no_main]

use libfuzzer_sys::fuzz_target;
use llm_edit_lsp_fuzz::PipelineInput;

fuzz_target!(|input: PipelineInput| {
    llm_edit_lsp_fuzz::run_and_check(&input);
});
