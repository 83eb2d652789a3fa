"""The Python targets of `risec la` (`--emit python --target numpy|dask`), end to end.

Every workload of examples/la/, shrunk to small sizes (each large dimension mapped to a small
one, consistently across the file, sparsity kept), goes through both targets:

* `risec la --bench --target T` checks the plan's module against risec's own dense evaluator
  (float64 inputs it writes), against the plan run by NumPy, and the outputs as written against
  both;
* the modules are imported here and called the ways a user calls them (scipy.sparse matrices
  or dense arrays for sparse inputs, each output's function and `compute`), and must agree
  with the outputs as written.

Run from the repository root after `cargo build --release`, with the venv of README.md:
    .venv/bin/python -m pytest tests/python
`RISEC` names another risec binary.
"""

import importlib.util
import os
import pathlib
import re
import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse as sp

ROOT = pathlib.Path(__file__).resolve().parents[2]
RISEC = os.environ.get("RISEC", str(ROOT / "target" / "release" / "risec"))
# The workloads: every example with an output (identities.la only proves assertions).
WORKLOADS = [
    p for p in sorted((ROOT / "examples" / "la").glob("*.la")) if re.search(r"^output ", p.read_text(), re.M)
]
SMALL = [37, 23, 29, 31, 19, 41, 17, 43]


def shrink(text):
    """The `.la` text with every dimension above 16 mapped to a small size (the same size for
    the same dimension everywhere) and `nnz N` turned into the same share of non-zeros."""
    sizes = {}

    def small(n):
        n = int(n)
        if n <= 16:
            return n
        if n not in sizes:
            sizes[n] = SMALL[len(sizes) % len(SMALL)]
        return sizes[n]

    out = []
    for line in text.splitlines():
        m = re.match(r"^(\s*input\s+\w+\s*:\s*)(\d+)\s*x\s*(\d+)(.*)$", line)
        if m:
            rows, cols = int(m.group(2)), int(m.group(3))
            rest = m.group(4)
            nnz = re.search(r"nnz\s+(\d+)", rest)
            if nnz:
                share = min(1.0, int(nnz.group(1)) / (rows * cols))
                rest = rest[: nnz.start()] + f"sparsity {max(share, 0.05):.4f}" + rest[nnz.end():]
            rest = re.sub(r"sparsity\s+([0-9.e-]+)", lambda s: f"sparsity {max(float(s.group(1)), 0.05):.4f}", rest)
            line = f"{m.group(1)}{small(rows)} x {small(cols)}{rest}"
        out.append(line)
    return "\n".join(out) + "\n"


def risec(*args):
    return subprocess.run([RISEC, "la", *map(str, args)], capture_output=True, text=True, timeout=600)


