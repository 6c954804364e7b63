"""llm-edit-lsp as VS Code, Neovim and Emacs see it, with pytest-lsp.

Each test starts the server (``LLM_EDIT_LSP``, default
``target/release/llm-edit-lsp``) and initializes it with the client
capabilities pytest-lsp recorded from a real editor, then checks what that
editor would get: the negotiated position encoding, and the shape of the
``WorkspaceEdit`` (``documentChanges`` or ``changes``, change annotations,
resource operations).

    target/e2e-venv/bin/pytest tests/editors/test_clients.py
"""

from __future__ import annotations

import os
import pathlib
import sys
from dataclasses import dataclass

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

pytestmark = pytest.mark.asyncio

SERVER = os.environ.get("LLM_EDIT_LSP", "target/release/llm-edit-lsp")

# A line with characters whose width differs in each encoding: "é" is 2
# UTF-8 bytes and 1 UTF-16 unit, "🎉" 4 bytes and 2 units.
# The last line has no newline: its edit ends mid-line, at a column that
# depends on the encoding (whole-line edits end at column 0 of the next line).
BEFORE = 'LABEL = "é🎉"; WIDTH = 1\n\ndef area():\n    return WIDTH  # «é🎉»'
AFTER = 'LABEL = "é🎉"; WIDTH = 2\n\ndef area():\n    return WIDTH * WIDTH  # «é🎉»'
PAYLOAD = """src/shapes.py
<<<<<<< SEARCH
LABEL = "é🎉"; WIDTH = 1
=======
LABEL = "é🎉"; WIDTH = 2
>>>>>>> REPLACE
src/shapes.py
<<<<<<< SEARCH
    return WIDTH  # «é🎉»
=======
    return WIDTH * WIDTH  # «é🎉»
>>>>>>> REPLACE
"""
CREATE_PAYLOAD = """src/fresh.py
<<<<<<< SEARCH
=======
FRESH = True
>>>>>>> REPLACE
"""


@dataclass(frozen=True)
class Expected:
    """What one editor should get."""

    spec: str
    encoding: str
    document_changes: bool
    annotations: bool
    creates_files: bool


CLIENTS = [
    Expected("visual-studio-code", "utf-16", document_changes=True, annotations=True,
             creates_files=True),
    # Neovim declares resourceOperations but not documentChanges: plain changes.
    Expected("neovim@v0.7.0", "utf-16", document_changes=False, annotations=False,
             creates_files=False),
    Expected("neovim", "utf-8", document_changes=False, annotations=False, creates_files=False),
    Expected("emacs", "utf-8", document_changes=True, annotations=False, creates_files=False),
]


@dataclass
class Session:
    """A started server, its workspace and what the client received."""

    client: LanguageClient
    root: pathlib.Path
    expected: Expected
    init: types.InitializeResult
    applied_edits: list[types.ApplyWorkspaceEditParams]

    def uri(self, relative: str) -> str:
        return (self.root / relative).as_uri()


@pytest_lsp.fixture(
    params=CLIENTS,
    ids=[c.spec for c in CLIENTS],
    config=ClientServerConfig(server_command=[SERVER, "lsp"]),
)
async def lsp(request, lsp_client: LanguageClient, tmp_path: pathlib.Path):
    """The client, initialized as `request.param`'s editor (pytest-lsp
    fixtures yield the client itself: the session rides on it)."""
    expected: Expected = request.param
    applied: list[types.ApplyWorkspaceEditParams] = []

    @lsp_client.feature(types.WORKSPACE_APPLY_EDIT)
    def apply_edit(params: types.ApplyWorkspaceEditParams):
        applied.append(params)
        return types.ApplyWorkspaceEditResult(applied=True)

    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "shapes.py").write_text(BEFORE, encoding="utf-8")
    init = await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities(expected.spec),
            root_uri=tmp_path.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=tmp_path.as_uri(), name="ws")],
            initialization_options={"llmEdit": {"matchMode": "tolerant"}},
        )
    )
    lsp_client.e2e_session = Session(lsp_client, tmp_path, expected, init, applied)
    yield
    await lsp_client.shutdown_session()


