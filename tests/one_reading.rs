//! "One reading or none" (`FORMATS.md` §3): one regression test per cause
//! of a silent wrong edit found on payloads built from real commits. Each
//! checks the result an author meant (or a refusal), not the engine's plan.

mod common;

use common::MemFiles;
use llm_edit_lsp::engine::{Options, Outcome};

fn run(path: &str, file: &str, payload: &str, options: &Options) -> Outcome {
    MemFiles::new().with(path, file).run(payload, options)
}

/// The file after the payload, or the error kinds when it was refused.
fn result(path: &str, file: &str, payload: &str) -> Result<String, Vec<String>> {
    result_with(path, file, payload, &Options::default())
}

fn result_with(
    path: &str,
    file: &str,
    payload: &str,
    options: &Options,
) -> Result<String, Vec<String>> {
    let outcome = run(path, file, payload, options);
    if !outcome.errors.is_empty() {
        return Err(outcome.errors.iter().map(|e| e.kind.to_string()).collect());
    }
    Ok(outcome
        .files
        .iter()
        .find(|f| f.path.as_str() == path)
        .and_then(|f| f.after().map(str::to_owned))
        .unwrap_or_else(|| file.to_string()))
}

fn edit_file(path: &str, old: &str, new: &str) -> String {
    serde_json::json!({"name": "edit_file", "arguments": {"path": path, "old_string": old, "new_string": new}})
        .to_string()
}

fn sr(path: &str, search: &str, replace: &str) -> String {
    format!("{path}\n<<<<<<< SEARCH\n{search}=======\n{replace}>>>>>>> REPLACE\n")
}

#[test]
fn deleting_a_cut_line_through_a_string_tool_keeps_the_line_break_before_it() {
    let file = "import os\nfrom cStringIO import StringIO\nimport sys\n";
    let got = result("a.py", file, &edit_file("a.py", "from cStringIO i\n", ""));
    assert_eq!(got.unwrap(), "import os\nimport sys\n");
}

#[test]
fn a_new_string_ending_in_a_newline_keeps_it_after_a_tolerant_match() {
    let file = "def f():\n    a = 1\n    b = 2\n";
    // old_string dedented (trimmed pass), new_string adds a line after it.
    let got = result(
        "a.py",
        file,
        &edit_file("a.py", "a = 1\nb = 2", "a = 1\nb = 2\nc = 3\n"),
    );
    assert_eq!(
        got.unwrap(),
        "def f():\n    a = 1\n    b = 2\n    c = 3\n\n"
    );
}

#[test]
fn a_tab_file_gets_tabs_even_when_the_matched_lines_hold_none() {
    let file = "package a\n\nfunc f() {\n\treturn\n}\n";
    let payload = sr(
        "a.go",
        "func f() {\n",
        "func f() {\n    x := 1\n    if x > 0 {\n        g()\n    }\n",
    );
    assert_eq!(
        result("a.go", file, &payload).unwrap(),
        "package a\n\nfunc f() {\n\tx := 1\n\tif x > 0 {\n\t\tg()\n\t}\n\treturn\n}\n"
    );
}

#[test]
fn a_payload_tab_becomes_the_files_own_unit() {
    let file = "function f() {\n  if (a) {\n    go();\n  }\n}\n";
    let payload = sr(
        "a.js",
        "\tif (a) {\n\t\tgo();\n\t}\n",
        "\tif (a) {\n\t\tgo();\n\t\tstop();\n\t}\n",
    );
    assert_eq!(
        result("a.js", file, &payload).unwrap(),
        "function f() {\n  if (a) {\n    go();\n    stop();\n  }\n}\n"
    );
}