def load(path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module", params=WORKLOADS, ids=lambda p: p.stem)
def small_la(request, tmp_path_factory):
    path = tmp_path_factory.mktemp(request.param.stem) / request.param.name
    path.write_text(shrink(request.param.read_text()))
    return path


def test_every_workload_is_found():
    assert len(WORKLOADS) >= 6, WORKLOADS


@pytest.mark.parametrize("target", ["numpy", "dask"])
def test_bench_checks_the_plan_against_risecs_evaluator(small_la, target):
    r = risec(small_la, "--bench", "--target", target, "--python", sys.executable, "--rounds", "1")
    assert r.returncode == 0, r.stdout + r.stderr
    line = r.stdout.strip().splitlines()[-1]
    assert line.startswith(f"benchmark ({target}, float32"), line
    assert "as written" in line and "plan" in line, line
    assert "float64 plan agrees with risec's evaluator" in line, line


def dense(a):
    return a.toarray() if sp.issparse(a) else np.asarray(a)


def inputs_of(module, rng, sparse_as):
    args = []
    for name, info in module.INPUTS.items():
        rows, cols = info["shape"]
        dense = rng.uniform(0.5, 1.5, size=(rows, cols))
        if info["sparse"]:
            dense[rng.random((rows, cols)) > max(info["nnz"] / (rows * cols), 0.05)] = 0.0
            args.append(sparse_as(dense))
        else:
            args.append(dense)
    return args


@pytest.mark.parametrize("target", ["numpy", "dask"])
@pytest.mark.parametrize("sparse_as", [sp.csr_matrix, sp.coo_array, np.asarray], ids=["csr_matrix", "coo_array", "dense"])
def test_modules_agree_with_the_outputs_as_written(small_la, target, sparse_as, tmp_path):
    plan_py, original_py = tmp_path / "plan.py", tmp_path / "original.py"
    for extra, path in (([], plan_py), (["--original"], original_py)):
        r = risec(small_la, "--emit", "python", "--target", target, "-o", path, *extra)
        assert r.returncode == 0, r.stderr
    plan, original = load(plan_py), load(original_py)
    assert plan.TARGET == target and list(plan.OUTPUTS) == list(original.OUTPUTS)
    args = inputs_of(plan, np.random.default_rng(1), sparse_as)
    expected = original.compute(*args)
    got = plan.compute(*args)
    # The same kinds of values from both targets: the NumPy plan's.
    numpy_py = tmp_path / "numpy_plan.py"
    assert risec(small_la, "--emit", "python", "-o", numpy_py).returncode == 0
    plan_numpy_types = load(numpy_py).compute(*args)
    for name, shape in plan.OUTPUTS.items():
        value = got[name]
        # An output the plan keeps sparse comes back as CSR, from either target.
        assert isinstance(value, (np.ndarray, sp.csr_array))
        assert type(value) is type(plan_numpy_types[name]), name
        assert value.shape == shape
        value, want = dense(value), dense(expected[name])
        scale = max(1.0, float(np.max(np.abs(want))))
        assert np.max(np.abs(value - want)) <= 1e-9 * scale, name
        alone = dense(getattr(plan, name)(*args))
        assert np.max(np.abs(alone - value)) <= 1e-12 * scale, name


@pytest.mark.parametrize("target", ["numpy", "dask"])
def test_a_wrong_shape_names_the_input(tmp_path, target):
    la = tmp_path / "w.la"
    la.write_text("input A : 4 x 3\ninput B : 3 x 2\noutput C = A %*% B\n")
    r = risec(la, "--emit", "python", "--target", target, "-o", tmp_path / "w.py")
    assert r.returncode == 0, r.stderr
    module = load(tmp_path / "w.py")
    with pytest.raises(ValueError, match="input B: expected shape 3 x 2, got 2 x 3"):
        module.C(np.ones((4, 3)), np.ones((2, 3)))


def test_python_keywords_and_reserved_names_are_renamed(tmp_path):
    la = tmp_path / "k.la"
    la.write_text(
        "input lambda : 3 x 3\ninput _la_t1 : 3 x 3\ninput compute : 3 x 1\n"
        "output class = lambda %*% compute + _la_t1 %*% compute\noutput def = sum(lambda)\n"
    )
    r = risec(la, "--emit", "python", "-o", tmp_path / "k.py")
    assert r.returncode == 0, r.stderr
    module = load(tmp_path / "k.py")
    assert list(module.INPUTS) == ["lambda_", "v_la_t1", "compute_"]
    assert list(module.OUTPUTS) == ["class_", "def_"]
    a, b, c = np.eye(3), 2 * np.eye(3), np.ones((3, 1))
    out = module.compute(a, b, c)
    assert np.allclose(out["class_"], 3 * np.ones((3, 1))) and np.allclose(out["def_"], [[3.0]])
    assert np.allclose(getattr(module, "class_")(lambda_=a, v_la_t1=b, compute_=c), out["class_"])


def test_the_module_goes_to_standard_output_and_the_plan_to_standard_error(tmp_path):
    r = risec(ROOT / "examples" / "la" / "pnmf.la", "--emit", "python")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith('"""The optimised plan of'), r.stdout[:200]
    assert "output s = colSums(W) %*% rowSums(H)" in r.stderr
    compile(r.stdout, "pnmf.py", "exec")


def test_a_python_without_numpy_is_a_clear_error(tmp_path):
    la = tmp_path / "w.la"
    la.write_text("input A : 4 x 3\noutput s = sum(A)\n")
    r = risec(la, "--bench", "--target", "numpy", "--python", "/bin/false")
    assert r.returncode == 1
    assert "error: the Python benchmark failed" in r.stderr or "error:" in r.stderr


def python_blocks():
    """The `sh python` blocks of README.md and docs/*.md: commands that need this venv, which
    `cargo test` (tests/doc_commands.rs) leaves to this test."""
    found = []
    for doc in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        lines = doc.read_text().splitlines()
        i = 0
        while i < len(lines):
            if lines[i].strip() == "```sh python":
                start, body = i + 1, []
                i += 1
                while lines[i].strip() != "```":
                    body.append(lines[i])
                    i += 1
                found.append((f"{doc.name}:{start}", body))
            i += 1
    return found


SETUP = "python3 -m venv .venv && .venv/bin/pip install -r python/requirements.txt"


@pytest.mark.parametrize("at,body", python_blocks(), ids=[at for at, _ in python_blocks()])
def test_documented_python_commands_work_as_written(at, body, tmp_path):
    for d in ["examples", "sketches", "docs", "python"]:
        (tmp_path / d).symlink_to(ROOT / d)
    # The venv the commands name is the one running this test (the README's setup made it).
    (tmp_path / ".venv").symlink_to(pathlib.Path(sys.prefix))
    script = ["set -euo pipefail"]
    for line in body:
        command = line.split(" #")[0].strip()
        # The setup made the venv running this test; the test suite does not run itself.
        if command and not command.startswith("#") and command != SETUP and "-m pytest" not in command:
            script.append(command)
    env = dict(os.environ, PATH=f"{pathlib.Path(RISEC).parent}:{os.environ.get('PATH', '')}")
    r = subprocess.run(["bash", "-c", "\n".join(script)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, f"{at}:\n" + "\n".join(script) + "\n" + r.stdout[-3000:] + r.stderr[-3000:]


def test_documents_have_python_blocks():
    assert len(python_blocks()) >= 2


@pytest.mark.parametrize("target", ["numpy", "dask"])
def test_bench_reads_inputs_from_npy_and_npz_files(tmp_path, target):
    la = tmp_path / "als.la"
    la.write_text("input X : 60 x 20, sparsity 0.1\ninput U : 60 x 4\ninput V : 20 x 4\noutput g = (U %*% t(V) - X) %*% V\n")
    rng = np.random.default_rng(7)
    sp.save_npz(tmp_path / "X.npz", sp.random(60, 20, density=0.1, format="csr", rng=rng))
    np.save(tmp_path / "U.npy", rng.random((60, 4)))
    np.save(tmp_path / "V.npy", rng.random((4, 20)))  # transposed: refused with its shape
    args = [la, "--bench", "--target", target, "--python", sys.executable, "--rounds", "1", "--inputs", tmp_path]
    r = risec(*args)
    assert r.returncode == 1 and "V: expected shape 20 x 4" in r.stderr and "holds 4 x 20" in r.stderr, r.stderr
    np.save(tmp_path / "V.npy", rng.random((20, 4)))
    r = risec(*args)
    assert r.returncode == 0, r.stderr
    assert "plan agrees with NumPy" in r.stdout, r.stdout


@pytest.mark.parametrize("chunk_bytes", [8, 300], ids=["square-blocks", "row-blocks"])
def test_dask_modules_agree_when_inputs_are_cut_into_many_blocks(small_la, chunk_bytes, tmp_path, monkeypatch):
    """Tiny chunks: products sum block products along many blocks of the shared dimension,
    sparse values have blocks in both dimensions, broadcasts meet chunked operands."""
    plan_py, numpy_py = tmp_path / "plan.py", tmp_path / "numpy_original.py"
    assert risec(small_la, "--emit", "python", "--target", "dask", "-o", plan_py).returncode == 0
    assert risec(small_la, "--emit", "python", "--original", "-o", numpy_py).returncode == 0
    plan, original = load(plan_py), load(numpy_py)
    monkeypatch.setattr(plan, "_la_chunk_bytes", lambda: chunk_bytes)
    args = inputs_of(plan, np.random.default_rng(2), sp.csr_array)
    sparse_inputs = [
        plan._la_input(a, n, tuple(i["shape"]), True) for a, (n, i) in zip(args, plan.INPUTS.items()) if i["sparse"]
    ]
    assert all(s.arr.numblocks[0] > 1 for s in sparse_inputs), "the inputs were not cut"
    expected, got = original.compute(*args), plan.compute(*args)
    for name in plan.OUTPUTS:
        want = dense(expected[name])
        scale = max(1.0, float(np.max(np.abs(want))))
        assert np.max(np.abs(got[name] - want)) <= 1e-9 * scale, name


MIXED = """input x : 50 x 1, sparsity 0.2
input A : 50 x 30, nnz 100
input B : 30 x 50, sparsity 0.1
input c : scalar
output s = sum(exp(A) * 2) + c
output v = t(x) %*% A %*% B
output w = abs(A) * t(B) + sqrt(A) / 3
output z = log(rowSums(A %*% B) + 1) * sigmoid(x) - relu(x - 0.5)
"""


@pytest.mark.parametrize("target", ["numpy", "dask"])
def test_sparse_and_dense_outputs_together_each_get_their_own_value(tmp_path, target):
    """A sparse vector and a scalar input, every function, and `compute` returning sparse and
    dense outputs at once (Dask once handed one output's value to another here)."""
    la = tmp_path / "mixed.la"
    la.write_text(MIXED)
    r = risec(la, "--bench", "--target", target, "--python", sys.executable, "--rounds", "1")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "float64 plan agrees with risec's evaluator" in r.stdout, r.stdout
