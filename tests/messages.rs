//! Snapshots of the resolve error messages, one per kind (and per variant
//! of a kind), so that every wording change is reviewed.

mod common;

use common::MemFiles;
use llm_edit_lsp::engine::Options;

/// The errors of a run, one per line: `kind edit=N lines=[..]: message`.
#[track_caller]
fn errors(files: &[(&str, &[u8])], payload: &str) -> String {
    let source = files
        .iter()
        .fold(MemFiles::new(), |s, (path, bytes)| s.with(path, *bytes));
    let outcome = source.run(payload, &Options::default());
    assert!(!outcome.errors.is_empty(), "the payload did not fail");
    outcome
        .errors
        .iter()
        .map(|e| {
            format!(
                "{} edit={:?} lines={:?}: {}",
                e.kind, e.edit, e.lines, e.message
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn sr(path: &str, search: &str, replace: &str) -> String {
    format!("{path}\n<<<<<<< SEARCH\n{search}=======\n{replace}>>>>>>> REPLACE\n\n")
}

const APP: &[u8] = b"def load(path):\n    with open(path) as f:\n        return f.read()\n\ndef other():\n    return None\n\ndef third():\n    return None\n";

#[test]
fn not_found_with_near_match() {
    insta::assert_snapshot!(errors(
        &[("app.py", APP)],
        &sr(
            "app.py",
            "def load(path):\n    with open(path) as fh:\n",
            "x\n"
        )
    ));
}

#[test]
fn not_found_without_near_match() {
    insta::assert_snapshot!(errors(
        &[("app.py", APP)],
        &sr("app.py", "completely unrelated text here\n", "x\n")
    ));
}

#[test]
fn ambiguous() {
    insta::assert_snapshot!(errors(
        &[("app.py", APP)],
        &sr("app.py", "    return None\n", "    return 0\n")
    ));
}

#[test]
fn ambiguous_substring() {
    let payload = r#"{"name": "edit_file", "arguments": {"path": "app.py", "old_string": "return None", "new_string": "return 0"}}"#;
    insta::assert_snapshot!(errors(&[("app.py", APP)], payload));
}

#[test]
fn overlap() {
    let payload = "*** Begin Patch\n*** Update File: app.py\n@@\n def load(path):\n-    with open(path) as f:\n+    with open(path) as g:\n@@\n-    with open(path) as f:\n-        return f.read()\n+    pass\n*** End Patch\n";
    insta::assert_snapshot!(errors(&[("app.py", APP)], payload));
}

#[test]
fn no_op() {
    insta::assert_snapshot!(errors(
        &[("app.py", APP)],
        &sr("app.py", "def other():\n", "def other():\n")
    ));
}

#[test]
fn file_not_found() {
    insta::assert_snapshot!(errors(&[], &sr("missing.py", "x = 1\n", "x = 2\n")));
}

#[test]
fn file_deleted_earlier() {
    let payload = "*** Begin Patch\n*** Delete File: app.py\n*** End Patch\n\napp.py\n<<<<<<< SEARCH\ndef other():\n=======\ndef another():\n>>>>>>> REPLACE\n";
    insta::assert_snapshot!(errors(&[("app.py", APP)], payload));
}

#[test]
fn file_exists() {
    insta::assert_snapshot!(errors(&[("app.py", APP)], &sr("app.py", "", "new\n")));
}

#[test]
fn rename_onto_existing_file() {
    let payload = "*** Begin Patch\n*** Update File: app.py\n*** Move to: b.py\n@@\n-def other():\n+def another():\n*** End Patch\n";
    insta::assert_snapshot!(errors(&[("app.py", APP), ("b.py", b"b\n")], payload));
}

#[test]
fn binary_file() {
    insta::assert_snapshot!(errors(
        &[("blob.bin", b"PK\x03\x04\x00\x00binary")],
        &sr("blob.bin", "PK\n", "x\n")
    ));
}

#[test]
fn invalid_utf8_file() {
    insta::assert_snapshot!(errors(
        &[("latin1.txt", b"caf\xe9\n")],
        &sr("latin1.txt", "caf\n", "x\n")
    ));
}

#[test]
fn outside_root() {
    insta::assert_snapshot!(errors(&[], &sr("../etc/passwd", "root\n", "x\n")));
}

#[test]
fn rename_outside_root() {
    let payload = "*** Begin Patch\n*** Update File: app.py\n*** Move to: ../elsewhere.py\n@@\n-def other():\n+def another():\n*** End Patch\n";
    insta::assert_snapshot!(errors(&[("app.py", APP)], payload));
}

#[test]
fn insert_past_end() {
    let payload = r#"{"name": "str_replace_based_edit_tool", "arguments": {"command": "insert", "path": "app.py", "insert_line": 99, "new_str": "x"}}"#;
    insta::assert_snapshot!(errors(&[("app.py", APP)], payload));
}

#[test]
fn context_header_not_found() {
    let payload =
        "*** Begin Patch\n*** Update File: app.py\n@@ def nowhere():\n+    pass\n*** End Patch\n";
    insta::assert_snapshot!(errors(&[("app.py", APP)], payload));
}

#[test]
fn modify_file_anchors() {
    let payload = r#"{"name": "modify_file", "arguments": {"path": "app.py", "changes": [
        {"start": ["def nowhere():"], "content": ["x"]},
        {"start": ["def other():"], "end": ["    return None"], "content": ["x"]},
        {"start": ["def load(path):"], "end": ["def missing():"], "content": ["x"]}
    ]}}"#;
    insta::assert_snapshot!(errors(&[("app.py", APP)], payload));
}

#[test]
fn modify_file_ambiguous_end() {
    let payload = r#"{"name": "modify_file", "arguments": {"path": "app.py", "changes": [
        {"start": ["def load(path):"], "end": ["    return None"], "content": ["x"]}
    ]}}"#;
    insta::assert_snapshot!(errors(&[("app.py", APP)], payload));
}