#[test]
fn new_tab_lines_in_a_space_file_are_written_with_spaces() {
    let file = "class A:\n    pass\n\n\ndef f():\n    if y:\n        return 1\n";
    // The matched lines show what a tab stands for (four columns here).
    let payload = sr(
        "a.py",
        "def f():\n\tif y:\n",
        "def f():\n\tif x:\n\t\treturn 2\n\tif y:\n",
    );
    assert_eq!(
        result("a.py", file, &payload).unwrap(),
        "class A:\n    pass\n\n\ndef f():\n    if x:\n        return 2\n    if y:\n        return 1\n"
    );
    // Nothing shows it: a tab could be 2, 4 or 8 columns.
    let payload = sr("a.py", "def f():\n", "def f():\n\tif x:\n\t\treturn 2\n");
    assert_eq!(result("a.py", file, &payload).unwrap_err(), ["ambiguous"]);
}

#[test]
fn repeated_context_paired_two_ways_is_refused() {
    // The file's two `}` differ in trailing whitespace; which one survives
    // depends on how the repeated lines are paired.
    let file = "a {\n}  \nb {\n}\n";
    let payload = sr("a.txt", "a {\n}\nb {\n}\n", "a {\n}\n");
    assert_eq!(result("a.txt", file, &payload).unwrap_err(), ["ambiguous"]);
}

#[test]
fn one_mis_indented_line_does_not_shift_the_inserted_lines() {
    let file = "def f():\n    a = 1\n    b = 2\n    c = 3\n";
    // `b = 2` slipped by 4; the inserted line is as the author wrote it.
    let payload = sr(
        "a.py",
        "    a = 1\n        b = 2\n    c = 3\n",
        "    a = 1\n        b = 2\n    c = 3\n    d = 4\n",
    );
    // The slipped context line is the file's line (`FORMATS.md` §3:
    // unchanged lines stay byte-identical).
    assert_eq!(
        result("a.py", file, &payload).unwrap(),
        "def f():\n    a = 1\n    b = 2\n    c = 3\n    d = 4\n"
    );
}

#[test]
fn a_context_line_written_as_it_will_be_is_refused_not_reverted() {
    // `import os` for the file's `import os, sys`: a copy cut short, or
    // the line as it will be (`sys` dropped)? Both are whole code.
    let file = "import os, sys\n\ndef f():\n    pass\n";
    let payload = sr(
        "a.py",
        "import os\n\ndef f():\n",
        "import os\n\ndef f(x):\n",
    );
    assert_eq!(result("a.py", file, &payload).unwrap_err(), ["ambiguous"]);
    // Only its indentation differing, it is a slip in the copy, the
    // reading `FORMATS.md` §3 gives unchanged lines; the after-edit form
    // would need the file's line in the search (it is the same payload).
    let file = "def t():\n    with raises(E):\n        run()\n        assert ok\n    done()\n";
    let payload = sr(
        "a.py",
        "    with raises(E):\n        run()\n    assert ok\n    done()\n",
        "    with raises(E):\n        run()\n\n    assert ok\n    done()\n",
    );
    assert_eq!(
        result("a.py", file, &payload).unwrap(),
        "def t():\n    with raises(E):\n        run()\n\n        assert ok\n    done()\n"
    );
}

#[test]
fn a_string_tool_dedented_old_string_is_widened_to_whole_lines() {
    let file = "def f():\n    x = compute(1,\n                2)\n    return x\n";
    let got = result(
        "a.py",
        file,
        &edit_file("a.py", "return x\n", "    return x + 1\n"),
    );
    assert_eq!(
        got.unwrap(),
        "def f():\n    x = compute(1,\n                2)\n    return x + 1\n"
    );
}

#[test]
fn a_string_tool_text_ending_inside_a_line_that_may_be_cut_is_refused() {
    let file = "// Copyright 2013-2022 The Cobra Authors\npackage a\n";
    let payload = edit_file(
        "a.go",
        "// Copyright 2013-2022 The",
        "// Copyright 2013-2023 The Cobra Authors",
    );
    assert_eq!(result("a.go", file, &payload).unwrap_err(), ["ambiguous"]);
}

#[test]
fn a_block_search_is_never_a_raw_substring_of_a_longer_line() {
    let file = "def f(xs):\n    return sum(xs)\n";
    let payload = sr("a.py", "    return\n", "    return None\n");
    assert_eq!(result("a.py", file, &payload).unwrap_err(), ["not_found"]);
}

