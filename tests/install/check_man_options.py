#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_man_options.py PAGE TOOL: the options a man page documents are
exactly the options `TOOL --help` lists, in both directions.

--help: an option is what starts an entry of the option column, a line
indented by 2 to 6 spaces that begins with "-x, --long" or "--long" (the
text of an entry, indented further, may name other options: those are not
entries). The man page: an entry is the first line after a .TP macro
(the tagged paragraphs of OPTIONS); its bold "\\-x" / "\\-\\-long" words
are the options it documents. "--" (end of options) is not an option.
"""
import re
import subprocess
import sys

HELP_ENTRY = re.compile(r"^ {2,6}(-[A-Za-z0-9](?:, )?)?(--[a-z][a-z0-9-]*)?")
ROFF_OPTION = re.compile(r"(?<![A-Za-z0-9])((?:\\-){1,2}[A-Za-z0-9][A-Za-z0-9\\-]*)")


def help_options(tool):
    out = subprocess.run([tool, "--help"], capture_output=True, text=True,
                         timeout=30)
    if out.returncode != 0:
        sys.exit(f"FAIL: {tool} --help exited {out.returncode}: {out.stderr}")
    opts = set()
    for line in out.stdout.splitlines():
        m = HELP_ENTRY.match(line)
        if not m:
            continue
        for g in m.groups():
            if g:
                opts.add(g.rstrip(", "))
    return opts


def roff_bold_words(line):
    """The words a roff line sets in bold: \\fB...\\fR runs, and the
    alternating arguments of .B/.BR/.BI (odd ones bold) and .RB/.IB
    (even ones bold)."""
    words = re.findall(r"\\fB(.*?)(?:\\f[RIP]|$)", line)
    m = re.match(r"^\.(B|BR|BI|RB|IB)\s+(.*)$", line)
    if m:
        args = re.findall(r'"[^"]*"|\S+', m.group(2))
        first_bold = m.group(1)[0] == "B"
        for i, a in enumerate(args):
            if (i % 2 == 0) == first_bold:
                words.append(a.strip('"'))
    return words


def man_options(page):
    opts = set()
    lines = open(page, encoding="utf-8").read().splitlines()
    for i, line in enumerate(lines[:-1]):
        if not line.startswith(".TP"):
            continue
        for word in roff_bold_words(lines[i + 1]):
            for m in ROFF_OPTION.finditer(word):
                opt = m.group(1).replace("\\-", "-")
                if opt != "--":
                    opts.add(opt.rstrip("-"))
    return opts


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: check_man_options.py PAGE TOOL")
    page, tool = sys.argv[1:]
    in_help = help_options(tool)
    in_man = man_options(page)
    print(f"{tool} --help lists {len(in_help)} options: "
          + " ".join(sorted(in_help)))
    print(f"{page} documents {len(in_man)} options: "
          + " ".join(sorted(in_man)))
    # Both lists come from parsers: an empty or tiny one means a parser
    # missed the format, not that the two agree.
    if len(in_help) < 2 or len(in_man) < 2:
        sys.exit("FAIL: found almost no options; has a format changed?")
    missing = sorted(in_help - in_man)
    extra = sorted(in_man - in_help)
    if missing:
        print("FAIL: in --help but not in the man page: " + " ".join(missing))
    if extra:
        print("FAIL: in the man page but not in --help: " + " ".join(extra))
    if missing or extra:
        sys.exit(1)
    print("ok: the man page and --help list the same options")


if __name__ == "__main__":
    main()
