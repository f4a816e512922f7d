#!/usr/bin/env python3
"""Every relative link of the project's Markdown pages leads somewhere.

    scripts/check_doc_links.py [REPO_ROOT]

Reads every tracked *.md file (and new ones git does not ignore), and for
each link `[text](target)` that is not a URL checks that the file or folder
exists and, for `page.md#anchor`, that the page has a heading whose GitHub
anchor is `anchor` (lower case, punctuation dropped, spaces as hyphens).
Exits 1 and prints each broken link.
"""
import os
import re
import subprocess
import sys

LINK = re.compile(r"\]\(([^)\s]+)\)")
HEADING = re.compile(r"^#+ (.+)$", re.MULTILINE)
FENCE = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)


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
            text = FENCE.sub("", f.read())
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
    print(f"{len(pages)} pages read, {len(problems)} broken link(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
