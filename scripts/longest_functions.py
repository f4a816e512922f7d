#!/usr/bin/env python3
"""The longest function definitions in ikd's C++ sources.

  longest_functions.py [--top N] [--root DIR]   the N (10) longest, as
                                                `lines  file:line  name`
  longest_functions.py --max N                  every function longer than N
                                                lines without a reason; exits
                                                1 if there is one
  longest_functions.py --self-test              checks the parser on snippets

The sources are the C++ files (.cc, .h) that `git ls-files` lists under
core/, server/, client/ and bench/; tests/ and build folders are not read.
A function's length counts the lines from the one holding its name (a
`template <...>` line above it not included) to its closing brace.

A long function says why it must stay one (STYLE.md: a long Run() becomes
named stages; a function past ~60 lines says why it must be one): its reason
is the comment block directly above the definition (or above its `template`
line) containing the words "one function", in any case, e.g.

  // Stays one function: its stages share some forty scalars, ...

--max lists the functions over N lines that lack such a comment.

The parser reads clang-formatted C++ (Google style), not C++ in general: it
strips comments, strings and preprocessor lines, matches braces, and calls a
brace a function's body when it opens at namespace or class scope after a
parameter list (`name(...)`, then qualifiers, a trailing return type or a
constructor's initializer list). Lambdas and local classes count towards
the function holding them.
"""
import argparse
import re
import subprocess
import sys

FOLDERS = ("core/", "server/", "client/", "bench/")
EXTENSIONS = (".cc", ".h")
REASON = re.compile(r"one\s+function", re.IGNORECASE)
# Identifiers before a parenthesis that are not the function's name.
NOT_NAMES = {"decltype", "noexcept", "alignas", "__attribute__", "sizeof",
             "alignof", "requires", "throw", "__declspec", "explicit"}
CONTROL = {"if", "for", "while", "switch", "catch", "do", "else", "return"}
TYPE_KEYWORDS = {"class", "struct", "union", "enum"}
TOKEN = re.compile(r"""
    (?P<ident>[A-Za-z_~][A-Za-z_0-9]*)
  | (?P<scope>::)
  | (?P<op>->|==|!=|<=|>=|&&|\|\||\+=|-=|\*=|/=|<<|>>|\+\+|--)
  | (?P<punct>[()\[\]{};:,<>=&*])
  | (?P<other>\S)
""", re.VERBOSE)


def strip_code(text):
    """The text with comments, string and char literals blanked out (line
    breaks kept) and preprocessor lines emptied, so that line numbers hold.
    """
    out = []
    i = 0
    n = len(text)
    at_line_start = True  # only whitespace so far on this line
    while i < n:
        c = text[i]
        if c == "\n":
            out.append(c)
            at_line_start = True
            i += 1
            continue
        if at_line_start and c == "#":
            # A preprocessor line and its continuations.
            while i < n:
                if text[i] == "\\" and i + 1 < n and text[i + 1] == "\n":
                    out.append("\n")
                    i += 2
                    continue
                if text[i] == "\n":
                    break
                i += 1
            continue
        if c in " \t":
            out.append(c)
            i += 1
            continue
        at_line_start = False
        if text.startswith("//", i):
            while i < n and text[i] != "\n":
                i += 1
            continue
        if text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out.append("".join("\n" if ch == "\n" else " "
                               for ch in text[i:end]))
            i = end
            continue
        raw = re.match(r'(?:u8|[uUL])?R"([^()\\\s]{0,16})\(', text[i:i + 24])
        if raw and (i == 0 or not (text[i - 1].isalnum() or
                                   text[i - 1] == "_")):
            close = ")" + raw.group(1) + '"'
            end = text.find(close, i + raw.end())
            end = n if end < 0 else end + len(close)
            out.append('""' + "".join("\n" for ch in text[i:end]
                                      if ch == "\n"))
            i = end
            continue
        if c in "\"'":
            if c == "'" and i > 0 and text[i - 1].isalnum():
                out.append(" ")  # a digit separator: 1'000'000
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(c + c)
            i = j + 1
            continue
        out.append(c)
        i += 1
    return "".join(out)


def tokens(stripped):
    """(kind, text, line) for every token; lines count from 1."""
    line = 1
    pos = 0
    for m in TOKEN.finditer(stripped):
        line += stripped.count("\n", pos, m.start())
        pos = m.start()
        yield m.lastgroup, m.group(), line