#[test]
fn a_stale_hint_near_a_duplicate_picks_nothing() {
    let file = "def a():\n    return None\n# 1\n# 2\n# 3\n# 4\n# 5\ndef b():\n    return None\n";
    let payload = "<apply_diff><path>a.py</path><diff>\n<<<<<<< SEARCH\n:start_line:7\n-------\n    return None\n=======\n    return 0\n>>>>>>> REPLACE\n</diff></apply_diff>\n";
    assert_eq!(result("a.py", file, payload).unwrap_err(), ["ambiguous"]);
}

#[test]
fn apply_patch_hunks_never_take_the_first_match_by_default() {
    let file = "a:\n  x: 0\nb:\n  x: 0\n";
    let payload = "*** Begin Patch\n*** Update File: a.yml\n@@\n-  x: 0\n+  x: 1\n*** End Patch\n";
    assert_eq!(result("a.yml", file, payload).unwrap_err(), ["ambiguous"]);
    // The `@@` context line pins it.
    let payload =
        "*** Begin Patch\n*** Update File: a.yml\n@@ b:\n-  x: 0\n+  x: 1\n*** End Patch\n";
    assert_eq!(
        result("a.yml", file, payload).unwrap(),
        "a:\n  x: 0\nb:\n  x: 1\n"
    );
}

#[test]
fn fuzzy_never_writes_line_numbers_and_never_slides_a_window() {
    let fuzzy = Options {
        fuzzy: Some(0.8),
        ..Options::default()
    };
    let file = "fn main() {\n    let total = compute(items);\n    println!(\"{total}\");\n}\n";
    let numbered = sr(
        "a.rs",
        "2 |     let totl = compute(items);\n",
        "2 |     let total = compute(&items);\n",
    );
    let got = result_with("a.rs", file, &numbered, &fuzzy);
    if let Ok(text) = &got {
        assert!(!text.contains("2 |"), "line numbers written: {text}");
    }
    // A search line dropped: the window does not pair line by line.
    let dropped = sr(
        "a.rs",
        "fn main() {\n    println!(\"{total}\");\n}\n",
        "fn main() {\n    println!(\"total: {total}\");\n}\n",
    );
    let got = result_with("a.rs", file, &dropped, &fuzzy);
    assert!(got.is_err(), "{got:?}");
}

#[test]
fn undo_edit_undoes_the_previous_edit_of_the_file() {
    let file = "a = 1\nb = 2\n";
    let payload = r#"[
        {"name": "str_replace_based_edit_tool", "input": {"command": "str_replace", "path": "a.py", "old_str": "a = 1", "new_str": "a = 10"}},
        {"name": "str_replace_based_edit_tool", "input": {"command": "str_replace", "path": "a.py", "old_str": "b = 2", "new_str": "b = 20"}},
        {"name": "str_replace_based_edit_tool", "input": {"command": "undo_edit", "path": "a.py"}}
    ]"#;
    assert_eq!(result("a.py", file, payload).unwrap(), "a = 10\nb = 2\n");
    let lone = r#"{"name": "str_replace_based_edit_tool", "input": {"command": "undo_edit", "path": "a.py"}}"#;
    assert_eq!(result("a.py", file, lone).unwrap_err(), ["parse"]);
}

#[test]
fn empty_old_and_new_strings_are_no_op() {
    let payload = edit_file("a.py", "", "");
    assert_eq!(result("a.py", "x = 1\n", &payload).unwrap_err(), ["no_op"]);
}

#[test]
fn a_whitespace_prefix_on_every_line_is_removed_exactly_in_a_mixed_file() {
    let file = "var L = License{\n\tHeader: `\n    http://x\n`,\n}\n";
    let payload = sr(
        "a.go",
        "    \tHeader: `\n        http://x\n    `,\n",
        "    \tHeader: `\n        http://y\n    `,\n",
    );
    assert_eq!(
        result("a.go", file, &payload).unwrap(),
        "var L = License{\n\tHeader: `\n    http://y\n`,\n}\n"
    );
}

