//! The help texts, written out (`--help`, `-h`, `help [COMMAND]`).

/// `llm-edit-lsp --help`.
pub const TOP: &str = "\
Turn what an LLM wrote into precise edits: a language server (the default,
over stdio) and a CLI that applies payloads to files.

Usage: llm-edit-lsp [OPTIONS] [COMMAND]

Commands:
  apply   Apply an LLM payload to files under a root
  prompt  Print the prompt kit of a format: what an LLM needs to write it well
  lsp     Serve LSP over stdio (the default)
  mcp     Serve MCP (Model Context Protocol) over stdio: tools for agents
  help    Print this message or the help of the given command

Options:
      --stdio              Serve LSP over stdio (the default; accepted for
                           editors that pass it)
      --log-level <LEVEL>  Log level for the server's stderr log (error, warn,
                           info, debug, trace, or `target=level` directives;
                           also `LLM_EDIT_LOG`)
  -h, --help               Print help
  -V, --version            Print version
";

/// `llm-edit-lsp apply --help`.
pub const APPLY: &str = "\
Apply an LLM payload to files under a root

Usage: llm-edit-lsp apply [OPTIONS] [PAYLOAD|-]

Arguments:
  [PAYLOAD|-]  The payload file, or `-` for standard input [default: -]

Options:
      --root <DIR>          The workspace root; every path in the payload is
                            relative to it [default: .]
      --format <NAME>       The payload format: auto (the default: detect)
                            or json, search_replace, roo_diff,
                            edit_block_v2, edit_block, find_replace,
                            apply_patch, unified_diff, code_block
      --context <DIR>       A folder of snapshots mirroring --root: the files
                            as the LLM saw them. Files that changed since are
                            merged, refused or overwritten (--on-conflict)
      --on-conflict <WHAT>  What to do with a file changed since its snapshot
                            [default: merge]
                              merge:     three-way merge the LLM's edit into
                                         the changed file; refuse overlaps
                              refuse:    refuse any file changed since the
                                         snapshot the LLM saw
                              overwrite: let the LLM's result replace the
                                         file (local changes dropped)
      --partial             Apply the edits that resolved even when others
                            failed (exit 1 still)
      --match <MODE>        Matching tolerance [default: tolerant]
                              tolerant: every tolerant pass (whitespace,
                                        indentation, truncated boundary lines,
                                        typography, substrings; fuzzy only
                                        with --fuzzy)
                              exact:    exact matches only
      --fuzzy <T>           Turn fuzzy matching on with this similarity
                            threshold (0 < T < 1, e.g. 0.9)
      --deadline <SECONDS>  The time budget of the whole run, in seconds
                            (default 5): edits not resolved by then fail with
                            `deadline`, and nothing is applied
      --dry-run             Change nothing: print the diff that would be made
                            and the summary
      --json                Print the JSON report on stdout (and nothing else
                            there)
      --force               Write read-only files too (their mode is kept)
      --git-add             Stage the files written with `git add`
      --no-syntax-check     Do not look for parse errors the changes bring in
                            (no syntax warnings). Loose matches are still
                            checked before they are accepted
  -h, --help                Print help

Exit status: 0 when everything applied (or would), 1 when an edit failed
(nothing is written unless --partial), 2 on usage and I/O errors.
";

/// `llm-edit-lsp prompt --help`.
pub const PROMPT: &str = "\
Print the prompt kit of a format: what an LLM needs to write it well

Usage: llm-edit-lsp prompt [OPTIONS] --format <NAME>

Options:
      --format <NAME>  The format whose kit to print
      --json           Print JSON (`{\"format\", \"instructions\", \"tools\"}`)
                       instead of text
  -h, --help           Print help
";

/// `llm-edit-lsp lsp --help`.
pub const LSP: &str = "\
Serve LSP over stdio (the default)

Usage: llm-edit-lsp lsp [OPTIONS]

Options:
      --stdio              Accepted for editors that pass it
      --log-level <LEVEL>  Log level for the server's stderr log (as at the top)
  -h, --help               Print help
";

/// `llm-edit-lsp mcp --help`.
pub const MCP: &str = "\
Serve MCP (Model Context Protocol) over stdio: tools for agents

Usage: llm-edit-lsp mcp [OPTIONS]

Options:
      --root <DIR>          A folder the tools may read and edit (repeat for
                            several; relative paths go to the first, or to
                            the one that has the file). Without it: the
                            client's roots, else the current directory
      --on-conflict <WHAT>  What to do with a file changed since the agent
                            read it: merge, refuse or overwrite (as for
                            `apply`) [default: merge]
      --require-read        Refuse to edit an existing file the session has
                            not read with read_file
      --match <MODE>        Matching tolerance: tolerant or exact (as for
                            `apply`) [default: tolerant]
      --fuzzy <T>           Turn fuzzy matching on with this similarity
                            threshold (0 < T < 1)
      --deadline <SECONDS>  The time budget of each tool call's edits, in
                            seconds (default 5)
      --log-level <LEVEL>   Log level for the server's stderr log (as at the
                            top)
  -h, --help                Print help
";