#[test]
fn no_edit_in_payload() {
    insta::assert_snapshot!(errors(&[], "Sure! Here is what I would change: nothing."));
}

// "One reading or none": every refusal names the readings it could not
// choose between and what to change.

#[test]
fn ambiguous_one_search_line_indented_off() {
    // One line shows a shift: a slip in it, or the whole payload written
    // one level deeper; the new line's indentation depends on which.
    // (A file with no grammar: syntax cannot rule either reading out.)
    let file: &[u8] = b"steps:\n    fetch\n    build\n";
    insta::assert_snapshot!(errors(
        &[("notes.txt", file)],
        &sr(
            "notes.txt",
            "        fetch\n",
            "        fetch\n        check\n"
        )
    ));
}

#[test]
fn ambiguous_dropped_blank_line() {
    let file: &[u8] = b"try:\n    import a\nexcept ImportError:\n\n    class A:\n        pass\n";
    insta::assert_snapshot!(errors(
        &[("a.py", file)],
        &sr(
            "a.py",
            "except ImportError:\n    class A:\n",
            "except ImportError:\n    a = None\n    class A:\n"
        )
    ));
}

#[test]
fn ambiguous_added_blank_line() {
    let file: &[u8] = b"def f():\n    a = 1\n    b = 2\n";
    insta::assert_snapshot!(errors(
        &[("a.py", file)],
        &sr(
            "a.py",
            "    a = 1\n\n    b = 2\n",
            "    a = 1\n\n    b = 3\n"
        )
    ));
}

#[test]
fn ambiguous_mixed_shifts() {
    let file: &[u8] = b"    a = 1\n    b = 2\n    c = 3\n    d = 4\n";
    insta::assert_snapshot!(errors(
        &[("a.py", file)],
        &sr(
            "a.py",
            "        a = 1\n            b = 2\n    c = 3\n    d = 4\n",
            "        a = 1\n            b = 2\n        x = 0\n    c = 3\n    d = 4\n"
        )
    ));
}

#[test]
fn ambiguous_payload_unit() {
    let file: &[u8] = b"class A:\n    pass\n\n\ndef f():\n    return 1\n";
    insta::assert_snapshot!(errors(
        &[("a.py", file)],
        &sr("a.py", "def f():\n", "def f():\n\tif x:\n\t\treturn 2\n")
    ));
}

#[test]
fn ambiguous_repeated_lines() {
    let file: &[u8] = b"a {\n}  \nb {\n}\n";
    insta::assert_snapshot!(errors(
        &[("a.txt", file)],
        &sr("a.txt", "a {\n}\nb {\n}\n", "a {\n}\n")
    ));
}