#[test]
fn spaces_inside_a_go_raw_string_are_not_converted_to_tabs() {
    let file = "package a\n\nvar s = `\n    keep\n`\n\nfunc f() {\n\tg()\n}\n";
    // A payload written with spaces for the tab-indented code, whose new
    // line lies inside the raw string.
    let payload = sr("a.go", "    keep\n`\n", "    keep\n    more\n`\n");
    let got = result("a.go", file, &payload);
    assert!(
        got.as_ref().is_ok_and(|t| t.contains("\n    more\n")) || got.is_err(),
        "{got:?}"
    );
}

#[test]
fn a_search_cut_of_its_blank_edges_has_the_near_copy_it_came_from_as_a_rival() {
    // The search was copied from `test_missing` with its name mistyped as
    // `test_session`'s: cut of its blank lines it matches `test_session`
    // exactly, but the whole search fits `test_missing` but for that name.
    let file = "def test_session():\n    app = make()\n    app.key = 1\n\n\n\
                def test_missing():\n    app = make()\n\n    check(app)\n";
    let payload = sr(
        "t.py",
        "\n\ndef test_session():\n    app = make()\n\n",
        "\n\ndef test_session():\n    app = make()\n    app.debug = True\n\n",
    );
    assert_eq!(
        result("t.py", file, &payload),
        Err(vec!["ambiguous".into()])
    );
    // With no near copy the cut search applies (`FORMATS.md` §3 retry).
    let lone = "def test_session():\n    app = make()\n    app.key = 1\n";
    assert_eq!(
        result("t.py", lone, &payload).unwrap(),
        "def test_session():\n    app = make()\n    app.debug = True\n    app.key = 1\n"
    );
}

#[test]
fn a_search_that_dropped_an_inner_blank_line_keeps_the_files_blank_line() {
    // `FORMATS.md` §3 "Blank lines": matched without blank lines, the
    // file's blank line kept between the lines it separates.
    let file = "\trootCmd.AddCommand(child)\n\n\trootCmd.Flags().IntP(\"first\")\n\tother()\n";
    let payload = sr(
        "a.go",
        "\trootCmd.AddCommand(child)\n\trootCmd.Flags().IntP(\"first\")\n\tother()\n",
        "\trootCmd.AddCommand(child)\n\trootCmd.Flags().IntP(\"first\", \"more\")\n\tother()\n",
    );
    assert_eq!(
        result("a.go", file, &payload).unwrap(),
        "\trootCmd.AddCommand(child)\n\n\trootCmd.Flags().IntP(\"first\", \"more\")\n\tother()\n"
    );
}

#[test]
fn a_dropped_blank_line_next_to_new_lines_is_refused() {
    // New lines between two kept lines the blank line separates: before
    // or after the blank line? Real edits do both.
    let file = "try:\n    import a\nexcept ImportError:\n\n    class A:\n        pass\n";
    let payload = sr(
        "a.py",
        "except ImportError:\n    class A:\n",
        "except ImportError:\n    a = None\n    class A:\n",
    );
    assert_eq!(
        result("a.py", file, &payload),
        Err(vec!["ambiguous".into()])
    );
}

#[test]
fn a_string_tool_match_ending_before_trailing_whitespace_keeps_it_on_its_line() {
    // The file's `return inner\t` has a trailing tab the model could not
    // see: the old text ends before it. It stays on `return inner`, never
    // moved to the end of the new text.
    let file = "def f():\n    return inner\t\nx = 1\n";
    let got = result(
        "a.py",
        file,
        &edit_file(
            "a.py",
            "    return inner",
            "    return inner\n\n\ndef g():\n    return 2",
        ),
    );
    assert_eq!(
        got.unwrap(),
        "def f():\n    return inner\t\n\n\ndef g():\n    return 2\nx = 1\n"
    );
}

