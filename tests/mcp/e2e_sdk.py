"""End-to-end tests of `llm-edit-lsp mcp` driven by the official Python MCP SDK.

Run by scripts/e2e-mcp: python e2e_sdk.py SERVER_BINARY [--transcript].
Each check prints PASS/FAIL; the last line is `N passed, M failed` and the
exit status is non-zero when anything failed. `--transcript` prints the
agent session of docs/agents.md instead (what the agent sees, step by step).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import traceback
from pathlib import Path

import anyio
from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError

SERVER = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else "target/release/llm-edit-lsp"
DOCS = Path(__file__).resolve().parents[2] / "docs" / "agents.md"

passed = 0
failed = 0


def check(name: str, condition: bool, detail: str = "") -> None:
    global passed, failed
    if condition:
        passed += 1
        print(f"PASS {name}")
    else:
        failed += 1
        print(f"FAIL {name}" + (f": {detail}" if detail else ""))


def text_of(result: types.CallToolResult) -> str:
    return "".join(c.text for c in result.content if isinstance(c, types.TextContent))


def connect(args: list[str], cwd: str, **session_args):
    """An SDK client session over the server's stdio."""
    params = StdioServerParameters(command=SERVER, args=["mcp", *args], cwd=cwd)

    class Connection:
        async def __aenter__(self):
            self._stdio = stdio_client(params, errlog=sys.stderr)
            read, write = await self._stdio.__aenter__()
            self._session = ClientSession(read, write, **session_args)
            session = await self._session.__aenter__()
            self.init = await session.initialize()
            return session

        async def __aexit__(self, *exc):
            await self._session.__aexit__(*exc)
            await self._stdio.__aexit__(*exc)

    return Connection()


async def protocol_and_tools(root: Path) -> None:
    (root / "app.py").write_text("def greet(name):\n    return 'Hello ' + name\n\n\ndef answer():\n    return 41\n")
    outside = root.parent / (root.name + "-outside")
    outside.mkdir()
    (outside / "secret.txt").write_text("secret\n")
    os.symlink(outside, root / "escape")
    conn = connect(["--root", str(root)], cwd=str(root.parent))
    async with conn as s:
        init = conn.init
        check("initialize: server name", init.server_info.name == "llm-edit-lsp", repr(init.server_info))
        check(
            "initialize: tools and prompts capabilities",
            init.capabilities.tools is not None and init.capabilities.prompts is not None,
        )

        tools = {t.name: t for t in (await s.list_tools()).tools}
        check(
            "list tools",
            list(tools) == ["read_file", "edit", "multi_edit", "write_file", "apply_patch", "apply_response", "list_roots"],
            repr(list(tools)),
        )
        check(
            "read_file is annotated read-only",
            tools["read_file"].annotations.read_only_hint is True
            and tools["read_file"].annotations.destructive_hint is False,
        )
        check(
            "edit tools are annotated destructive",
            all(
                tools[n].annotations.read_only_hint is False and tools[n].annotations.destructive_hint is True
                for n in ["edit", "multi_edit", "write_file", "apply_patch", "apply_response"]
            ),
        )
        check(
            "edit's schema",
            tools["edit"].input_schema["required"] == ["path", "old_string", "new_string"]
            and tools["edit"].input_schema["properties"]["replace_all"]["type"] == "boolean",
            json.dumps(tools["edit"].input_schema),
        )
        check(
            "apply_response lists the formats",
            "search_replace" in tools["apply_response"].input_schema["properties"]["format"]["enum"],
        )

        prompts = [p.name for p in (await s.list_prompts()).prompts]
        check("list prompts: one per format", "search_replace" in prompts and "apply_patch" in prompts, repr(prompts))
        kit = await s.get_prompt("search_replace")
        check("get a prompt kit", "SEARCH" in kit.messages[0].content.text)

        read = await s.call_tool("read_file", {"path": "app.py"})
        check("read_file: numbered lines", text_of(read).startswith("     1\tdef greet(name):\n"), text_of(read))
        check("read_file: structured", read.structured_content["total_lines"] == 6, repr(read.structured_content))

        edit = await s.call_tool(
            "edit", {"path": "app.py", "old_string": "return 'Hello ' + name", "new_string": "return f'Hello {name}'"}
        )
        check("edit: applied", not edit.is_error and edit.structured_content["applied"] is True, text_of(edit))
        check("edit: route disk", edit.structured_content["route"] == "disk")
        check(
            "edit: the file after",
            (root / "app.py").read_text() == "def greet(name):\n    return f'Hello {name}'\n\n\ndef answer():\n    return 41\n",
        )
        check("edit: the diff in the text", "+    return f'Hello {name}'" in text_of(edit), text_of(edit))

        refused = await s.call_tool("edit", {"path": "app.py", "old_string": "return 40", "new_string": "return 42"})
        error = (refused.structured_content.get("errors") or [{}])[0]
        check("refusal: is an error", refused.is_error is True)
        check("refusal: not_found", error.get("kind") == "not_found", repr(error))
        check(
            "refusal: the engine's message",
            "old_string not found; closest is line 6" in error.get("message", ""),
            error.get("message", ""),
        )
        check(
            "refusal: the retry prompt, in the text",
            "@retry_context" in text_of(refused) and refused.structured_content["retry_prompt"] in text_of(refused),
        )
        check("refusal: nothing written", "return 41" in (root / "app.py").read_text())

        # ~M: the file changes under the agent after its read.
        await s.call_tool("read_file", {"path": "app.py"})
        text = (root / "app.py").read_text()
        (root / "app.py").write_text("# edited by the user\n" + text)
        merged = await s.call_tool("edit", {"path": "app.py", "old_string": "return 41", "new_string": "return 42"})
        check("~M: merged", not merged.is_error and merged.structured_content["files"][0]["status"] == "~M", text_of(merged))
        check(
            "~M: both changes kept",
            (root / "app.py").read_text()
            == "# edited by the user\ndef greet(name):\n    return f'Hello {name}'\n\n\ndef answer():\n    return 42\n",
            (root / "app.py").read_text(),
        )
        await s.call_tool("read_file", {"path": "app.py"})
        (root / "app.py").write_text((root / "app.py").read_text().replace("return 42", "return 43"))
        conflict = await s.call_tool("edit", {"path": "app.py", "old_string": "return 42", "new_string": "return 44"})
        kinds = [e["kind"] for e in conflict.structured_content.get("errors", [])]
        check("~M: an overlapping change is refused", conflict.is_error and kinds == ["conflict"], text_of(conflict))
        check("~M: the user's change stays", "return 43" in (root / "app.py").read_text())

        for path in ["../" + outside.name + "/secret.txt", str(outside / "secret.txt"), "escape/secret.txt"]:
            escape = await s.call_tool("edit", {"path": path, "old_string": "secret", "new_string": "leaked"})
            kinds = [e["kind"] for e in escape.structured_content.get("errors", [])]
            check(f"path escape refused: {path}", escape.is_error and kinds == ["outside_root"], text_of(escape))
            read_out = await s.call_tool("read_file", {"path": path})
            check(f"path escape refused for read_file: {path}", read_out.is_error, text_of(read_out))
        check("nothing written outside", (outside / "secret.txt").read_text() == "secret\n" and len(list(outside.iterdir())) == 1)

        bad = await s.call_tool("edit", {"path": "app.py"})
        check("bad arguments: a tool error", bad.is_error and "missing field" in text_of(bad), text_of(bad))
        try:
            await s.call_tool("no_such_tool", {})
            check("unknown tool: a protocol error", False, "no error")
        except MCPError as e:
            check("unknown tool: a protocol error", e.error.code == -32602, repr(e.error))
        try:
            await s.get_prompt("no_such_prompt")
            check("unknown prompt: a protocol error", False, "no error")
        except MCPError as e:
            check("unknown prompt: a protocol error", e.error.code == -32602, repr(e.error))
        again = await s.call_tool("read_file", {"path": "app.py"})
        check("the server lives on after errors", not again.is_error)


