//! Code lenses on a response document: one per edit block, from the same
//! analysis as its diagnostics.

use serde_json::{json, Value};

use crate::support::server;

const A_RS: &str = "fn one() {}\nfn two() {}\n// x\nlet y = 1;\n// x\nlet y = 1;\nfn three() {}\n";

const RESPONSE: &str = "\
src/a.rs
```rust
<<<<<<< SEARCH
fn two() {}
=======
fn two() -> u8 { 2 }
>>>>>>> REPLACE
```

src/a.rs
```rust
<<<<<<< SEARCH
let y = 1;
=======
let y = 2;
>>>>>>> REPLACE
```

src/a.rs
```rust
<<<<<<< SEARCH
fn four() {}
=======
fn four() -> u8 { 4 }
>>>>>>> REPLACE
```

src/new.rs
```rust
<<<<<<< SEARCH
=======
fn new() {}
>>>>>>> REPLACE
```
";

/// The code lenses of a document (`null` when it has none).
async fn code_lenses(client: &crate::support::Client, uri: &str) -> Value {
    client
        .request(
            "textDocument/codeLens",
            json!({"textDocument": {"uri": uri}}),
        )
        .await
        .unwrap()
}

#[tokio::test]
async fn each_block_gets_a_lens_saying_where_it_lands() {
    let mut client = server().file("src/a.rs", A_RS).start().await;
    assert_eq!(
        client.init_result["capabilities"]["codeLensProvider"],
        json!({"resolveProvider": false})
    );
    let uri = client.uri("response.md");
    client.open_uri(&uri, RESPONSE).await;
    let diagnostics = client.diagnostics(&uri).await;
    assert_eq!(diagnostics.len(), 2, "{diagnostics:?}");
    let lenses = code_lenses(&client, &uri).await;
    let seen: Vec<(Value, Value)> = lenses
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            (
                l["range"]["start"]["line"].clone(),
                l["command"]["title"].clone(),
            )
        })
        .collect();
    assert_eq!(
        seen,
        vec![
            (json!(2), json!("applies to src/a.rs:2")),
            (json!(11), json!("ambiguous: lines 4, 6")),
            (json!(20), json!("not found")),
            (json!(29), json!("creates src/new.rs")),
        ]
    );
}

#[tokio::test]
async fn a_document_without_edits_has_no_lenses() {
    let client = server().file("src/a.rs", A_RS).start().await;
    let uri = client.open("notes.md", "just prose\n").await;
    let lenses = client
        .request(
            "textDocument/codeLens",
            json!({"textDocument": {"uri": uri}}),
        )
        .await
        .unwrap();
    assert_eq!(lenses, Value::Null);
}

#[tokio::test]
async fn chat_code_blocks_get_lenses_and_diagnostics() {
    let file = "def f():\n    a = 1\n    return a\n\n\ndef g():\n    return 2\n";
    let mut client = server().file("app.py", file).start().await;
    let response = "\
The new `g`:

```python app.py
def g():
    return 3
```

And this, which reads two ways:

```python app.py
def f():
    # ... existing code ...
    b = 2
    return a
```
";
    let uri = client.uri("response.md");
    client.open_uri(&uri, response).await;
    let diagnostics = client.diagnostics(&uri).await;
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    let message = diagnostics[0]["message"].as_str().unwrap_or_default();
    assert!(message.contains("`b = 2`"), "{message}");
    let lenses = code_lenses(&client, &uri).await;
    let titles: Vec<Value> = lenses
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["command"]["title"].clone())
        .collect();
    assert_eq!(titles.len(), 2, "{titles:?}");
    assert!(
        titles[0].as_str().unwrap().starts_with("applies to app.py"),
        "{titles:?}"
    );
}