@pytest.fixture
def session(lsp: LanguageClient) -> Session:
    """The started server, as one editor."""
    return lsp.e2e_session


def units(text: str, encoding: str) -> int:
    """The length of `text` in code units of `encoding`."""
    if encoding == "utf-8":
        return len(text.encode("utf-8"))
    if encoding == "utf-16":
        return len(text.encode("utf-16-le")) // 2
    return len(text)


def offset(text: str, line: int, character: int, encoding: str) -> int:
    """The str index of an LSP position in `text`."""
    lines = text.splitlines(keepends=True)
    start = sum(len(l) for l in lines[:line])
    content = lines[line] if line < len(lines) else ""
    for index in range(len(content) + 1):
        if units(content[:index], encoding) >= character:
            if units(content[:index], encoding) != character:
                raise AssertionError(f"position {line}:{character} splits a character")
            return start + index
    raise AssertionError(f"position {line}:{character} is past the line end")


def apply_text_edits(text: str, edits: list[dict], encoding: str) -> str:
    """`edits` (JSON text edits) applied to `text`, positions in `encoding`."""
    spans = []
    for edit in edits:
        start, end = edit["range"]["start"], edit["range"]["end"]
        spans.append((
            offset(text, start["line"], start["character"], encoding),
            offset(text, end["line"], end["character"], encoding),
            edit["newText"],
        ))
    for begin, end, new in sorted(spans, reverse=True):
        text = text[:begin] + new + text[end:]
    return text


def edits_of(edit: dict, uri: str, expected: Expected) -> list[dict]:
    """The text edits of `uri` in a JSON WorkspaceEdit, checking its shape."""
    if expected.document_changes:
        assert "changes" not in edit or not edit["changes"], edit
        entries = [e for e in edit["documentChanges"] if "textDocument" in e]
        assert [e["textDocument"]["uri"] for e in entries] == [uri]
        edits = entries[0]["edits"]
        annotated = [e for e in edits if "annotationId" in e]
        if expected.annotations:
            assert len(annotated) == len(edits), edits
            ids = {e["annotationId"] for e in edits}
            assert ids <= set(edit["changeAnnotations"]), edit
            for note in edit["changeAnnotations"].values():
                assert note["label"].startswith("edits 1, 2"), note
        else:
            assert not annotated, edits
            assert not edit.get("changeAnnotations"), edit
        return edits
    assert not edit.get("documentChanges"), edit
    assert not edit.get("changeAnnotations"), edit
    assert list(edit["changes"]) == [uri]
    return edit["changes"][uri]


async def test_negotiates_position_encoding(session: Session):
    assert session.init.capabilities.position_encoding == session.expected.encoding
    commands = session.init.capabilities.execute_command_provider.commands
    assert {"llm-edit.preview", "llm-edit.apply"} <= set(commands)


async def test_preview_edit_shape(session: Session):
    result = await session.client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="llm-edit.preview", arguments=[{"payload": PAYLOAD}])
    )
    assert result["errors"] == [], result
    assert result["files"] == [{"path": "src/shapes.py", "status": "M"}]
    uri = session.uri("src/shapes.py")
    edits = edits_of(result["edit"], uri, session.expected)
    assert apply_text_edits(BEFORE, edits, session.expected.encoding) == AFTER
    last_line = BEFORE.splitlines()[-1]
    assert edits[-1]["range"]["end"] == {
        "line": 3,
        "character": units(last_line, session.expected.encoding),
    }, edits[-1]
    assert session.applied_edits == [], "preview must not apply"