async def client_roots(base: Path) -> None:
    """No --root: the client's roots/list, refreshed on list_changed."""
    first = base / "first"
    second = base / "second"
    elsewhere = base / "elsewhere"
    for d in (first, second, elsewhere):
        d.mkdir()
    (first / "f.txt").write_text("one\n")
    (second / "f.txt").write_text("uno\n")
    current = {"root": first}

    async def list_roots(context) -> types.ListRootsResult:
        return types.ListRootsResult(roots=[types.Root(uri=current["root"].as_uri(), name="project")])

    async with connect([], cwd=str(elsewhere), list_roots_callback=list_roots) as s:
        r = await s.call_tool("edit", {"path": "f.txt", "old_string": "one", "new_string": "two"})
        check("roots/list: the client's root is used", not r.is_error and (first / "f.txt").read_text() == "two\n", text_of(r))
        current["root"] = second
        await s.send_roots_list_changed()
        await anyio.sleep(0.2)
        r = await s.call_tool("edit", {"path": "f.txt", "old_string": "uno", "new_string": "dos"})
        check("roots/list_changed: the new root is used", not r.is_error and (second / "f.txt").read_text() == "dos\n", text_of(r))
        r = await s.call_tool("read_file", {"path": str(first / "f.txt")})
        check("roots/list_changed: the old root is left", r.is_error, text_of(r))


