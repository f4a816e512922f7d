#!/usr/bin/env python3
"""Every relative link and source path of the project's Markdown pages
leads somewhere.

    scripts/check_doc_links.py [REPO_ROOT]

Reads every tracked *.md file (and new ones git does not ignore), and
- for each link `[text](target)` that is not a URL checks that the file or
  folder exists and, for `page.md#anchor`, that the page has a heading whose
  GitHub anchor is `anchor` (lower case, punctuation dropped, spaces as
  hyphens);
- for each path of the repository a page names in its text, code included
  (`server/rpc/tick_stream.cc`, a word starting with one of the top-level
  source folders and ending in a source or data extension), checks that the
  file exists, relative to the repository root.
Exits 1 and prints each broken link or path.
"""
import os
import re
import subprocess
import sys

LINK = re.compile(r"\]\(([^)\s]+)\)")
HEADING = re.compile(r"^#+ (.+)$", re.MULTILINE)
FENCE = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)
REPO_PATH = re.compile(
    r"(?<![\w/.-])((?:core|server|client|proto|tests|bench|scripts|docker|"
    r"deploy|examples)/[\w./-]+\.(?:h|cc|proto|py|sh|js|mjs|ts|json|yaml|"
    r"conf|md|gltf))\b")


def anchor_of(heading):
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(path):
    with open(path, encoding="utf-8") as f:
        text = FENCE.sub("", f.read())
    return {anchor_of(h) for h in HEADING.findall(text)}


def main(argv):
    root = argv[1] if len(argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..")
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard",
         "*.md"], cwd=root, check=True, capture_output=True, text=True)
    problems = []
    pages = [p for p in listed.stdout.splitlines()
             if os.path.exists(os.path.join(root, p))]
    for page in pages:
        with open(os.path.join(root, page), encoding="utf-8") as f:
            whole = f.read()
        for path in sorted(set(REPO_PATH.findall(whole))):
            if not os.path.exists(os.path.join(root, path)):
                problems.append(f"{page}: names {path}, which does not exist")
        text = FENCE.sub("", whole)
        for target in LINK.findall(text):
            if re.match(r"^[a-z]+:", target):
                continue  # a URL
            path, _, anchor = target.partition("#")
            resolved = os.path.normpath(
                os.path.join(os.path.dirname(page), path)) if path else page
            full = os.path.join(root, resolved)
            if not os.path.exists(full):
                problems.append(f"{page}: {target}: {resolved} does not exist")
            elif anchor and resolved.endswith(".md") and \
                    anchor not in anchors(full):
                problems.append(f"{page}: {target}: {resolved} has no "
                                f"heading #{anchor}")
    for problem in problems:
        print(problem)
    print(f"{len(pages)} pages read, {len(problems)} broken link(s) or "
          f"path(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
