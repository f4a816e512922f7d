#!/usr/bin/env python3
"""Keeps the README's architecture table true to the tree.

    scripts/check_architecture.py [REPO_ROOT]

The table is the first Markdown table under the README's "## Architecture"
heading whose header's first cell is "folder". Each row reads:

    | `server/rpc/` | `ik_service` `call_gate.h` `tests/` | what it holds |

- column 1: one folder, relative to the repository root, ending in "/";
- column 2: names relative to that folder: a file ("call_gate.h"), a stem
  standing for its .h and/or .cc ("ik_service"), or a subfolder ("tests/").

Checked:
1. everything the table names exists;
2. every folder that holds a source file (.h .cc .proto .py .js .mjs .ts .sh)
   appears, as a row's folder or as a subfolder named in a row;
3. every file under server/ is named in the row of its folder.

The tree is what git tracks plus new files it does not ignore. Exits 1 and
prints each problem when a check fails.
"""

import os
import re
import subprocess
import sys

SOURCE_SUFFIXES = (".h", ".cc", ".proto", ".py", ".js", ".mjs", ".ts", ".sh")
NAMED_FILES_UNDER = "server/"
CODE = re.compile(r"`([^`]+)`")


def tree_files(root):
    out = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=root, check=True, capture_output=True, text=True).stdout
    return sorted(f for f in out.splitlines()
                  if os.path.exists(os.path.join(root, f)))


def architecture_rows(readme_text):
    """[(line number, folder, [names])] of the architecture table."""
    lines = readme_text.splitlines()
    start = next((i for i, line in enumerate(lines)
                  if line.strip() == "## Architecture"), None)
    if start is None:
        raise ValueError("README.md has no '## Architecture' heading")
    rows = []
    in_table = False
    for number, line in enumerate(lines[start + 1:], start + 2):
        if line.startswith("## "):
            break
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if not in_table:
            if line.lstrip().startswith("|") and cells[0] == "folder":
                in_table = True
            continue
        if not line.lstrip().startswith("|"):
            break
        if set(cells[0]) <= set("-: "):
            continue  # the header's rule
        folders = CODE.findall(cells[0])
        if len(folders) != 1 or not folders[0].endswith("/"):
            raise ValueError(f"README.md:{number}: column 1 must be one "
                             f"`folder/`, not {cells[0]!r}")
        names = CODE.findall(cells[1]) if len(cells) > 1 else []
        rows.append((number, folders[0], names))
    if not rows:
        raise ValueError("README.md: no architecture table (a table whose "
                         "first header cell is 'folder' under "
                         "'## Architecture')")
    return rows


def check(root):
    problems = []
    files = tree_files(root)
    with open(os.path.join(root, "README.md"), encoding="utf-8") as f:
        rows = architecture_rows(f.read())

    listed_folders = set()
    named_files = set()
    for number, folder, names in rows:
        where = f"README.md:{number}"
        if not os.path.isdir(os.path.join(root, folder)):
            problems.append(f"{where}: folder {folder} does not exist")
            continue
        listed_folders.add(folder.rstrip("/"))
        for name in names:
            path = os.path.join(folder, name)
            if name.endswith("/"):
                if os.path.isdir(os.path.join(root, path)):
                    listed_folders.add(path.rstrip("/"))
                else:
                    problems.append(f"{where}: folder {path} does not exist")
                continue
            if os.path.isfile(os.path.join(root, path)):
                named_files.add(path)
                continue
            stems = [path + suffix for suffix in (".h", ".cc")
                     if os.path.isfile(os.path.join(root, path + suffix))]
            if not stems:
                problems.append(f"{where}: {path} names no file (nor "
                                f"{path}.h / {path}.cc)")
            named_files.update(stems)

    source_folders = {os.path.dirname(f) for f in files
                      if f.endswith(SOURCE_SUFFIXES) and os.path.dirname(f)}
    for folder in sorted(source_folders - listed_folders):
        problems.append(f"README.md: the architecture table does not list "
                        f"{folder}/ (it holds source files)")
    for path in files:
        if path.startswith(NAMED_FILES_UNDER) and path not in named_files:
            problems.append(f"README.md: the architecture table does not "
                            f"name {path}")
    return problems


def main(argv):
    root = argv[1] if len(argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..")
    try:
        problems = check(root)
    except ValueError as error:
        problems = [str(error)]
    for problem in problems:
        print(problem)
    if problems:
        print(f"{len(problems)} problem(s): update the README's architecture "
              f"table or the tree")
        return 1
    print("the architecture table matches the tree")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