def function_name(header):
    """(name, index of its first token) if `header` (the tokens before a `{`
    at namespace or class scope) is a function's signature, else None."""
    texts = [t for _, t, _ in header]
    if not texts or texts[0] in CONTROL or texts[0] == "namespace":
        return None
    depth = 0
    for i, text in enumerate(texts):
        if text == "(":
            depth += 1
        elif text == ")":
            depth -= 1
        elif depth == 0 and text == "=" and (
                i == 0 or texts[i - 1] != "operator"):
            return None  # an initializer (or a lambda assigned to a name)
        elif depth == 0 and text in TYPE_KEYWORDS and "(" not in texts[i:]:
            return None  # a type's body
    if depth != 0:
        return None
    # The declarator: the first `name(` whose name is not a keyword or an
    # ALL_CAPS macro (ABSL_ATTRIBUTE_..., ABSL_LOCKS_EXCLUDED(...)).
    for i in range(1, len(header)):
        if texts[i] != "(":
            continue
        j = i - 1
        if texts[j] == "operator" and texts[i + 1:i + 2] == [")"]:
            return qualified(header, j, "operator()")  # operator()(...)
        if j > 0 and texts[j - 1] == "operator":
            return qualified(header, j - 1, "operator" + texts[j])
        if header[j][0] != "ident" or texts[j] in NOT_NAMES or \
                texts[j] in CONTROL:
            continue
        if re.fullmatch(r"[A-Z][A-Z0-9_]+", texts[j]):
            continue  # a macro
        return qualified(header, j, texts[j])
    return None


def qualified(header, j, name):
    """`name` (whose first token is header[j]) with its `A::B::`
    qualifiers, and the index of its first token."""
    while j >= 2 and header[j - 1][1] == "::" and \
            header[j - 2][0] == "ident":
        name = header[j - 2][1] + "::" + name
        j -= 2
    return name, j


def find_functions(text):
    """[(name, first_line, last_line, header_first_line)] of the function
    definitions in C++ `text`. header_first_line is the header's first line
    (a template line), where a reason comment sits above."""
    found = []
    # The scope stack: 'ns' (namespace, extern "C", the file), 'class',
    # 'fn' (a function body), 'other' (any other brace).
    stack = ["ns"]
    header = []
    in_init_list = False
    current = None
    for kind, text, line in tokens(strip_code(text)):
        top = stack[-1]
        if top == "fn" or top == "other-in-fn":
            if text == "{":
                stack.append("other-in-fn")
            elif text == "}":
                stack.pop()
                if top == "fn":
                    name, first, head = current
                    found.append((name, first, line, head))
                    header = []
            continue
        if top == "other":
            if text == "{":
                stack.append("other")
            elif text == "}":
                stack.pop()
            continue
        # Namespace or class scope: gather the header of the next
        # declaration.
        if text == ";":
            header = []
            in_init_list = False
            continue
        if text == "}":
            if len(stack) > 1:
                stack.pop()
            header = []
            in_init_list = False
            continue
        if text == ":" and top == "class" and len(header) == 1 and \
                header[0][1] in ("public", "private", "protected"):
            header = []
            continue
        if text == "{":
            texts = [t for _, t, _ in header]
            depth = texts.count("(") - texts.count(")")
            if depth > 0:
                stack.append("other")  # f(Foo{...}) in an initializer
                continue
            if in_init_list and header and (
                    header[-1][0] == "ident" or header[-1][1] == ">"):
                stack.append("other")  # a member's braced initializer
                header.append(("punct", "{}", line))
                continue
            named = function_name(header)
            if named is not None:
                stack.append("fn")
                name, index = named
                current = (name, header[index][2], header[0][2])
            elif texts[:1] == ["namespace"] or texts[:1] == ["extern"] or (
                    not texts):
                stack.append("ns" if texts else "other")
            elif any(t in TYPE_KEYWORDS for t in texts):
                stack.append("class")
            else:
                stack.append("other")
            header = []
            in_init_list = False
            continue
        if text == ":" and header and header[-1][1] == ")" and not (
                in_init_list):
            in_init_list = True
        header.append((kind, text, line))
    return found


def reason_above(lines, header_line):
    """Whether the comment block directly above line `header_line` (1-based)
    says why the function is one."""
    i = header_line - 2
    block = []
    while i >= 0:
        stripped = lines[i].strip()
        if stripped.startswith("//") or stripped.startswith("*") or \
                stripped.startswith("/*") or stripped.endswith("*/"):
            block.append(stripped)
            i -= 1
            continue
        break
    return bool(REASON.search(" ".join(block)))


def functions_in(path, text):
    """[(lines, path, line, name, has_reason)] for one file."""
    lines = text.split("\n")
    out = []
    for name, first, last, head in find_functions(text):
        # The reason may sit above the template line or the name's line.
        has_reason = reason_above(lines, head) or reason_above(lines, first)
        out.append((last - first + 1, path, first, name, has_reason))
    return out


def source_files(root):
    listed = subprocess.run(["git", "-C", root, "ls-files"], check=True,
                            capture_output=True, text=True).stdout.split()
    return [p for p in listed
            if p.startswith(FOLDERS) and p.endswith(EXTENSIONS)
            and not re.search(r"(^|/)(build[^/]*|tests?)/", p)]


