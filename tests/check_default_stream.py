#!/usr/bin/env python3
"""Fails when CUDA code in src/ uses the legacy default stream.

hplx orders all device work on its own non-blocking streams (the device
layer's queues): work on the legacy default stream (stream 0) would wait
for, and hold up, every other stream of the device, silently serializing
the look-ahead and the panel queue. Flagged, each with file:line:

  - a kernel launch <<<grid, block>>> or <<<grid, block, shmem>>> (no stream);
  - a synchronous copy or fill: cudaMemcpy*, cudaMemset* without Async;
  - cudaMemcpyAsync, cudaMemsetAsync, cudaMemcpy2DAsync, cudaMemset2DAsync,
    cudaMallocAsync, cudaFreeAsync, cudaEventRecord, cudaLaunchHostFunc with
    the stream left out (it defaults to 0) or given as 0, NULL, nullptr;
  - cudaStreamSynchronize(0 / NULL / nullptr), cudaStreamLegacy,
    cudaStreamPerThread, cudaDeviceSynchronize (waits for every stream);
  - a file that creates a cuBLAS handle (cublasCreate) and never calls
    cublasSetStream (a handle's default stream is the legacy one).

  check_default_stream.py SOURCE_DIR        check SOURCE_DIR/src
  check_default_stream.py --self-test       plant each violation in a
                                            scratch tree; fail unless each
                                            is caught and clean code passes
"""
import os
import re
import sys
import tempfile

EXTENSIONS = (".cu", ".cuh", ".cpp", ".hpp", ".h", ".cc")

# name -> (argument count with the stream, index of the stream argument)
STREAM_ARG = {
    "cudaMemcpyAsync": (5, 4),
    "cudaMemcpy2DAsync": (8, 7),
    "cudaMemcpyPeerAsync": (6, 5),
    "cudaMemsetAsync": (4, 3),
    "cudaMemset2DAsync": (6, 5),
    "cudaMallocAsync": (3, 2),
    "cudaFreeAsync": (2, 1),
    "cudaEventRecord": (2, 1),
    "cudaEventRecordWithFlags": (3, 1),
    "cudaLaunchHostFunc": (3, 0),
    "cudaStreamSynchronize": (1, 0),
    "cudaStreamWaitEvent": (3, 0),
}
NULL_STREAM = {"0", "NULL", "nullptr", "cudaStreamLegacy", "cudaStreamPerThread", "0ULL", "0L"}
BANNED_NAMES = re.compile(r"\b(cudaStreamLegacy|cudaStreamPerThread|cudaDeviceSynchronize)\b")
SYNC_COPY = re.compile(r"\b(cudaMemcpy\w*|cudaMemset\w*)\s*\(")


