#!/usr/bin/env python3
"""Compare `risec la --bench` with numpy/scipy on the `.la` workloads (SPORES, docs/la.md).

For each workload this script

1. parses the `.la` file (`input`, `let`, `output` lines);
2. translates the outputs *as written* to numpy/scipy the way a user would write them
   (float32; dense inputs uniform in [0.5, 1.5); sparse inputs as scipy CSR with the declared
   density and values in [0.5, 1.5)), and times them: median of `--rounds` calls after one
   warm-up; the lets are computed once per call, the outputs together;
3. checks the float32 numpy result against the same code run on float64 copies of the inputs
   (relative Frobenius difference; a sanity check of the translation, not of risec);
4. runs `RISEC FILE --bench --rounds R` and reads the plan, the estimated cost and risec's
   C timings (the outputs as written and the plan, compiled to C by risec);
5. prints a Markdown table, the machine, the numpy/scipy versions and the Python code timed.

Python is only needed for this comparison; risec itself needs none.

Set up (once):

    python3 -m venv /tmp/la_venv && /tmp/la_venv/bin/pip install numpy scipy

Run (from the repository root; default: all six workloads in examples/la):

    cargo build --release
    /tmp/la_venv/bin/python benches/la_vs_numpy.py --risec target/release/risec
    /tmp/la_venv/bin/python benches/la_vs_numpy.py --risec target/release/risec \
        --rounds 3 examples/la/pnmf.la examples/la/mlr.la

`--risec` is a command line (split like a shell would); when it does not end in `la`, `la` is
appended, so both `target/release/risec` and the default `cargo run --release -q -- la` work.
The `loss` and `als` originals build a dense 20000 x 5000 product: about 1-2 s a call and
~2 GB of memory, in risec's C and in numpy alike.
"""

import argparse
import keyword
import os
import platform
import re
import shlex
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import scipy
import scipy.sparse as sp

REPO = Path(__file__).resolve().parent.parent
DEFAULT_WORKLOADS = ["loss", "als", "pnmf", "mlr", "glm", "l2svm"]

# --------------------------------------------------------------------------------------------
# Parsing `.la` files


class Input:
    def __init__(self, name, rows, cols, density):
        self.name, self.rows, self.cols, self.density = name, rows, cols, density

    @property
    def scalar(self):
        return self.rows is None

    @property
    def sparse(self):
        return self.density is not None


INPUT_RE = re.compile(
    r"^input\s+(\w+)\s*:\s*(?:(scalar)|(\d+)\s*x\s*(\d+))"
    r"(?:\s*,\s*(?:nnz\s+([0-9.eE+]+)|sparsity\s+([0-9.eE+-]+)))?\s*$"
)
DEF_RE = re.compile(r"^(let|output)\s+(\w+)\s*=\s*(.+)$")