def raw_protocol(root: Path) -> None:
    """Raw bytes on stdin: malformed messages are answered, and the server lives on."""
    (root / "raw.txt").write_text("a\n")
    lines = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        "{this is not json",
        "\x00\xff garbage bytes",
        {"jsonrpc": "2.0", "id": 2, "method": "no/such/method"},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": 42}},
        {"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "edit", "arguments": "not an object"}},
        {"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "edit", "arguments": {"path": "raw.txt", "old_string": "a", "new_string": "b"}}},
    ]
    data = b"".join(
        (line.encode("latin-1") if isinstance(line, str) else json.dumps(line).encode()) + b"\n" for line in lines
    )
    proc = subprocess.run([SERVER, "mcp", "--root", str(root)], input=data, capture_output=True, timeout=60)
    replies = [json.loads(l) for l in proc.stdout.decode().splitlines() if l.strip()]
    by_id = {json.dumps(r.get("id")): r for r in replies}
    nulls = [r for r in replies if r.get("id") is None]
    check("raw: the server exits cleanly at the end of input", proc.returncode == 0, proc.stderr.decode()[-500:])
    check("raw: garbage JSON answered -32700 (twice)", [r["error"]["code"] for r in nulls] == [-32700, -32700], repr(nulls))
    check("raw: unknown method -32601", by_id.get("2", {}).get("error", {}).get("code") == -32601, repr(by_id.get("2")))
    check("raw: bad params (name not a string) answered with an error", "error" in by_id.get("3", {}), repr(by_id.get("3")))
    check("raw: bad params (arguments not an object) answered with an error", "error" in by_id.get("4", {}), repr(by_id.get("4")))
    r5 = by_id.get("5", {}).get("result", {})
    check("raw: still answering after them", r5.get("isError") is False and (root / "raw.txt").read_text() == "b\n", repr(by_id.get("5")))


async def agent_session(root: Path, transcript: list[str]) -> None:
    """The session docs/agents.md shows: read, edit, refused, retry informed by the retry prompt, merge."""
    (root / "shop.py").write_text(
        "TAX = 0.2\n\n\ndef total(prices):\n    subtotal = sum(prices)\n    return subtotal * (1 + TAX)\n"
    )

    def show(call: str, result: types.CallToolResult) -> None:
        transcript.append(f">>> {call}")
        transcript.append(("[isError] " if result.is_error else "") + text_of(result).rstrip("\n"))
        transcript.append("")

    async with connect(["--root", str(root)], cwd=str(root)) as s:
        r = await s.call_tool("read_file", {"path": "shop.py"})
        show('read_file {"path": "shop.py"}', r)
        # The agent misremembers a line: refused, with the closest line shown.
        r = await s.call_tool(
            "edit",
            {"path": "shop.py", "old_string": "    return sub_total * (1 + TAX)", "new_string": "    return round(subtotal * (1 + TAX), 2)"},
        )
        show('edit {"path": "shop.py", "old_string": "    return sub_total * (1 + TAX)", ...}', r)
        check("session: the misremembered edit is refused", r.is_error)
        prompt = r.structured_content["retry_prompt"]
        had = re.search(r"the file has:  (.*)", prompt)
        check("session: the retry prompt shows the file's line", had is not None, prompt)
        # The retry copies the line the retry prompt shows.
        line = had.group(1) if had else ""
        # Meanwhile the user edits the top of the file in another window.
        (root / "shop.py").write_text("TAX = 0.25\n" + (root / "shop.py").read_text().split("\n", 1)[1])
        r = await s.call_tool(
            "edit", {"path": "shop.py", "old_string": line, "new_string": "    return round(subtotal * (1 + TAX), 2)"}
        )
        show(f'edit {{"path": "shop.py", "old_string": {json.dumps(line)}, ...}}', r)
        check("session: the retry is applied, merged with the user's change", not r.is_error and r.structured_content["files"][0]["status"] == "~M", text_of(r))
        check(
            "session: the file after",
            (root / "shop.py").read_text()
            == "TAX = 0.25\n\n\ndef total(prices):\n    subtotal = sum(prices)\n    return round(subtotal * (1 + TAX), 2)\n",
            (root / "shop.py").read_text(),
        )


async def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp).resolve()
        for name, test in [
            ("protocol and tools", lambda: protocol_and_tools(base / "ws")),
            ("client roots", lambda: client_roots(base / "roots")),
        ]:
            (base / "ws").mkdir(exist_ok=True)
            (base / "roots").mkdir(exist_ok=True)
            try:
                await test()
            except Exception:
                check(name, False, traceback.format_exc())
        try:
            (base / "raw").mkdir()
            raw_protocol(base / "raw")
        except Exception:
            check("raw protocol", False, traceback.format_exc())
        transcript: list[str] = []
        try:
            (base / "session").mkdir()
            await agent_session(base / "session", transcript)
        except Exception:
            check("agent session", False, traceback.format_exc())
        shown = "\n".join(transcript).replace(str(base / "session"), "/home/me/shop")
        if "--transcript" in sys.argv:
            print(shown)
            return
        docs = DOCS.read_text() if DOCS.exists() else ""
        block = re.search(r"<!-- agent-session -->\n```text\n(.*?)```\n", docs, re.S)
        check(
            "the agent session is the one docs/agents.md shows",
            block is not None and block.group(1).rstrip("\n") == shown.rstrip("\n"),
            "regenerate it with: python tests/mcp/e2e_sdk.py BINARY --transcript",
        )
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    anyio.run(main)
