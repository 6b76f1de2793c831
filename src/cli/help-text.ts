/** The texts of `csg --help`, `csg help COMMAND` and `csg --version`. */
import packageJson from '../../package.json' with { type: 'json' };

export const versionText = `csg ${packageJson.version}\n`;

export const scanHelp = `Usage: csg scan [FILE] [--chunks] [--trace] [--events OUT] [--rules PACK] [--direction in|out]

Reads UTF-8 text from FILE (or standard input, also as "-") and writes exactly
the guarded text to standard output, streaming: each read is pushed to the guard
as it arrives and whatever the guard releases is written at once.

  --chunks          the input is JSON Lines, one JSON string per line, each one
                    chunk as it arrived (lone surrogates such as "\\ud83d" allowed)
  --trace           write JSON Lines instead: {"chunk":i,"emit":"..."} after each
                    input chunk and a last {"end":true,"emit":"..."}; the
                    concatenated emits are the guarded text
  --events OUT      write the guard's events to file OUT as JSON Lines
                    {"rule","action","start","end","kind","type","pack"}, offsets in
                    code points of the input
  --rules PACK      use the rule pack in JSON file PACK instead of the built-in core pack
  --direction D     in (model output, the default) or out (the person's message);
                    both use the same pack for now: the outgoing policy comes with
                    the outgoing-protection work (issue 5)

Exit status: 0 done; 3 the stream was blocked; 2 bad usage, unreadable input,
an invalid JSON line or an invalid pack; 1 an internal error.
`;

export const rulesHelp = `Usage: csg rules list [PACK] [--rules PACK] [--json]
       csg rules check [PACK]

  list    one line per rule, tab-separated with a header: id, kind, action,
          max length (code units held at most), keywords (comma-separated, "-"
          for rules that run everywhere); --json prints a JSON array instead.
          Without a pack, the built-in core pack.
  check   validates a pack (structure, patterns in the compilable subset,
          bounded length, keywords, examples that must / must not match,
          replacements that trigger no rule): prints "ok: N rules" (exit 0) or
          one line per problem (exit 2). Also lists the rules whose pattern is
          unbounded and that are therefore held up to their declared maxLength.
          Without a pack, the built-in core pack.
`;

export const replayHelp = `Usage: csg replay CAPTURE [--format F] [--url URL] [--events OUT] [--compare]
                         [--rules PACK]

Runs a captured chat response through its wire adapter and the guard, as the
extension does in the page. CAPTURE is a file, or "-" for standard input:

  a response body   (SSE, NDJSON, JSON, Gemini web's )]}' frames) whose format
                    is recognised from its content; standard output gets exactly
                    the re-serialised stream
  a HAR file        exported from a browser's DevTools: every response an adapter
                    recognises (by URL, method, type and body; base64 bodies too)
                    is replayed, and standard output gets the same HAR with those
                    bodies guarded. Each other entry is left as it is and listed on
                    stderr as "csg: unguarded: METHOD URL (TYPE)"

  --format F        auto (the default), har, or the format of the body: one of
                    the registered adapters (openai-chat, openai-responses,
                    anthropic, ollama, chatgpt-web, claude-web, deepseek-web,
                    gemini-web, ...; an unknown name lists them)
  --url URL         the URL the body was fetched from, for the adapters that
                    know a response by its endpoint (history loads, non-streaming
                    answers, claude.ai's completion stream); a HAR has its own
  --events OUT      write JSON Lines to file OUT: one guard event per line,
                    {"stream","channel","rule","action","start","end","kind",
                    "type","pack"} (stream: the HAR entry index, 0 for a body;
                    offsets in code points of the channel's text), then the
                    stream's wire issues {"type":"wire-issue","stream","kind","detail"}
  --compare         replay each stream whole and chunked (per 1, 3 and 17 UTF-16
                    units and per 5 UTF-8 bytes) and print one line per stream
                    instead of the output: "stream N FORMAT: chunked = whole (K
                    events)" or "stream N FORMAT: DIFFERS at chunking C: ..."
  --rules PACK      use the rule pack in JSON file PACK instead of the built-in core pack

Wire issues (frames the adapter did not understand, passed through as they
are) are also reported on stderr, one line each.

Exit status: 0 done; 3 a stream was blocked; 1 --compare found a difference;
2 bad usage, an unreadable capture, an unknown format, a body whose format
cannot be recognised, a malformed HAR (with line and column), an invalid pack.
`;

export const mainHelp = `Usage: csg <command> [options]

Chat Stream Guard on the command line: the same streaming engine as the extension.

Commands:
  scan [FILE]           guard a text stream (stdin or FILE); see "csg help scan"
  rules list [PACK]     list the rules of a pack (default: built-in core pack)
  rules check [PACK]    validate a rule pack
  replay CAPTURE        replay a captured response body or HAR; see "csg help replay"
  envelope              wrap stdin as untrusted material (not implemented yet: issue 5)
  help [COMMAND]        this text, or a command's

Options:
  -h, --help            help
  --version             the version

Exit status: 0 done; 3 a stream was blocked; 2 bad usage or invalid input; 1 an internal error.
`;