def strip_comments_and_strings(text):
    """Blanks comments and string literals, keeping line breaks."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == '"' or c == "'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(c + re.sub(r"[^\n]", " ", text[i + 1:j - 1]) + c)
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def split_args(text, start):
    """Arguments of the call whose '(' is at text[start]; (args, end)."""
    depth, args, cur, i = 0, [], [], start
    while i < len(text):
        c = text[i]
        if c in "([{":
            depth += 1
            if depth > 1:
                cur.append(c)
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                args.append("".join(cur).strip())
                return [a for a in args if a != ""] if args != [""] else [], i
            cur.append(c)
        elif c == "," and depth == 1:
            args.append("".join(cur).strip())
            cur = []
        else:
            cur.append(c)
        i += 1
    return args, i


def line_of(text, pos):
    return text.count("\n", 0, pos) + 1


def check_file(path, shown):
    raw = open(path, encoding="utf-8", errors="replace").read()
    text = strip_comments_and_strings(raw)
    problems = []

    def bad(pos, what):
        problems.append(f"{shown}:{line_of(text, pos)}: {what}")

    for m in re.finditer(r"<<<(.*?)>>>", text, re.S):
        depth, commas = 0, 0
        for c in m.group(1):
            if c in "([{<":
                depth += 1
            elif c in ")]}>":
                depth -= 1
            elif c == "," and depth == 0:
                commas += 1
        if commas < 3:
            bad(m.start(), "kernel launch without a stream (<<<grid, block[, shmem]>>> runs on "
                           "the legacy default stream): pass the queue's stream")
        else:
            stream = m.group(1).rsplit(",", 1)[1].strip()
            if stream in NULL_STREAM:
                bad(m.start(), f"kernel launch on stream {stream}: pass the queue's stream")
    for m in SYNC_COPY.finditer(text):
        name = m.group(1)
        if not name.endswith("Async"):
            bad(m.start(), f"{name} is synchronous on the legacy default stream: use "
                           f"{name}Async on the queue's stream")
    for m in re.finditer(r"\b(" + "|".join(STREAM_ARG) + r")\s*\(", text):
        name = m.group(1)
        args, _ = split_args(text, m.end() - 1)
        want, at = STREAM_ARG[name]
        if len(args) < want and name not in ("cudaStreamWaitEvent",):
            bad(m.start(), f"{name} without its stream argument (it defaults to the legacy "
                           f"default stream)")
        elif len(args) > at and args[at] in NULL_STREAM:
            bad(m.start(), f"{name} on stream {args[at]} (the legacy default stream)")
    for m in BANNED_NAMES.finditer(text):
        bad(m.start(), f"{m.group(1)}: hplx orders work on its own streams only")
    creates = len(re.findall(r"\bcublasCreate(_v2)?\s*\(", text))
    sets = len(re.findall(r"\bcublasSetStream(_v2)?\s*\(", text))
    if creates > sets:
        m = re.search(r"\bcublasCreate(_v2)?\s*\(", text)
        bad(m.start(), "a cuBLAS handle without cublasSetStream runs on the legacy default stream")
    return problems


def check_tree(root):
    problems, files = [], 0
    src = os.path.join(root, "src")
    for dirpath, _, names in sorted(os.walk(src)):
        for name in sorted(names):
            if name.endswith(EXTENSIONS):
                path = os.path.join(dirpath, name)
                text = open(path, encoding="utf-8", errors="replace").read()
                if "cuda" not in text and "cublas" not in text and "<<<" not in text:
                    continue
                files += 1
                problems += check_file(path, os.path.relpath(path, root))
    return problems, files


CLEAN = """
#include <cuda_runtime.h>
// cudaMemcpy(a, b, n, k) in a comment is fine, and so is "cudaMemset(" in a string.
void f(cudaStream_t s, double* d, const double* h, size_t n, cublasHandle_t* blas) {
  kernel<<<blocks, 256, 0, s>>>(n, d);
  templ<Body><<<grid(n), threads(n, 2), shared_bytes, s>>>(n);
  cudaMemcpyAsync(d, h, n, cudaMemcpyDefault, s);
  cudaMemsetAsync(d, 0, n, s);
  cudaStreamSynchronize(s);
  cudaEventRecord(e, s);
  cublasCreate(blas);
  cublasSetStream(*blas, s);
  const char* msg = "cudaMemcpy( cudaStreamLegacy";
}
"""
PLANTED = {
    "launch without a stream": "k<<<blocks, 256>>>(n, d);",
    "launch with shared memory, no stream": "k<<<blocks, 256, 1024>>>(n, d);",
    "launch on stream 0": "k<<<blocks, 256, 0, 0>>>(n, d);",
    "synchronous copy": "cudaMemcpy(d, h, n, cudaMemcpyHostToDevice);",
    "synchronous 2D copy": "cudaMemcpy2D(d, 8, h, 8, 8, n, cudaMemcpyDefault);",
    "synchronous fill": "cudaMemset(d, 0, n);",
    "async copy, stream left out": "cudaMemcpyAsync(d, h, n, cudaMemcpyDefault);",
    "async fill on nullptr": "cudaMemsetAsync(d, 0, n, nullptr);",
    "event on the default stream": "cudaEventRecord(e);",
    "synchronize stream 0": "cudaStreamSynchronize(0);",
    "legacy stream by name": "cudaMemcpyAsync(d, h, n, cudaMemcpyDefault, cudaStreamLegacy);",
    "device-wide synchronize": "cudaDeviceSynchronize();",
    "cuBLAS handle without a stream": "cublasHandle_t h; cublasCreate(&h);",
}


def self_test():
    failures = []
    with tempfile.TemporaryDirectory() as root:
        os.makedirs(os.path.join(root, "src", "device"))
        path = os.path.join(root, "src", "device", "planted.cu")
        open(path, "w").write(CLEAN)
        problems, _ = check_tree(root)
        if problems:
            failures.append("clean code flagged: " + "; ".join(problems))
        for what, line in PLANTED.items():
            open(path, "w").write(CLEAN.replace("void f(", "void g() {\n  " + line + "\n}\nvoid f("))
            problems, _ = check_tree(root)
            if not problems:
                failures.append(f"not caught: {what}: {line}")
            elif not all(":5:" in p for p in problems):
                failures.append(f"{what}: wrong line: {problems}")
    for f in failures:
        print("self-test:", f)
    print(f"self-test: {len(PLANTED)} planted violations, {len(failures)} failure(s)")
    return 1 if failures else 0


def main():
    if len(sys.argv) == 2 and sys.argv[1] == "--self-test":
        return self_test()
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    problems, files = check_tree(sys.argv[1])
    for p in problems:
        print(p)
    print(f"{files} file(s) with CUDA calls checked, {len(problems)} default-stream use(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