#[test]
fn lines_that_fit_keep_new_lines_from_the_shift_of_lines_that_do_not() {
    // A Go raw string: the payload lost the two tabs of the code lines,
    // the string's own line (column 0) fits. A block shift would move the
    // new string line too; lines that fit say the block is in place.
    let file = "var l = License{\n\t\tMatches: []string{\"a\"},\n\t\tHeader: `Licensed under the terms.\nyou may not use this file.\n`,\n}\n";
    let payload = sr(
        "l.go",
        "Matches: []string{\"a\"},\nHeader: `Licensed under the terms.\nyou may not use this file.\n",
        "Matches: []string{\"a\"},\nHeader: `\nLicensed under the terms.\nyou may not use this file.\n",
    );
    assert_eq!(
        result("l.go", file, &payload),
        Err(vec!["ambiguous".into()])
    );
}

#[test]
fn an_edit_of_edge_blank_lines_is_not_cut_away_by_the_blank_edge_retry() {
    // The edit deletes one of two blank lines; the search also has two
    // blank lines after `frozenset(` the file does not. Cut of its blank
    // edges the edit would do nothing and report success.
    let file = "import a\n\n\nfuncs = frozenset(\n    [\"get\"]\n)\n";
    let got = result(
        "v.py",
        file,
        &edit_file(
            "v.py",
            "\n\nfuncs = frozenset(\n\n",
            "\nfuncs = frozenset(\n\n",
        ),
    );
    assert!(got.is_err(), "{got:?}");
}

#[test]
fn a_tolerant_match_meets_the_exact_match_of_the_search_cut_of_its_blank_edges() {
    // `assert parts == 4` + a blank line: the trimmed pass finds the
    // 4-space copy followed by a blank line, the search cut of its blank
    // line the 8-space copy exactly. A slip here or a blank line there?
    let file =
        "def t(r, app):\n    assert parts == 4\n\n    with app:\n        assert parts == 4\n";
    let got = result(
        "t.py",
        file,
        &edit_file(
            "t.py",
            "        assert parts == 4\n\n",
            "        assert parts == 4\n\n\ndef u():\n    pass\n\n",
        ),
    );
    assert_eq!(got, Err(vec!["ambiguous".into()]));
}

#[test]
fn a_changed_first_line_where_the_file_has_it_may_be_fixed_or_shifted() {
    // old_string one level too deep, new_string's (changed) first line at
    // the file's depth: the model fixed it there (written as is), or the
    // whole payload is a level deep and the change lands there by chance?
    let old = "        register(Tag, 0)\n";
    let new = "    register(Tag, index=0)\n";
    let file = "steps:\n    register(Tag, 0)\n    x = 1\n";
    let got = result("a.txt", file, &edit_file("a.txt", old, new));
    assert_eq!(got, Err(vec!["ambiguous".into()]));
    // In Python the shifted reading (`register` at column 0 before `x = 1`
    // at 4) does not parse: the line is written as the model fixed it.
    let file = "def f():\n    register(Tag, 0)\n    x = 1\n";
    let got = result("a.py", file, &edit_file("a.py", old, new));
    assert_eq!(
        got.unwrap(),
        "def f():\n    register(Tag, index=0)\n    x = 1\n"
    );
}

#[test]
fn a_hunk_of_only_blank_old_lines_is_not_placed_by_its_hint() {
    // The stale `@@ -4` points at a blank line, but so would any number:
    // blank lines anchor nothing.
    let file = "def a():\n    pass\n\ndef b():\n    pass\n\ndef c():\n    pass\n";
    let payload = "--- a/m.py\n+++ b/m.py\n@@ -6,1 +6,3 @@\n \n+x = 1\n+\n";
    assert_eq!(result("m.py", file, payload), Err(vec!["ambiguous".into()]));
}

#[test]
fn a_hunks_context_line_is_paired_as_the_hunk_wrote_it() {
    // The context line `\t}` is written one level off (the file has
    // `\t\t}`); the replacement adds other `\t}` lines. A diff of the two
    // sides pairs the context with an added copy and writes `\t}` where the
    // file keeps `\t\t}`; the hunk's own ` ` prefix says which line stays.
    let file = "func f() {\n\tif a {\n\t\tif b {\n\t\t\tx()\n\t\t}\n\t}\n}\n";
    let payload = "*** Begin Patch\n*** Update File: a.go\n@@\n \tif a {\n \t\tif b {\n-\t\t\tx()\n+\t\t\ty()\n+\t\t}\n+\t\tif c {\n+\t\t\tz()\n \t}\n \t}\n*** End Patch\n";
    let got = result("a.go", file, payload);
    assert_eq!(
        got.unwrap(),
        "func f() {\n\tif a {\n\t\tif b {\n\t\t\ty()\n\t\t}\n\t\tif c {\n\t\t\tz()\n\t\t}\n\t}\n}\n"
    );
}

