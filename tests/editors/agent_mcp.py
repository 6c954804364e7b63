#!/usr/bin/env python3
"""An agent for tests/editors/nvim_agent_e2e.lua: one MCP session with
`llm-edit-lsp mcp --root ROOT`, through the official MCP Python SDK
(tests/mcp/requirements.txt).

    LLM_EDIT_LSP=target/release/llm-edit-lsp python3 tests/editors/agent_mcp.py ROOT < call.json

call.json: {"read": [paths], "tool": "edit", "arguments": {...}}. The agent
reads each file of `read` with the server's read_file tool (what it saw
becomes the snapshot of its edits), then calls `tool`; prints the call's
structured result (the AgentOutcome JSON, or {"error": ...}) on one line.
Exits 1 when a read fails.
"""

import asyncio
import json
import os
import sys

from mcp import ClientSession, StdioServerParameters, stdio_client


async def main() -> int:
    root = sys.argv[1]
    call = json.load(sys.stdin)
    server = StdioServerParameters(
        command=os.environ["LLM_EDIT_LSP"], args=["mcp", "--root", root], cwd=root
    )
    async with stdio_client(server) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            for path in call.get("read", []):
                result = await session.call_tool("read_file", {"path": path})
                if result.is_error:
                    print(f"read_file {path} failed: {result.content}", file=sys.stderr)
                    return 1
            result = await session.call_tool(call["tool"], call["arguments"])
            structured = result.structured_content
            if structured is None:
                structured = {"error": [c.model_dump() for c in result.content]}
            print(json.dumps(structured))
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
