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
                    bodies guarded. A WebSocket entry (DevTools' _webSocketMessages)
                    of a known chat socket (Copilot, Open WebUI) has its received
                    frames guarded and written back the same way. Each other entry
                    is left as it is and listed on stderr as
                    "csg: unguarded: METHOD URL (TYPE)"

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
                    events)" or "stream N FORMAT: DIFFERS at chunking C: ..."; a
                    WebSocket entry's frames are units (chunking within a frame
                    does not apply to sockets), and its line says so
  --rules PACK      use the rule pack in JSON file PACK instead of the built-in core pack

Wire issues (frames the adapter did not understand, passed through as they
are) are also reported on stderr, one line each.

Exit status: 0 done; 3 a stream was blocked; 1 --compare found a difference;
2 bad usage, an unreadable capture, an unknown format, a body whose format
cannot be recognised, a malformed HAR (with line and column), an invalid pack.
`;

export const outgoingHelp = `Usage: csg outgoing --format F [--reference-only FILE] [--labels PACK]
                    [--events OUT] [--rules PACK] [--policy KIND=ACTION,...] [FILE]

Reads one chat request body (FILE or standard input) as a page would send it,
and prints the body that would leave: the new user message and attachment text
checked on send (secrets redacted, personal data marked "warn", per the default
outgoing policy), then the history projected on the copy (issue 5 §3):

  --format F            the client that sends the body: openai-chat, open-webui,
                        nextchat, lobechat, ollama (OpenAI-style "messages"),
                        anthropic (Anthropic Messages) or big-agi (the
                        aix.chatGenerateContent input, "chatSequence")
  --reference-only FILE messages to leave out, JSON Lines, one per line:
                          {"index": 3}     the message at index 3 of "messages"
                          {"text": "..."}  messages whose text is exactly this (the
                                           content string, or its text parts joined
                                           by a newline)
                        marks become keyed digests with a key made for this run;
                        the new message and tool results are never left out, and a
                        message with tool calls stays with its text emptied
  --labels PACK         source-label pack (JSON: name, version, minProse, labels[]
                        of id, description, pattern, keywords, maxLength,
                        examples); labels are stripped from assistant messages and
                        a chain of labelled comments keeps only the first (seed 001
                        §7.1.2-7.1.3). Default: the built-in source-labels pack
  --events OUT          write JSON Lines {"rule","action","start","end","message",
                        "part",...} for every finding and change (offsets in code
                        points of the string); never the text
  --rules PACK          rule pack for DLP instead of the built-in core pack
  --policy P            override the outgoing policy per kind, e.g. pii=block,secret=warn
                        (kinds: secret, pii, exfil, invisible, injection, custom;
                        actions: redact, warn, block, off). Defaults: secret redact,
                        pii warn, invisible redact, custom redact, exfil and injection off

Exit status: 0 done; 3 the send is blocked (nothing printed); 2 bad usage, an
unreadable or invalid request, reference-only file or pack; 1 an internal error.
`;

export const envelopeHelp = `Usage: csg envelope [FILE] [--source NAME] [--renderer json|quote] [--budget BYTES]
       csg envelope --decode [FILE]

Wraps UTF-8 text from FILE (or standard input, also as "-") as untrusted
material for a chat model: a declaration line, an opening fence line
<untrusted-FENCE source="NAME" trust="low">, the text, and the closing fence
line </untrusted-FENCE>. FENCE is 128 fresh random bits on every run. Split at
any line boundary (LF, VT, FF, CR, CRLF, U+001C-U+001E, U+0085, U+2028,
U+2029), the output has exactly one opening and one closing fence line.

  --source NAME     where the text came from, written into the tag (escaped);
                    default "standard input"
  --renderer R      json (the default): the text as one JSON line that decodes
                    to it exactly; quote: readable and lossy, every line quoted
                    with "> ", line separators made LF, control and invisible
                    characters shown as \\uXXXX
  --budget BYTES    the output may be at most BYTES bytes of UTF-8: text that
                    does not fit is truncated, but never to under 64 bytes; if it
                    cannot fit, nothing is written (exit 2)
  --decode          read a json envelope and write the original text exactly;
                    the envelope must hold exactly one fence pair and one item

Exit status: 0 done; 2 bad usage, text that does not fit the budget, or an
invalid envelope; 1 an internal error.
`;

export const mainHelp = `Usage: csg <command> [options]

Chat Stream Guard on the command line: the same streaming engine as the extension.

Commands:
  scan [FILE]           guard a text stream (stdin or FILE); see "csg help scan"
  rules list [PACK]     list the rules of a pack (default: built-in core pack)
  rules check [PACK]    validate a rule pack
  replay CAPTURE        replay a captured response body or HAR; see "csg help replay"
  outgoing --format F   DLP and history projection of a request body; see "csg help outgoing"
  envelope [FILE]       wrap text as untrusted material; see "csg help envelope"
  help [COMMAND]        this text, or a command's

Options:
  -h, --help            help
  --version             the version

Exit status: 0 done; 3 a stream was blocked; 2 bad usage or invalid input; 1 an internal error.
`;