#[test]
fn a_hint_near_one_exact_place_and_at_a_loose_one_is_refused() {
    // The hunk's lines match line 6 exactly, 4 lines from its number 2 (and
    // line 131, too far to matter); at line 2 they match once the file's
    // trailing whitespace is ignored.
    let file = format!(
        "a = 1\n\nif x: \n    pass\n\n\nif x:\n    pass\n{}\nif x:\n    pass\n",
        "p\n".repeat(121)
    );
    let payload = "--- a/a.py\n+++ b/a.py\n@@ -2,2 +2,3 @@\n \n+# check x\n if x:\n";
    let got = result("a.py", &file, payload);
    assert_eq!(got.unwrap_err(), ["ambiguous"]);
    // Without the loose match at the hint, the near place stands.
    let file = file.replacen("if x: \n", "if y:\n", 1);
    let got = result("a.py", &file, payload).unwrap();
    assert!(got.contains("\n\n# check x\nif x:\n    pass\np\n"), "{got}");
}

#[test]
fn a_hint_near_a_place_is_not_stale_when_the_next_hunk_sits_at_its_number() {
    // `doc = 1` is at lines 1 and 152; hunk 1's number, 154, picks line 152
    // as a stale hint would (2 lines off, no other copy within 100 lines).
    let file = format!("doc = 1\n{}doc = 1\nend = 0\nreturn 1\n", "p\n".repeat(150));
    let diff = |first: usize, second: usize| {
        format!("--- a/a.py\n+++ b/a.py\n@@ -{first},1 +{first},2 @@\n doc = 1\n+more = 1\n@@ -{second},2 +{},2 @@\n end = 0\n-return 1\n+return 2\n", second + 1)
    };
    // Hunk 2 is 2 lines off its number too: the numbers are stale by 2.
    let got = result("a.py", &file, &diff(154, 155));
    let want = format!(
        "doc = 1\n{}doc = 1\nmore = 1\nend = 0\nreturn 2\n",
        "p\n".repeat(150)
    );
    assert_eq!(got.unwrap(), want);
    // Hunk 2 sits exactly at its number: hunk 1's number is not stale, and
    // line 154 (where it points) may be the place meant.
    let got = result("a.py", &file, &diff(154, 153));
    assert_eq!(got.unwrap_err(), ["ambiguous"]);
}

#[test]
fn a_fuzzy_window_whose_edge_line_is_exactly_next_to_it_is_refused() {
    // The search leaves out the line between two of its lines; a fuzzy
    // window pairs its second line with the line left out, while the
    // search line itself is the next file line.
    let file = "def test_locate_app():\n    pytest.raises(NoAppException, locate_app, \"cliapp/app\")\n    pytest.raises(RuntimeError, locate_app, \"cliapp.app:notanapp\")\n    pytest.raises(ImportError, locate_app, \"cliapp.importerrorapp\")\n";
    let old = "    pytest.raises(NoAppException, locate_app, \"cliapp/app\")\n    pytest.raises(ImportError, locate_app, \"cliapp.importerrorapp\")\n";
    let new = old.replace("ImportError", "NoAppException");
    let payload = edit_file("a.py", old, &new);
    let options = Options {
        fuzzy: Some(0.85),
        ..Options::default()
    };
    let got = result_with("a.py", file, &payload, &options);
    assert!(got.is_err(), "{got:?}");
}

