#!/usr/bin/env python3
"""A minimal agent-link client (src/agent/link.rs), standard library only.

    python3 tests/editors/agent_link.py ROOT < request.json

Reads one LinkRequest (JSON) on stdin, sends it as one line to the
language server listening for ROOT (ROOT/.llm-edit/lsp.sock), prints its
one-line answer, and exits 0; exits 3 when no server listens (the agent
shell would take the disk route), 1 on any other failure.

Like the Rust client it reaches the socket from a no-follow handle of the
state folder (/proc/self/fd/N/lsp.sock) and only connects to a socket
owned by its own user.
"""

import json
import os
import socket
import stat
import sys


def main() -> int:
    root = sys.argv[1]
    request = json.load(sys.stdin)
    try:
        state = os.open(
            os.path.join(root, ".llm-edit"),
            os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC,
        )
        st = os.stat("lsp.sock", dir_fd=state, follow_symlinks=False)
    except OSError as e:
        print(f"no editor link: {e}", file=sys.stderr)
        return 3
    if not stat.S_ISSOCK(st.st_mode) or st.st_uid != os.geteuid():
        print("no editor link: not a socket of ours", file=sys.stderr)
        return 3
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(60)
    try:
        sock.connect(f"/proc/self/fd/{state}/lsp.sock")
    except OSError as e:
        print(f"no editor link: {e}", file=sys.stderr)
        return 3
    sock.sendall(json.dumps(request).encode() + b"\n")
    sock.shutdown(socket.SHUT_WR)
    answer = b""
    while not answer.endswith(b"\n"):
        chunk = sock.recv(1 << 16)
        if not chunk:
            break
        answer += chunk
    if not answer.endswith(b"\n"):
        print("no answer from the editor's language server", file=sys.stderr)
        return 1
    sys.stdout.write(answer.decode())
    return 0


if __name__ == "__main__":
    sys.exit(main())