def parse_la(path):
    inputs, defs = [], []  # defs: (kind, name, expression text) in file order
    for lineno, raw in enumerate(Path(path).read_text().splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        m = INPUT_RE.match(line)
        if m:
            name, is_scalar, rows, cols, nnz, sparsity = m.groups()
            if is_scalar:
                inputs.append(Input(name, None, None, None))
                continue
            rows, cols = int(rows), int(cols)
            density = None
            if nnz is not None:
                density = float(nnz) / (rows * cols)
            elif sparsity is not None:
                density = float(sparsity)
            inputs.append(Input(name, rows, cols, density))
            continue
        m = DEF_RE.match(line)
        if m:
            defs.append(m.groups())
            continue
        if line.startswith("assert"):
            continue  # proofs are not benchmarked
        raise SystemExit(f"{path}:{lineno}: cannot read `{raw}`")
    return inputs, defs


# --------------------------------------------------------------------------------------------
# Expressions: a small precedence-climbing parser (the grammar of docs/la.md) and a translator
# to numpy/scipy source that tracks whether each value is a scalar, dense or sparse.

TOKEN_RE = re.compile(r"\s*(%\*%|[0-9]+\.?[0-9]*(?:[eE][+-]?[0-9]+)?|\.[0-9]+|\w+|[-+*/^@()])")


def tokenize(text):
    pos, out = 0, []
    text = text.rstrip()
    while pos < len(text):
        m = TOKEN_RE.match(text, pos)
        if not m:
            raise SyntaxError(f"bad token at {text[pos:]!r}")
        out.append(m.group(1))
        pos = m.end()
    return out


class Parser:
    # Loosest to tightest: + -, * /, %*% @, unary -, ^, application / atom.
    def __init__(self, text):
        self.toks, self.i = tokenize(text), 0

    def peek(self):
        return self.toks[self.i] if self.i < len(self.toks) else None

    def eat(self, tok=None):
        t = self.peek()
        if tok is not None and t != tok:
            raise SyntaxError(f"expected {tok!r}, found {t!r}")
        self.i += 1
        return t

    def parse(self):
        e = self.additive()
        if self.peek() is not None:
            raise SyntaxError(f"trailing {self.peek()!r}")
        return e

    def additive(self):
        e = self.multiplicative()
        while self.peek() in ("+", "-"):
            e = (self.eat(), e, self.multiplicative())
        return e

    def multiplicative(self):
        e = self.matmul()
        while self.peek() in ("*", "/"):
            e = (self.eat(), e, self.matmul())
        return e

    def matmul(self):
        e = self.unary()
        while self.peek() in ("%*%", "@"):
            self.eat()
            e = ("@", e, self.unary())
        return e

    def unary(self):
        if self.peek() == "-":
            self.eat()
            return ("neg", self.unary())
        return self.power()

    def power(self):
        e = self.atom()
        if self.peek() == "^":
            self.eat()
            neg = self.peek() == "-"
            if neg:
                self.eat()
            n = float(self.eat())
            e = ("^", e, -n if neg else n)
        return e

    def atom(self):
        t = self.eat()
        if t == "(":
            e = self.additive()
            self.eat(")")
            return e
        if re.match(r"^[0-9.]", t):
            return ("num", float(t))
        if self.peek() == "(":
            self.eat("(")
            arg = self.additive()
            self.eat(")")
            return ("call", t, arg)
        return ("var", t)


SCALAR, DENSE, SPARSE = "scalar", "dense", "sparse"


def fmt_num(x):
    return repr(float(x))


def py(name):
    """A `.la` name as a Python identifier (`lambda` is a keyword; `np`, `sp`, `max` are taken)."""
    return name + "_" if keyword.iskeyword(name) or name in ("np", "sp", "max") else name


def translate(e, kinds):
    """Returns (python source, kind) for expression tree `e`; `kinds` maps names to kinds."""
    tag = e[0]
    if tag == "num":
        return fmt_num(e[1]), SCALAR
    if tag == "var":
        return py(e[1]), kinds[e[1]]
    if tag == "neg":
        s, k = translate(e[1], kinds)
        return f"(-{s})", k
    if tag == "^":
        s, k = translate(e[1], kinds)
        n = e[2]
        if k == SPARSE:
            if n == 2:
                return f"{s}.power(2)", SPARSE
            s, k = f"{s}.toarray()", DENSE
        if n == 2:
            return (f"np.square({s})" if k == DENSE else f"({s} ** 2)"), k
        if n == 0.5:
            return f"np.sqrt({s})", k
        if n == int(n):
            return f"({s} ** {int(n)})", k
        return f"({s} ** {n!r})", k
    if tag == "call":
        f, (s, k) = e[1], translate(e[2], kinds)
        if f == "t":
            return (s if k == SCALAR else f"{s}.T"), k
        if f == "sum":
            return (s if k == SCALAR else f"{s}.sum()"), SCALAR
        if f in ("rowSums", "colSums"):
            axis = 1 if f == "rowSums" else 0
            if k == SCALAR:
                return s, SCALAR
            if k == SPARSE:  # a 2-D np.matrix: make it an ndarray column / row
                return f"np.asarray({s}.sum(axis={axis}))", DENSE
            return f"{s}.sum(axis={axis}, keepdims=True)", DENSE
        if f == "relu":
            if k == SPARSE:
                return f"{s}.maximum(0)", SPARSE
            return (f"np.maximum({s}, 0)" if k == DENSE else f"max({s}, 0.0)"), k
        if f in ("exp", "log", "sqrt", "abs"):
            if k == SPARSE and f in ("sqrt", "abs"):
                return f"{s}.{'sqrt' if f == 'sqrt' else '__abs__'}()", SPARSE
            if k == SPARSE:
                s = f"{s}.toarray()"
            return f"np.{f}({s})", (SCALAR if k == SCALAR else DENSE)
        if f == "sigmoid":
            if k == SPARSE:
                s = f"{s}.toarray()"
            return f"(1.0 / (1.0 + np.exp(-{s})))", (SCALAR if k == SCALAR else DENSE)
        raise SyntaxError(f"unknown function {f}")
    op = tag
    (a, ka), (b, kb) = translate(e[1], kinds), translate(e[2], kinds)
    if op == "@":
        if SCALAR in (ka, kb):
            return f"({a} * {b})", (kb if ka == SCALAR else ka)
        if ka == DENSE and kb == SPARSE:
            return f"np.asarray({a} @ {b})", DENSE
        return f"({a} @ {b})", (SPARSE if ka == kb == SPARSE else DENSE)
    if op == "*":
        if ka == SPARSE and kb == SPARSE:
            return f"{a}.multiply({b})", SPARSE
        if ka == SPARSE and kb == DENSE:  # sparse ⊙ dense (broadcasts columns / rows)
            return f"{a}.multiply({b})", SPARSE
        if ka == DENSE and kb == SPARSE:
            return f"{b}.multiply({a})", SPARSE
        return f"({a} * {b})", (DENSE if DENSE in (ka, kb) else SPARSE if SPARSE in (ka, kb) else SCALAR)
    if op == "/":
        if kb == SCALAR:
            return f"({a} / {b})", ka
        if ka == SPARSE:
            return f"{a}.multiply(1.0 / {b})", SPARSE
        if kb == SPARSE:
            b = f"{b}.toarray()"
        return f"({a} / {b})", DENSE
    if op in ("+", "-"):
        if ka == kb == SPARSE:
            return f"({a} {op} {b})", SPARSE
        if SPARSE in (ka, kb):
            if SCALAR in (ka, kb):  # scipy cannot add a non-zero scalar to a sparse matrix
                a = f"{a}.toarray()" if ka == SPARSE else a
                b = f"{b}.toarray()" if kb == SPARSE else b
                return f"({a} {op} {b})", DENSE
            return f"np.asarray({a} {op} {b})", DENSE  # sparse ± dense is a dense np.matrix
        return f"({a} {op} {b})", (SCALAR if ka == kb == SCALAR else DENSE)
    raise SyntaxError(f"unknown operator {op}")


def build_program(inputs, defs):
    kinds = {i.name: SCALAR if i.scalar else SPARSE if i.sparse else DENSE for i in inputs}
    lines, outputs = [], []
    for kind, name, text in defs:
        src, k = translate(Parser(text).parse(), kinds)
        kinds[name] = k
        lines.append(f"{py(name)} = {src}")
        if kind == "output":
            outputs.append(name)
    args = ", ".join(py(i.name) for i in inputs)
    body = "\n".join("    " + ln for ln in lines)
    code = f"def run({args}):\n{body}\n    return ({', '.join(py(o) for o in outputs)},)\n"
    env = {"np": np, "sp": sp}
    exec(compile(code, "<la>", "exec"), env)
    return env["run"], code, outputs


# --------------------------------------------------------------------------------------------
# Inputs, timing, comparison


def make_inputs(inputs, seed):
    rng = np.random.default_rng(seed)
    vals = {}
    for i in inputs:
        if i.scalar:
            vals[i.name] = float(rng.uniform(0.5, 1.5))
        elif i.sparse:
            total = i.rows * i.cols
            nnz = max(1, min(total, int(round(i.density * total))))
            flat = np.sort(rng.choice(total, size=nnz, replace=False))
            data = rng.uniform(0.5, 1.5, nnz).astype(np.float32)
            m = sp.csr_matrix((data, (flat // i.cols, flat % i.cols)), shape=(i.rows, i.cols))
            m.sum_duplicates()
            vals[i.name] = m
        else:
            vals[i.name] = rng.uniform(0.5, 1.5, (i.rows, i.cols)).astype(np.float32)
    return vals


def to64(v):
    if isinstance(v, float):
        return v
    return v.astype(np.float64)


def time_program(run, args, rounds):
    run(*args)  # warm-up
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        run(*args)
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def rel_diff(x, ref):
    """Relative Frobenius difference of x (float32 result) against ref (float64 result)."""
    if sp.issparse(x) or sp.issparse(ref):
        d = (sp.csr_matrix(x).astype(np.float64) - sp.csr_matrix(ref)).tocsr()
        num = np.sqrt(d.multiply(d).sum())
        r = sp.csr_matrix(ref)
        den = np.sqrt(r.multiply(r).sum())
    else:
        x64, r = np.asarray(x, dtype=np.float64), np.asarray(ref, dtype=np.float64)
        num, den = np.linalg.norm(x64 - r), np.linalg.norm(r)
    return float(num / den) if den else float(num)


# --------------------------------------------------------------------------------------------
# risec

BENCH_RE = re.compile(
    r"benchmark \(risec C, median of (\d+) calls\): as written ([0-9.]+) ms, plan ([0-9.]+) ms, "
    r"speed-up ([0-9.]+)x(?: \(outputs agree within ([^)]*)\))?"
)
COST_RE = re.compile(r"estimated cost: (\S+) -> (\S+)")


def run_risec(risec, path, rounds):
    cmd = shlex.split(risec)
    if cmd[-1] != "la":
        cmd.append("la")
    cmd += [str(path), "--bench", "--rounds", str(rounds)]
    p = subprocess.run(cmd, capture_output=True, text=True, cwd=REPO)
    if p.returncode != 0:
        raise SystemExit(f"`{shlex.join(cmd)}` failed ({p.returncode}):\n{p.stdout}\n{p.stderr}")
    text = p.stdout + "\n" + p.stderr
    plan = [ln.strip() for ln in p.stdout.splitlines() if ln.startswith(("let ", "output "))]
    cost = COST_RE.search(text)
    bench = BENCH_RE.search(text)
    if not bench:
        raise SystemExit(f"no benchmark line in risec's output:\n{text}")
    return {
        "plan": plan,
        "cost": f"{cost.group(1)} -> {cost.group(2)}" if cost else "?",
        "orig_ms": float(bench.group(2)),
        "plan_ms": float(bench.group(3)),
        "speedup": float(bench.group(4)),
        "agree": bench.group(5) or "",
        "stderr": [ln for ln in p.stderr.splitlines() if ln.strip()],
    }


# --------------------------------------------------------------------------------------------


def resolve(w):
    p = Path(w)
    if p.exists():
        return p.resolve()
    q = REPO / "examples" / "la" / (w if w.endswith(".la") else w + ".la")
    if q.exists():
        return q
    raise SystemExit(f"no workload {w}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("workloads", nargs="*", help="`.la` files or names in examples/la")
    ap.add_argument("--risec", default="cargo run --release -q -- la",
                    help="risec command line (default: %(default)s)")
    ap.add_argument("--rounds", type=int, default=5, help="timed calls, median (default 5)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--no-check", action="store_true", help="skip the float64 sanity check")
    args = ap.parse_args()
    workloads = [resolve(w) for w in (args.workloads or DEFAULT_WORKLOADS)]

    rows, checks, codes = [], [], []
    for path in workloads:
        name = path.stem
        print(f"[{name}] numpy/scipy ...", file=sys.stderr, flush=True)
        inputs, defs = parse_la(path)
        run, code, outputs = build_program(inputs, defs)
        vals = make_inputs(inputs, args.seed)
        argv = [vals[i.name] for i in inputs]
        np_ms = time_program(run, argv, args.rounds)
        if not args.no_check:
            r32 = run(*argv)
            r64 = run(*[to64(v) for v in argv])
            checks.append((name, [(o, rel_diff(a, b)) for o, a, b in zip(outputs, r32, r64)]))
            del r32, r64
        del vals, argv
        codes.append((name, code))
        print(f"[{name}] risec ...", file=sys.stderr, flush=True)
        r = run_risec(args.risec, path, args.rounds)
        rows.append((name, r, np_ms))

    print("# risec la vs numpy/scipy\n")
    nproc = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    print(f"machine: {platform.machine()}, {nproc} cores ({platform.processor() or platform.system()}); "
          f"Python {platform.python_version()}, numpy {np.__version__}, scipy {scipy.__version__}; "
          f"median of {args.rounds} calls after one warm-up; float32.\n")
    print("| workload | plan | estimated cost (orig -> plan) | risec C as written (ms) | "
          "risec C plan (ms) | speed-up | numpy/scipy as written (ms) | plan vs numpy |")
    print("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: |")
    for name, r, np_ms in rows:
        plan = "; ".join(f"`{p}`" for p in r["plan"])
        vs = np_ms / r["plan_ms"] if r["plan_ms"] > 0 else float("inf")
        print(f"| {name} | {plan} | {r['cost']} | {r['orig_ms']:.3f} | {r['plan_ms']:.3f} | "
              f"{r['speedup']:.1f}x | {np_ms:.3f} | {vs:.1f}x |")
    print("\n`plan vs numpy` is numpy/scipy's time for the outputs as written divided by the time "
          "of risec's C plan (above 1: the plan is faster).\n")
    notes = [(n, r["agree"], r["stderr"]) for n, r, _ in rows]
    print("risec's own check (plan vs as written, in C):", ", ".join(
        f"{n} {a or '?'}" for n, a, _ in notes) + "\n")
    if checks:
        print("numpy float32 vs float64 (same inputs, relative Frobenius difference):\n")
        for name, cs in checks:
            print(f"- {name}: " + ", ".join(f"{o} {d:.1e}" for o, d in cs))
        print()
    print("numpy/scipy code timed:\n")
    print("```python")
    for name, code in codes:
        print(f"# {name}\n{code}")
    print("```")


if __name__ == "__main__":
    main()