#[test]
fn a_roo_block_placed_near_its_number_is_refused_when_another_block_sits_at_its_own() {
    // `doc = 1` is at lines 1 and 152; block 1's number, 154, picks line
    // 152 as a stale number would. Block 2 is found once, at its number:
    // the numbers are not stale, and line 154 may be the place meant.
    let file = format!("doc = 1\n{}doc = 1\nend = 0\nreturn 1\n", "p\n".repeat(150));
    let payload = |second: usize| {
        format!(
            "<apply_diff>\n<path>a.py</path>\n<diff>\n<<<<<<< SEARCH\n:start_line:154\n-------\ndoc = 1\n=======\ndoc = 2\n>>>>>>> REPLACE\n\n<<<<<<< SEARCH\n:start_line:{second}\n-------\nreturn 1\n=======\nreturn 2\n>>>>>>> REPLACE\n</diff>\n</apply_diff>\n"
        )
    };
    let got = result("a.py", &file, &payload(154));
    assert_eq!(got.unwrap_err(), ["ambiguous"]);
    // Off by the same 2 lines as block 1's pick: the numbers are stale.
    let got = result("a.py", &file, &payload(156));
    let want = format!("doc = 1\n{}doc = 2\nend = 0\nreturn 2\n", "p\n".repeat(150));
    assert_eq!(got.unwrap(), want);
}

#[test]
fn an_exact_match_never_converts_spaces_to_tabs_inside_a_string_literal() {
    // A space-indented payload for a tab-indented Go file: its lines are
    // converted to tabs, but the line inside the raw string would change
    // the string's text.
    let file = "package main\n\nfunc a() {\n\tb()\n}\n\n// Name x\nfunc b() {}\n";
    let replace = "}\n\nfunc c() string {\n    return `a\n    b`\n}\n\n// Name x\n";
    let got = result("a.go", file, &sr("a.go", "}\n\n// Name x\n", replace));
    assert_eq!(got.unwrap_err(), ["ambiguous"]);
    let got = result(
        "a.go",
        file,
        &edit_file("a.go", "}\n\n// Name x\n", replace),
    );
    assert_eq!(got.unwrap_err(), ["ambiguous"]);
    // Outside a string, the same conversion is the file's style.
    let replace = "}\n\nfunc c() {\n    d()\n}\n\n// Name x\n";
    let got = result("a.go", file, &sr("a.go", "}\n\n// Name x\n", replace));
    assert_eq!(
        got.unwrap(),
        "package main\n\nfunc a() {\n\tb()\n}\n\nfunc c() {\n\td()\n}\n\n// Name x\nfunc b() {}\n"
    );
}

#[test]
fn a_hint_exactly_at_one_of_several_places_yields_to_neighbours_that_are_off() {
    // `\t}` is on many lines; block 2's number is exactly at one of them.
    // Block 1, found once, sits 40 lines from its number: the numbers are
    // stale, and block 2's exact hit may be one of several by chance.
    let body = "\tif a {\n\t\tb()\n\t}\n".repeat(6);
    let file = format!("func f() {{\n\tstart()\n{body}}}\n");
    let payload = |first: usize| {
        format!(
            "<apply_diff>\n<path>a.go</path>\n<diff>\n<<<<<<< SEARCH\n:start_line:{first}\n-------\n\tstart()\n=======\n\tbegin()\n>>>>>>> REPLACE\n\n<<<<<<< SEARCH\n:start_line:5\n-------\n\t}}\n=======\n\t}}\n\tc()\n>>>>>>> REPLACE\n</diff>\n</apply_diff>\n"
        )
    };
    let got = result("a.go", &file, &payload(42));
    assert_eq!(got.unwrap_err(), ["ambiguous"]);
    // Block 1 exactly at its number too: the numbers hold, the hint picks.
    let got = result("a.go", &file, &payload(2)).unwrap();
    assert!(
        got.starts_with("func f() {\n\tbegin()\n\tif a {\n\t\tb()\n\t}\n\tc()\n\tif a {\n"),
        "{got}"
    );
}

