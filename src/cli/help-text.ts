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

export const mainHelp = `Usage: csg <command> [options]

Chat Stream Guard on the command line: the same streaming engine as the extension.

Commands:
  scan [FILE]           guard a text stream (stdin or FILE); see "csg help scan"
  rules list [PACK]     list the rules of a pack (default: built-in core pack)
  rules check [PACK]    validate a rule pack
  replay CAPTURE        replay a captured chat response (not implemented yet: issue 3)
  envelope              wrap stdin as untrusted material (not implemented yet: issue 5)
  help [COMMAND]        this text, or a command's

Options:
  -h, --help            help
  --version             the version

Exit status: 0 done; 3 a stream was blocked; 2 bad usage or invalid input; 1 an internal error.
`;