#[test]
fn ambiguous_fragment_or_cut_line() {
    let file: &[u8] = b"// Copyright 2013-2022 The Cobra Authors\npackage a\n";
    let payload = r#"{"name": "edit_file", "arguments": {"path": "a.go", "old_string": "// Copyright 2013-2022 The", "new_string": "// Copyright 2013-2023 The Cobra Authors"}}"#;
    insta::assert_snapshot!(errors(&[("a.go", file)], payload));
}

#[test]
fn ambiguous_cut_line_as_it_will_be() {
    let file: &[u8] =
        b"import pytest\nfrom flask import g, session\nfrom flaskr.db import get_db\n";
    insta::assert_snapshot!(errors(
        &[("t.py", file)],
        &sr(
            "t.py",
            "import pytest\nfrom flask import g\n",
            "import pytest\nfrom flask import g\nfrom flask import session\n"
        )
    ));
}

#[test]
fn not_found_loose_match_breaks_syntax() {
    let file: &[u8] = b"fn f() {\n    let a = 1;\n    g(a);\n}\n";
    insta::assert_snapshot!(errors(
        &[("a.rs", file)],
        &sr("a.rs", "let a = 1;\ng(a);\n", "let a = 1;\ng(a\n")
    ));
}

#[test]
fn hunk_before_the_previous_one() {
    let file: &[u8] = b"one\ntwo\nthree\nfour\n";
    let payload =
        "*** Begin Patch\n*** Update File: a.txt\n@@\n-four\n+4\n@@\n-one\n+1\n*** End Patch\n";
    insta::assert_snapshot!(errors(&[("a.txt", file)], payload));
}

#[test]
fn undo_edit_with_nothing_to_undo() {
    let file: &[u8] = b"a = 1\n";
    let payload = r#"{"name": "str_replace_based_edit_tool", "input": {"command": "undo_edit", "path": "a.py"}}"#;
    insta::assert_snapshot!(errors(&[("a.py", file)], payload));
}

#[test]
fn no_op_with_both_strings_empty() {
    let file: &[u8] = b"a = 1\n";
    let payload = r#"{"name": "edit_file", "arguments": {"path": "a.py", "old_string": "", "new_string": ""}}"#;
    insta::assert_snapshot!(errors(&[("a.py", file)], payload));
}

#[test]
fn ambiguous_conversion_inside_a_string_literal() {
    let file: &[u8] = b"package a\n\nfunc f() {\n\tg(1)\n\th(2)\n}\n";
    insta::assert_snapshot!(errors(
        &[("a.go", file)],
        &sr(
            "a.go",
            "func f() {\n    g(1)\n    h(2)\n}\n",
            "func f() {\n    s := `\n    text\n`\n    g(1)\n    h(2)\n}\n"
        )
    ));
}

#[test]
fn ambiguous_hint_near_an_exact_place_and_at_a_loose_one() {
    let file = format!(
        "a = 1\n\nif x: \n    pass\n\n\nif x:\n    pass\n{}\nif x:\n    pass\n",
        "p\n".repeat(121)
    );
    let payload = "--- a/a.py\n+++ b/a.py\n@@ -2,2 +2,3 @@\n \n+# check x\n if x:\n";
    insta::assert_snapshot!(errors(&[("a.py", file.as_bytes())], payload));
}

#[test]
fn ambiguous_hint_against_a_neighbouring_hunk() {
    let file = format!("doc = 1\n{}doc = 1\nend = 0\nreturn 1\n", "p\n".repeat(150));
    let payload = "--- a/a.py\n+++ b/a.py\n@@ -154,1 +154,2 @@\n doc = 1\n+more = 1\n@@ -153,2 +154,2 @@\n end = 0\n-return 1\n+return 2\n";
    insta::assert_snapshot!(errors(&[("a.py", file.as_bytes())], payload));
}

