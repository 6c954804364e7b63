//! Server settings: `initializationOptions`, `workspace/didChangeConfiguration`
//! and per-command `options`, all in the same JSON shape, mapped onto
//! [`engine::Options`](crate::engine::Options).
//!
//! ```json
//! {"llmEdit": {"matchMode": "tolerant", "fuzzyThreshold": 0.85,
//!              "partial": false, "onConflict": "merge", "confirm": false,
//!              "deadline": 5}}
//! ```
//! The keys may also sit at the top level. Unknown keys are ignored; a key
//! with a wrong type is an error naming it.

use serde::Deserialize;
use serde_json::Value;

use crate::engine::{MatchMode, OnConflict, Options};

/// Every setting the server knows, as last configured.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Settings {
    /// Engine options (format stays `None`: detection).
    pub options: Options,
    /// Ask the client to confirm every applied edit (change annotations
    /// with `needsConfirmation`).
    pub confirm: bool,
}

/// The JSON shape; every key optional so updates merge over what is set.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct SettingsPatch {
    match_mode: Option<MatchModeName>,
    /// `Some(None)` is an explicit `null`: fuzzy matching off.
    #[serde(default, deserialize_with = "explicit_null")]
    fuzzy_threshold: Option<Option<f64>>,
    partial: Option<bool>,
    on_conflict: Option<OnConflictName>,
    confirm: Option<bool>,
    /// The time budget of one run, in seconds.
    deadline: Option<f64>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "snake_case")]
enum MatchModeName {
    Tolerant,
    Exact,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "snake_case")]
enum OnConflictName {
    Merge,
    Refuse,
    Overwrite,
}

fn explicit_null<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Option<f64>>, D::Error> {
    Option::<f64>::deserialize(d).map(Some)
}

/// The keys this module reads.
const KEYS: [&str; 6] = [
    "matchMode",
    "fuzzyThreshold",
    "partial",
    "onConflict",
    "confirm",
    "deadline",
];

impl Settings {
    /// These settings with `value` merged over them. `value` is the
    /// `llmEdit` section, an object holding one, or the keys at the top
    /// level; `null` changes nothing.
    pub fn merged(&self, value: &Value) -> Result<Settings, String> {
        let section = value.get("llmEdit").unwrap_or(value);
        let Some(object) = section.as_object() else {
            return if section.is_null() {
                Ok(self.clone())
            } else {
                Err("settings must be an object".into())
            };
        };
        let known: serde_json::Map<String, Value> = object
            .iter()
            .filter(|(k, _)| KEYS.contains(&k.as_str()))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        let patch: SettingsPatch = serde_json::from_value(Value::Object(known))
            .map_err(|e| format!("bad setting: {e}"))?;
        let mut out = self.clone();
        if let Some(mode) = patch.match_mode {
            out.options.match_mode = match mode {
                MatchModeName::Tolerant => MatchMode::Tolerant,
                MatchModeName::Exact => MatchMode::Exact,
            };
        }
        if let Some(threshold) = patch.fuzzy_threshold {
            if let Some(t) = threshold.filter(|t| !(*t > 0.0 && *t < 1.0)) {
                return Err(format!(
                    "fuzzyThreshold must be between 0 and 1 (exclusive), got {t}"
                ));
            }
            out.options.fuzzy = threshold;
        }
        if let Some(partial) = patch.partial {
            out.options.partial = partial;
        }
        if let Some(policy) = patch.on_conflict {
            out.options.on_conflict = match policy {
                OnConflictName::Merge => OnConflict::Merge,
                OnConflictName::Refuse => OnConflict::Refuse,
                OnConflictName::Overwrite => OnConflict::Overwrite,
            };
        }
        if let Some(confirm) = patch.confirm {
            out.confirm = confirm;
        }
        if let Some(seconds) = patch.deadline {
            out.options.deadline = crate::engine::deadline_from_secs(seconds).ok_or_else(|| {
                format!(
                    "deadline must be a number of seconds above 0 (at most 3600), got {seconds}"
                )
            })?;
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn merges_section_or_top_level() {
        let base = Settings::default();
        let s = base
            .merged(
                &json!({"llmEdit": {"matchMode": "exact", "fuzzyThreshold": 0.8, "confirm": true}}),
            )
            .unwrap();
        assert_eq!(s.options.match_mode, MatchMode::Exact);
        assert_eq!(s.options.fuzzy, Some(0.8));
        assert!(s.confirm);
        let s = s
            .merged(&json!({"fuzzyThreshold": null, "onConflict": "refuse", "other": 1}))
            .unwrap();
        assert_eq!(s.options.fuzzy, None);
        assert_eq!(s.options.on_conflict, OnConflict::Refuse);
        assert_eq!(s.options.match_mode, MatchMode::Exact);
        assert_eq!(base.merged(&Value::Null).unwrap(), base);
    }

    #[test]
    fn names_bad_values() {
        let base = Settings::default();
        let err = base.merged(&json!({"matchMode": "loose"})).unwrap_err();
        assert!(err.contains("loose"), "{err}");
        assert!(base.merged(&json!({"fuzzyThreshold": 1.5})).is_err());
        assert!(base.merged(&json!({"partial": "yes"})).is_err());
        assert!(base.merged(&json!([1])).is_err());
    }
}
