"""Compares the runtime's settings (what COPYSTACK_HELP=1 printed) with the
SETTINGS section of copystack(7): the same names, in the same order, each
with the same default. Prints what it found; exits 1 on a difference.

Usage: man_settings.py HELP_OUTPUT MAN_PAGE
"""
import re
import sys


def unescape(text):
    return text.replace("\\-", "-").replace("\\e", "\\")


def from_help(path):
    with open(path) as f:
        text = f.read()
    return re.findall(r"^(COPYSTACK_[A-Z0-9_]+)=.*\n(?:    .*\n)*?    default: (.*?);",
                      text, re.M)


def from_man(path):
    with open(path) as f:
        text = f.read()
    section = text.split(".SH SETTINGS", 1)[1].split("\n.SH ", 1)[0]
    found = []
    for entry in section.split(".TP\n")[1:]:
        name = re.match(r"\.B (COPYSTACK_[A-Z0-9_]+)\n", entry)
        default = re.search(r"^Default: (.*?);", entry, re.M)
        if not name or not default:
            sys.exit("copystack(7): an entry without a name or a default:\n" +
                     entry)
        found.append((name.group(1), unescape(default.group(1))))
    return found


def main():
    help_settings = from_help(sys.argv[1])
    man_settings = from_man(sys.argv[2])
    if not help_settings:
        sys.exit("no settings in %s" % sys.argv[1])
    if help_settings != man_settings:
        for h, m in zip(help_settings + [None] * len(man_settings),
                        man_settings + [None] * len(help_settings)):
            if h != m and (h or m):
                print("runtime %s, copystack(7) %s" % (h, m))
                break
        sys.exit("copystack(7)'s SETTINGS differ from COPYSTACK_HELP=1's")
    print("settings: %d, the same names and defaults" % len(help_settings))


main()