#[test]
fn ambiguous_hint_against_a_neighbouring_block() {
    let file = format!("doc = 1\n{}doc = 1\nend = 0\nreturn 1\n", "p\n".repeat(150));
    let payload = "<apply_diff>\n<path>a.py</path>\n<diff>\n<<<<<<< SEARCH\n:start_line:154\n-------\ndoc = 1\n=======\ndoc = 2\n>>>>>>> REPLACE\n\n<<<<<<< SEARCH\n:start_line:154\n-------\nreturn 1\n=======\nreturn 2\n>>>>>>> REPLACE\n</diff>\n</apply_diff>\n";
    insta::assert_snapshot!(errors(&[("a.py", file.as_bytes())], payload));
}

#[test]
fn ambiguous_hint_exactly_at_one_of_several_places_against_a_neighbour() {
    let body = "\tif a {\n\t\tb()\n\t}\n".repeat(6);
    let file = format!("func f() {{\n\tstart()\n{body}}}\n");
    let payload = "<apply_diff>\n<path>a.go</path>\n<diff>\n<<<<<<< SEARCH\n:start_line:42\n-------\n\tstart()\n=======\n\tbegin()\n>>>>>>> REPLACE\n\n<<<<<<< SEARCH\n:start_line:5\n-------\n\t}\n=======\n\t}\n\tc()\n>>>>>>> REPLACE\n</diff>\n</apply_diff>\n";
    insta::assert_snapshot!(errors(&[("a.go", file.as_bytes())], payload));
}

#[test]
fn elision_open_count_and_piece_not_found() {
    let file: &[u8] = b"def f():\n    a = 1\n    b = 2\n    return a\n";
    let open = sr(
        "a.py",
        "def f():\n    # ...\n",
        "def f():\n    z = 0\n    # ...\n",
    );
    let count = sr(
        "a.py",
        "def f():\n    # ...\n    return a\n",
        "def f():\n    # ...\n    x = 1\n    # ...\n    return a\n",
    );
    let piece = sr(
        "a.py",
        "def f():\n    # ...\n    return b\n",
        "def f():\n    # ...\n    return c\n",
    );
    let all = format!("{open}{count}{piece}");
    let options = Options {
        partial: true,
        ..Options::default()
    };
    let source = MemFiles::new().with("a.py", file);
    let outcome = source.run(&all, &options);
    let text = outcome
        .errors
        .iter()
        .map(|e| {
            format!(
                "{} edit={:?} lines={:?}: {}",
                e.kind, e.edit, e.lines, e.message
            )
        })
        .collect::<Vec<_>>()
        .join("\n");
    insta::assert_snapshot!(text);
}

/// A chat code block naming `path`.
fn chat(path: &str, body: &str) -> String {
    format!("Here is the change.\n\n```python {path}\n{body}```\n")
}

const SHOP: &[u8] = b"import os\n\n\n# Carts.\nclass Cart:\n    def add(self, item):\n        self.items.append(item)\n\n    def total(self):\n        return 0\n\n\nclass Order:\n    def total(self):\n        return 1\n\n    def items(self):\n        return []\n\n\ndef main():\n    pass\n";

#[test]
fn code_block_unit_fits_two_places() {
    insta::assert_snapshot!(errors(
        &[("shop.py", SHOP)],
        &chat("shop.py", "    def total(self):\n        return 2\n")
    ));
}

#[test]
fn code_block_new_unit_or_rewrite() {
    insta::assert_snapshot!(errors(
        &[("shop.py", SHOP)],
        &chat(
            "shop.py",
            "def start():\n    run()\n\n\ndef main():\n    start()\n"
        )
    ));
}

#[test]
fn code_block_leaves_out_a_definition() {
    insta::assert_snapshot!(errors(
        &[("shop.py", SHOP)],
        &chat(
            "shop.py",
            "class Order:\n    def total(self):\n        return 2\n\n    def count(self):\n        return 0\n"
        )
    ));
}

#[test]
fn code_block_comment_above_not_shown() {
    insta::assert_snapshot!(errors(
        &[("shop.py", SHOP)],
        &chat("shop.py", "class Cart:\n    def add(self, item):\n        self.items.insert(0, item)\n\n    def total(self):\n        return 0\n")
    ));
}

#[test]
fn code_block_whitespace_copies() {
    insta::assert_snapshot!(errors(
        &[(
            "app.py",
            b"import os\n\nx = 1 \ny = 2\n\n\ndef f():\n    return 1\n" as &[u8]
        )],
        &chat("app.py", "# ...\nx = 1\nx = 1\ny = 2\n# ...\n")
    ));
}