def all_functions(root):
    out = []
    for path in source_files(root):
        with open(f"{root}/{path}", encoding="utf-8") as f:
            out.extend(functions_in(path, f.read()))
    out.sort(key=lambda f: (-f[0], f[1], f[2]))
    return out


def show(function):
    lines, path, line, name, _ = function
    return f"{lines:5d}  {path}:{line}  {name}"


SNIPPETS = [
    # (source, [(name, first line, last line, has a reason)])
    ("""namespace ik {
namespace {

// A helper.
int Add(int a, int b) {
  if (a) {
    return a + b;
  }
  return b;
}

}  // namespace

absl::StatusOr<Rig> Rig::Create(
    absl::Span<const Joint> joints,
    const Options& options) {
  return Rig();
}
}  // namespace ik
""", [("Add", 5, 10, False), ("Rig::Create", 14, 18, False)]),
    # A template; its reason sits above the template line.
    ("""// Stays ONE function: it shares forty values.
template <bool kAxis>
void SolvePair(const Job& first,
               Status* statuses) {
  const auto x = D2{1.0, 2.0} > 0.5;
  for (int i = 0; i < 2; ++i) {
  }
}
""", [("SolvePair", 3, 8, True)]),
    # A constructor with an initializer list, braced members included.
    ("""Pool::Pool(int threads)
    : threads_(threads),
      queue_{},
      names_{"a{", "b}"} {
  Start();
}
Pool::~Pool() { Stop(); }
""", [("Pool::Pool", 1, 6, False), ("Pool::~Pool", 7, 7, False)]),
    # Methods inside a class, a nested enum, an access specifier, a default
    # member initializer and an operator.
    ("""class Grid {
 public:
  enum class Kind { kA, kB };
  int size() const { return size_; }
  bool operator==(const Grid& other) const {
    return size_ == other.size_;
  }
  void Run()
      const ABSL_LOCKS_EXCLUDED(mu_) {
    Go();
  }

 private:
  std::vector<int> cells_{1, 2};
  int size_ = 0;
};
""", [("size", 4, 4, False), ("operator==", 5, 7, False),
      ("Run", 8, 11, False)]),
    # Initializers and lambdas at namespace scope are not functions;
    # lambdas, strings and comments inside a function do not end it.
    ("""constexpr int kTable[] = {1, 2, 3};
const auto kLess = [](int a, int b) { return a < b; };
ABSL_FLAG(int, port, 0, "the port {");
const Foo kFoo(Bar{1});
extern "C" {
void CFunction(void) {
  auto f = [&](int x) {
    return x;  // }
  };
  const char* s = "}";
  const char* raw = R"(})";
  char c = '}';
  /* } */
}
}
""", [("CFunction", 6, 14, False)]),
    # A trailing return type, a macro before the name and a type keyword
    # in the return type.
    ("""auto Lerp(double a) -> decltype(a) {
  return a;
}
ABSL_ATTRIBUTE_NOINLINE struct Pair MakePair(
    int a) {
  return {a, a};
}
struct Frame {
  int a;
};
""", [("Lerp", 1, 3, False), ("MakePair", 4, 7, False)]),
    # A preprocessor conditional inside a signature and a body.
    ("""#if defined(X)
#define Y {
#endif
inline double Sqrt(double v) {
#if defined(__SSE2__)
  return v;
#else
  return -v;
#endif
}
""", [("Sqrt", 4, 10, False)]),
]


def self_test():
    failures = 0
    for source, expected in SNIPPETS:
        got = [(name, line, line + lines - 1, reason)
               for lines, _, line, name, reason in
               functions_in("snippet.cc", source)]
        if got != expected:
            failures += 1
            print(f"FAIL: expected {expected}\n      got      {got}\n"
                  f"in:\n{source}")
    print("self-test:", "FAILED" if failures else "ok",
          f"({len(SNIPPETS)} snippets)")
    return 1 if failures else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--top", type=int, default=10)
    parser.add_argument("--max", type=int,
                        help="list functions over this many lines without a "
                        "reason; exit 1 if there is one")
    parser.add_argument("--root", help="the repository (default: the one "
                        "holding this script)")
    parser.add_argument("--self-test", action="store_true")
    args = parser.parse_args()
    if args.self_test:
        return self_test()
    root = args.root or subprocess.run(
        ["git", "-C", sys.path[0], "rev-parse", "--show-toplevel"],
        check=True, capture_output=True, text=True).stdout.strip()
    functions = all_functions(root)
    if args.max is None:
        for function in functions[:args.top]:
            print(show(function))
        return 0
    over = [f for f in functions if f[0] > args.max and not f[4]]
    for function in over:
        print(show(function))
    if over:
        print(f"{len(over)} function(s) over {args.max} lines without a "
              "comment above saying why each must be one function")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
