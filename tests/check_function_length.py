#!/usr/bin/env python3
"""Fails when a function in src/ or apps/ is longer than 100 lines.

A long function is a driver that no longer reads as the algorithm: the
house's rule is that every function is a short list of named steps, and
none passes 100 lines (the entry points of the commands stay near 60).
Counted from the line its signature starts on to its closing brace, for
every function body: free functions, member functions defined in a class or
outside it, in any namespace. Lambdas and blocks count as part of the
function that holds them. Flagged, each with file:line and its length.

  check_function_length.py SOURCE_DIR        check SOURCE_DIR/src, /apps
  check_function_length.py --self-test       plant a long function (free,
                                             member, in a class, in an
                                             anonymous namespace) in a
                                             scratch tree; fail unless each
                                             is caught and short ones pass
"""
import os
import re
import sys
import tempfile

LIMIT = 100
EXTENSIONS = (".cpp", ".hpp", ".cu", ".cuh", ".h")
CONTAINER = re.compile(r"\b(namespace|struct|class|union|enum)\b[^;()]*$")
NOT_A_BODY = re.compile(r"(=|\breturn|\(|,)\s*$")


def code_of(line, in_comment):
    """The line without comments and string contents; whether a /* */
    comment is still open after it."""
    out = []
    i = 0
    while i < len(line):
        if in_comment:
            end = line.find("*/", i)
            if end < 0:
                return "".join(out), True
            i, in_comment = end + 2, False
        elif line.startswith("//", i):
            break
        elif line.startswith("/*", i):
            in_comment, i = True, i + 2
        elif line[i] in "\"'":
            quote, i = line[i], i + 1
            while i < len(line) and line[i] != quote:
                i += 2 if line[i] == "\\" else 1
            out.append(quote * 2)
            i += 1
        else:
            out.append(line[i])
            i += 1
    return "".join(out), in_comment


def functions(text):
    """(first line, length, name) of every function body in `text`: a `{`
    opened where only namespaces and classes are open, after a `)` (the
    parameter list, possibly followed by qualifiers or an initializer
    list)."""
    found = []
    stack = []  # for each open brace: "container", "function" or "block"
    start = None
    head = ""  # the code since the last ; { or } at container level
    head_line = 0
    in_comment = False
    for number, raw in enumerate(text.split("\n"), 1):
        code, in_comment = code_of(raw, in_comment)
        if code.lstrip().startswith("#"):
            continue
        for ch in code:
            at_top = all(kind == "container" for kind in stack)
            if ch == "{":
                if not at_top:
                    stack.append("block")
                elif CONTAINER.search(head):
                    stack.append("container")
                elif ")" in head and not NOT_A_BODY.search(head.rstrip()):
                    stack.append("function")
                    start = (head_line or number, head.strip().split("\n")[0][:60])
                else:
                    stack.append("block")
                head, head_line = "", 0
            elif ch == "}":
                kind = stack.pop() if stack else "block"
                if kind == "function" and start:
                    found.append((start[0], number - start[0] + 1, start[1]))
                    start = None
                head, head_line = "", 0
            elif ch == ";" and at_top:
                head, head_line = "", 0
            elif at_top:
                if not head.strip() and not ch.isspace():
                    head_line = number
                head += ch
        if all(kind == "container" for kind in stack):
            head += "\n"
    return found


def check(root):
    bad = []
    for top in ("src", "apps"):
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for name in sorted(files):
                if not name.endswith(EXTENSIONS):
                    continue
                path = os.path.join(dirpath, name)
                with open(path, encoding="utf-8", errors="replace") as f:
                    text = f.read()
                for line, length, what in functions(text):
                    if length > LIMIT:
                        bad.append(f"{os.path.relpath(path, root)}:{line}: {length} lines "
                                   f"(at most {LIMIT}): {what}")
    return bad


def self_test():
    body = "\n".join(f"  x += {i};" for i in range(LIMIT))
    planted = {
        "free.cpp": f"int f(int x) {{\n{body}\n  return x;\n}}\n",
        "member.cpp": f"int A::f(int x) const {{\n{body}\n  return x;\n}}\n",
        "in_class.hpp": f"struct A {{\n  int f(int x) {{\n{body}\n    return x;\n  }}\n}};\n",
        "anonymous.cpp": f"namespace a {{\nnamespace {{\nint f(\n    int x) {{\n{body}\n  return x;\n}}\n}}\n}}\n",
        "ctor.cpp": f"A::A(int x)\n    : x_(x) {{\n{body}\n}}\n",
    }
    short = ("namespace a {\nconst int table[] = {\n" + ",\n".join(["1"] * 200) + "};\n"
             "struct B { int v[3] = {1, 2, 3}; };\n"
             "int g(int x) {\n  auto h = [&] {\n    return x;\n  };\n  return h();\n}\n"
             "// int long_comment() {\n" + "\n".join(["//"] * 200) + "\n}\n")
    failed = False
    with tempfile.TemporaryDirectory() as root:
        os.makedirs(os.path.join(root, "src"))
        for name, text in planted.items():
            with open(os.path.join(root, "src", name), "w") as f:
                f.write(text)
        with open(os.path.join(root, "src", "short.cpp"), "w") as f:
            f.write(short)
        bad = check(root)
        for name in planted:
            if not any(b.startswith(os.path.join("src", name) + ":") for b in bad):
                print(f"self-test: a long function in {name} was not caught")
                failed = True
        if any(b.startswith(os.path.join("src", "short.cpp")) for b in bad):
            print("self-test: short code was flagged: " + "; ".join(bad))
            failed = True
    if not failed:
        print(f"self-test: every planted function over {LIMIT} lines caught, short code passed")
    return 1 if failed else 0


def main(argv):
    if len(argv) == 2 and argv[1] == "--self-test":
        return self_test()
    if len(argv) != 2:
        print(__doc__)
        return 2
    bad = check(argv[1])
    for b in bad:
        print(b)
    if bad:
        print(f"check_function_length: {len(bad)} function(s) over {LIMIT} lines; split them "
              "into named steps")
        return 1
    print(f"check_function_length: every function in src/ and apps/ is at most {LIMIT} lines")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
