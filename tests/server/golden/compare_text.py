#!/usr/bin/env python3
"""Compares two text dumps of the golden answers (IKD_GOLDEN_TEXT).

Prints, for every answer that changed, its largest numeric difference, and
the largest over the whole set; any change that is not numeric (a status
code, a stop reason, a field appearing) is listed in full.

  tests/server/golden/compare_text.py before.txt after.txt
"""
import re
import sys

NUMBER = re.compile(r"-?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|inf|nan)")


def read(path):
    answers = {}
    with open(path) as f:
        for line in f:
            name, _, rest = line.rstrip("\n").partition(" ")
            answers[name] = rest
    return answers


def main():
    before, after = read(sys.argv[1]), read(sys.argv[2])
    if before.keys() != after.keys():
        print("the request sets differ:", sorted(before.keys() ^ after.keys()))
        return 1
    worst, changed, structural = 0.0, 0, 0
    for name in before:
        a, b = before[name], after[name]
        if a == b:
            continue
        changed += 1
        if NUMBER.sub("#", a) != NUMBER.sub("#", b):
            structural += 1
            print(f"{name}: not only numbers changed\n  before {a}\n  after  {b}")
            continue
        largest = max(abs(float(x) - float(y))
                      for x, y in zip(NUMBER.findall(a), NUMBER.findall(b)))
        worst = max(worst, largest)
        print(f"{name}: largest difference {largest:.3g}")
    print(f"{changed} of {len(before)} answers changed, {structural} beyond "
          f"their numbers; largest numeric difference {worst:.3g}")
    return 1 if structural else 0


if __name__ == "__main__":
    sys.exit(main())