#[test]
fn a_hunk_matched_loosely_with_an_added_blank_edge_meets_its_exact_cut_elsewhere() {
    // The hunk's last context line is a blank line the file does not have
    // after `        assert x`; with indentation ignored it matches
    // `    assert x` + blank at lines 2-3, and cut of the blank line it
    // matches exactly at line 5: two places.
    let file = "def t():\n    assert x\n\n    with c():\n        assert x\n";
    let payload =
        "--- a/a.py\n+++ b/a.py\n@@ -5,2 +5,3 @@\n         assert x\n+        assert y\n \n";
    let got = result("a.py", file, payload);
    assert_eq!(got.unwrap_err(), ["ambiguous"]);
}

#[test]
fn a_long_fuzzy_search_is_picked_by_its_hint_whatever_lies_farther_away() {
    // A 150-line block (longer than the 100 lines around a hint), a copy
    // of it 2,500 lines away with a few chars changed, and a search with
    // one typo. Without a hint the copy is a rival within the margin:
    // ambiguous. With a hint at the block's first line the hint picks it,
    // as for a short search (`docs/matching.md`, "Line hints"): the
    // windows near the hint are read on past the 100 lines while their
    // run of overlapping windows goes on, not the whole file.
    let block: Vec<String> = (0..150)
        .map(|i| {
            format!(
                "    value_{i} = compute(item_{}, {})",
                i * 7 % 13,
                i * 31 % 97
            )
        })
        .collect();
    let mut copy = block.clone();
    for line in copy.iter_mut().step_by(30) {
        *line = line.replace("compute", "compote");
    }
    let filler = |from: usize, k: usize| -> String {
        (from..from + k)
            .map(|i| format!("pass_{i} = {i}\n"))
            .collect()
    };
    let file = format!(
        "{}{}\n{}{}\n{}",
        filler(0, 300),
        block.join("\n"),
        filler(300, 2_500),
        copy.join("\n"),
        filler(2_800, 100)
    );
    let mut search = block.clone();
    search[5] = search[5].replace("value_5", "valeu_5");
    let mut replace = block.clone();
    replace[149] = "    value_149 = 0".to_string();
    let payload = |hint: Option<usize>| {
        let hint = hint.map_or(String::new(), |h| format!(":start_line:{h}\n-------\n"));
        format!(
            "<apply_diff>\n<path>a.py</path>\n<diff>\n<<<<<<< SEARCH\n{hint}{}\n=======\n{}\n>>>>>>> REPLACE\n</diff>\n</apply_diff>\n",
            search.join("\n"),
            replace.join("\n")
        )
    };
    let options = Options {
        fuzzy: Some(0.9),
        ..Options::default()
    };
    let got = result_with("a.py", &file, &payload(None), &options);
    assert_eq!(got.unwrap_err(), ["ambiguous"]);
    let got = result_with("a.py", &file, &payload(Some(301)), &options);
    let want = file.replacen(&block.join("\n"), &replace.join("\n"), 1);
    assert_eq!(got.unwrap(), want);
}

/// A loose match's last syntax check takes an edit that only swaps
/// numbers of the lines it matched without a parse (it cannot break
/// them), and still refuses one that swaps a word for a keyword.
#[test]
fn a_fuzzy_match_that_swaps_a_number_is_applied_and_one_that_breaks_the_syntax_is_not() {
    let file =
        "def f(a):\n    total = compute(a, 10)\n    return total\n\n\ndef g(b):\n    return b\n";
    let fuzzy = Options {
        fuzzy: Some(0.85),
        ..Options::default()
    };
    // A typo in the search: only the fuzzy pass finds it.
    let search = "    totl = compute(a, 10)\n    return total\n";
    let swapped = sr(
        "a.py",
        search,
        "    total = compute(a, 20)\n    return total\n",
    );
    assert_eq!(
        result_with("a.py", file, &swapped, &fuzzy),
        Ok(file.replace("(a, 10)", "(a, 20)"))
    );
    let broken = sr(
        "a.py",
        search,
        "    total = compute(a, if)\n    return total\n",
    );
    assert_eq!(
        result_with("a.py", file, &broken, &fuzzy),
        Err(vec!["not_found".to_string()])
    );
}
