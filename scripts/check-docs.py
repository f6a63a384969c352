#!/usr/bin/env python3
"""Checks the documentation as a reader meets it: every relative link and every repository path
named in README.md and docs/ resolves, every fenced code block there closes, docs/ stays a few
pages (under MAX_DOCS_ENTRIES entries), and no file name or text in the product's own sources
speaks of how it was developed instead of what it does. Usage: check-docs.py [SOURCE_TREE];
prints one line per problem, exits 1 if any."""
import os
import re
import sys

MAX_DOCS_ENTRIES = 100
# Top-level folders whose text is ours (fixtures and data hold third-party text and are left out).
OWN_DIRS = ["bench", "cmake", "docs", "fuzz", "mlcube", "schema", "scripts", "src", "tests", "web"]
OWN_FILES = ["README.md", "Makefile", "CMakeLists.txt", "CMakePresets.json", "Dockerfile",
             ".dockerignore"]
SKIP_DIRS = {"fixtures", "node_modules", "__pycache__", ".git", "build"}
TEXT_SUFFIXES = {".md", ".cpp", ".h", ".cu", ".cuh", ".py", ".sh", ".bash", ".cmake", ".txt", ".js",
                 ".html", ".css", ".json", ".yaml", ".yml", ""}
# The development process, not the product: numbered visits, sessions and calls.
PROCESS_WORDS = re.compile(r"(?<![a-z])visits?(?![a-z])|\bsessions? \d|\bcalls? \d", re.IGNORECASE)
# These two name the words they look for.
SELF = {"scripts/check-docs.py", "tests/cli/docs_check.sh"}
MD_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
# A repository path in backticks: starts at a top-level folder, no placeholders.
REPO_PATH = re.compile(r"`((?:bench|cmake|data|docs|fuzz|schema|scripts|src|tests|web)/[^`\s]*)`")
PLACEHOLDER = re.compile(r"[*{}<>…$]|\.\.\.|/N\b|NAME|TARGET")


def own_files(root):
    for name in OWN_FILES:
        if os.path.isfile(os.path.join(root, name)):
            yield name
    for top in OWN_DIRS:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, top)):
            dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
            for f in sorted(filenames):
                yield os.path.relpath(os.path.join(dirpath, f), root)


def markdown_files(root):
    return [f for f in own_files(root)
            if f.endswith(".md") and (f == "README.md" or f.startswith("docs/"))]


def check_links(root, problems):
    for md in markdown_files(root):
        text = open(os.path.join(root, md), encoding="utf-8").read()
        base = os.path.dirname(md)
        for lineno, line in enumerate(text.splitlines(), 1):
            for target in MD_LINK.findall(line):
                if re.match(r"^[a-z]+:", target) or target.startswith("#"):
                    continue
                path = os.path.normpath(os.path.join(base, target.split("#")[0]))
                if not os.path.exists(os.path.join(root, path)):
                    problems.append(f"{md}:{lineno}: link '{target}' does not resolve ({path})")
            for path in REPO_PATH.findall(MD_LINK.sub("", line)):
                if PLACEHOLDER.search(path):
                    continue
                if not os.path.exists(os.path.join(root, path.rstrip(".,;:"))):
                    problems.append(f"{md}:{lineno}: path '{path}' does not exist")


FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")


def check_fences(root, problems):
    """A fence with text after it cannot close a block (CommonMark), so the rest of the page would
    render as code: each such line, and a block still open at the end of the file."""
    for md in markdown_files(root):
        text = open(os.path.join(root, md), encoding="utf-8").read()
        opened = None  # (line, fence) of the open block
        for lineno, line in enumerate(text.splitlines(), 1):
            m = FENCE.match(line)
            if not m:
                continue
            fence, rest = m.group(1), m.group(2).strip()
            if opened is None:
                opened = (lineno, fence)
            elif fence[0] == opened[1][0] and len(fence) >= len(opened[1]):
                if rest:
                    problems.append(f"{md}:{lineno}: text after a closing fence; the code block "
                                    f"of line {opened[0]} does not close here")
                else:
                    opened = None
        if opened is not None:
            problems.append(f"{md}:{opened[0]}: the code block opened here never closes")


def check_process_words(root, problems):
    for rel in own_files(root):
        if rel in SELF:
            continue
        if PROCESS_WORDS.search(os.path.basename(rel)):
            problems.append(f"{rel}: the file name describes the development process")
        if os.path.splitext(rel)[1] not in TEXT_SUFFIXES:
            continue
        try:
            text = open(os.path.join(root, rel), encoding="utf-8").read()
        except (UnicodeDecodeError, OSError):
            continue
        for lineno, line in enumerate(text.splitlines(), 1):
            m = PROCESS_WORDS.search(line)
            if m:
                problems.append(f"{rel}:{lineno}: '{m.group(0)}' describes the development "
                                "process, not the product")


def check_docs_size(root, problems):
    entries = sum(len(d) + len(f) for _, d, f in os.walk(os.path.join(root, "docs"))) + 1
    if entries >= MAX_DOCS_ENTRIES:
        problems.append(f"docs/: {entries} files and folders, expected fewer than "
                        f"{MAX_DOCS_ENTRIES} (keep the data behind the result pages; git keeps the "
                        "history)")


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    if not os.path.isfile(os.path.join(root, "README.md")):
        print(f"check-docs: {root}: no README.md here; pass the source tree", file=sys.stderr)
        return 2
    problems = []
    check_links(root, problems)
    check_fences(root, problems)
    check_process_words(root, problems)
    check_docs_size(root, problems)
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