async def test_preview_with_confirm(session: Session):
    """The VS Code extension's "Preview payload": `confirm` marks every change
    `needsConfirmation`, which opens VS Code's Refactor Preview."""
    result = await session.client.workspace_execute_command_async(
        types.ExecuteCommandParams(
            command="llm-edit.preview",
            arguments=[{"payload": PAYLOAD, "options": {"confirm": True}}],
        )
    )
    notes = (result["edit"] or {}).get("changeAnnotations") or {}
    if session.expected.annotations:
        assert notes and all(n.get("needsConfirmation") is True for n in notes.values()), notes
    else:
        assert not notes, result["edit"]


async def test_configuration_change(session: Session):
    """Settings sent with workspace/didChangeConfiguration (as the VS Code
    extension and Helix do) apply to the next command."""
    sloppy = (
        "src/shapes.py\n<<<<<<< SEARCH\n"
        "LABEL = \"é🎉\"; WIDTH = 1   \n=======\nX = 1\n>>>>>>> REPLACE\n"
    )
    preview = types.ExecuteCommandParams(command="llm-edit.preview", arguments=[{"payload": sloppy}])
    result = await session.client.workspace_execute_command_async(preview)
    assert result["errors"] == [], "tolerant matching ignores trailing whitespace"
    session.client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"llmEdit": {"matchMode": "exact"}})
    )
    result = await session.client.workspace_execute_command_async(preview)
    assert [e["kind"] for e in result["errors"]] == ["not_found"], result


async def test_apply_to_open_buffer(session: Session):
    """`llm-edit.apply` edits the open (unsaved) buffer through workspace/applyEdit."""
    uri = session.uri("src/shapes.py")
    unsaved = BEFORE.replace("def area", "def surface")
    session.client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri, language_id="python", version=7, text=unsaved
            )
        )
    )
    result = await session.client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="llm-edit.apply", arguments=[{"payload": PAYLOAD}])
    )
    assert result["applied"] is True, result
    assert len(session.applied_edits) == 1
    converter = session.client.protocol._converter
    edit = converter.unstructure(session.applied_edits[0].edit)
    if session.expected.document_changes:
        # The buffer's version, so the editor can refuse a stale edit.
        assert edit["documentChanges"][0]["textDocument"]["version"] == 7
    edits = edits_of(edit, uri, session.expected)
    assert apply_text_edits(unsaved, edits, session.expected.encoding) == AFTER.replace(
        "def area", "def surface"
    )


async def test_create_file_needs_resource_operations(session: Session):
    result = await session.client.workspace_execute_command_async(
        types.ExecuteCommandParams(
            command="llm-edit.apply", arguments=[{"payload": CREATE_PAYLOAD}]
        )
    )
    if session.expected.creates_files:
        assert result["applied"] is True, result
        edit = session.client.protocol._converter.unstructure(session.applied_edits[0].edit)
        kinds = [op.get("kind", "edit") for op in edit["documentChanges"]]
        assert kinds == ["create", "edit"], edit
        assert edit["documentChanges"][0]["uri"] == session.uri("src/fresh.py")
    else:
        assert result["applied"] is False, result
        assert "cannot create files" in result["failureReason"], result
        assert session.applied_edits == []


async def test_failed_anchor_diagnostic(session: Session):
    uri = session.uri("src/shapes.py")
    payload = 'src/shapes.py\n<<<<<<< SEARCH\nLABEL = "é🎉"; WIDTH = 9\n=======\nX\n>>>>>>> REPLACE\n'
    result = await session.client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="llm-edit.apply", arguments=[{"payload": payload}])
    )
    assert result["applied"] is False and result["errors"], result
    # Published before the command's response.
    diagnostics = session.client.diagnostics.get(uri, [])
    assert [(d.source, d.code) for d in diagnostics] == [("llm-edit", "not_found")], diagnostics
    # On the near match, line 1, to its end in the negotiated encoding.
    first_line = BEFORE.splitlines()[0]
    end = diagnostics[0].range.end
    assert (end.line, end.character) == (0, units(first_line, session.expected.encoding))


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, *sys.argv[1:]]))

