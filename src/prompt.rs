//! Prompt kits: per format, the instructions an LLM needs to write it well
//! and, for tool calls, the JSON schemas of the tools.

use serde::Serialize;

use crate::model::Format;

/// What an integrator gives the LLM for one format.
#[derive(Clone, Debug, Serialize)]
pub struct PromptKit {
    /// The format's name.
    pub format: &'static str,
    /// Instructions for the system prompt (markdown).
    pub instructions: &'static str,
    /// Tool schemas (OpenAI function-tool style), for tool-call formats.
    pub tools: Option<serde_json::Value>,
}

/// The kit of `format`.
pub fn kit(format: Format) -> PromptKit {
    let instructions = match format {
        Format::Json => include_str!("prompt_kits/json.md"),
        Format::SearchReplace => include_str!("prompt_kits/search_replace.md"),
        Format::RooDiff => include_str!("prompt_kits/roo_diff.md"),
        Format::EditBlockV2 => include_str!("prompt_kits/edit_block_v2.md"),
        Format::EditBlock => include_str!("prompt_kits/edit_block.md"),
        Format::FindReplace => include_str!("prompt_kits/find_replace.md"),
        Format::ApplyPatch => include_str!("prompt_kits/apply_patch.md"),
        Format::UnifiedDiff => include_str!("prompt_kits/unified_diff.md"),
        Format::CodeBlock => include_str!("prompt_kits/code_block.md"),
    };
    let tools = (format == Format::Json).then(|| {
        serde_json::from_str(include_str!("prompt_kits/json_tools.json"))
            .expect("the bundled tool schemas are valid JSON")
    });
    PromptKit {
        format: format.name(),
        instructions,
        tools,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_format_has_a_kit() {
        for format in Format::ALL {
            let kit = kit(format);
            assert!(kit.instructions.len() > 200, "{format} kit is too short");
        }
        assert!(kit(Format::Json).tools.is_some());
    }
}
