//! The server in a hostile workspace (`docs/security.md`): a root given
//! through a symlink or with `..`, and targets that are FIFOs. The
//! filesystem half of the suite is `tests/hostile_fs/`.

use std::path::Path;

use serde_json::json;

use crate::support::server;

const TEXT: &str = "a = 1\nb = 2\n";

fn search_replace(path: &str, search: &str, replace: &str) -> String {
    format!("{path}\n```\n<<<<<<< SEARCH\n{search}\n=======\n{replace}\n>>>>>>> REPLACE\n```\n")
}

/// A root given another way plans against the open buffer of a file
/// opened by its real path, not against the disk.
#[tokio::test]
async fn a_root_given_through_a_symlink_or_dotdot_sees_the_open_buffers() {
    fn through_symlink(root: &Path) -> String {
        let link = root.join("here");
        std::os::unix::fs::symlink(".", &link).unwrap();
        format!("file://{}", link.display())
    }
    fn through_dotdot(root: &Path) -> String {
        std::fs::create_dir(root.join("sub")).unwrap();
        format!("file://{}/sub/..", root.display())
    }
    for alias in [through_symlink as fn(&Path) -> String, through_dotdot] {
        let client = server().file("a.py", TEXT).root_alias(alias).start().await;
        client.open("a.py", "a = 1\nb = UNSAVED\n").await;
        let payload = search_replace("a.py", "b = UNSAVED", "b = 3");
        let result = client
            .command("llm-edit.preview", json!({"payload": payload}))
            .await
            .unwrap();
        assert_eq!(result["errors"], json!([]), "{result}");
        assert_eq!(result["files"][0]["path"], "a.py", "{result}");
    }
}

/// A FIFO target is refused before it is read: the request answers. The
/// server runs on a runtime of its own thread, so that a server blocked on
/// the FIFO fails the test instead of hanging it.
#[test]
fn a_fifo_target_is_refused_and_the_preview_answers() {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Runtime::new().unwrap();
        let _ = tx.send(runtime.block_on(preview_of_a_fifo()));
        runtime.shutdown_background();
    });
    let message = rx
        .recv_timeout(std::time::Duration::from_secs(30))
        .expect("the preview did not answer (blocked on the FIFO)");
    assert!(message.contains("is a FIFO"), "{message}");
}

async fn preview_of_a_fifo() -> String {
    let client = server().start().await;
    let fifo = client
        .root
        .join("a.py")
        .into_os_string()
        .into_encoded_bytes();
    let fifo = std::ffi::CString::new(fifo).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o644) }, 0);
    let payload = search_replace("a.py", "b = 2", "b = 3");
    let result = client
        .command("llm-edit.preview", json!({"payload": payload}))
        .await
        .unwrap();
    result["errors"][0]["message"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}
