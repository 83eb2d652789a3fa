"""Benchmark driver of `risec la --bench --target numpy|dask` (generated into a temporary
directory with the modules it times; not meant to be run by hand).

Loads the plan's module and the outputs as written (both for the target) and the plan for
NumPy (the reference), then:
1. with --check-inputs DIR: evaluates the plan on the float64 inputs DIR/NAME.npy (sparse
   ones converted to CSR) and saves each output as DIR/out_NAME.npy for risec to compare with
   its own evaluator;
2. reads the inputs from --inputs DIR (NAME.npy, or NAME.npz as scipy.sparse.save_npz writes
   it) or makes random ones of the declared shapes (dense uniform in [0.5, 1.5), sparse CSR
   with the declared non-zeros in random places), as float32, evaluates the reference once, then times
   the plan and the outputs as written (median of --rounds calls after one warm-up), and checks
   each against the reference. On a LocalCluster the inputs are saved block by block and each
   task loads its block (on a remote scheduler they are scattered to the workers first), and
   the outputs as written stop at --original-timeout seconds.
Prints one line per fact (`VERSION`, `CHECKED`, `ERROR`, `TIME`, `FAIL`, `PROGRESS`), which
risec reads.
"""
import argparse
import importlib.util
import statistics
import sys
import time


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def say(*words):
    print(*words, flush=True)


def dense(a):
    import numpy as np

    return np.asarray(a.toarray() if hasattr(a, "toarray") else a)


def rel_error(expected, got):
    import numpy as np

    expected, got = dense(expected), dense(got)
    scale = max(float(np.max(np.abs(expected))) if expected.size else 0.0, 1e-30)
    if expected.shape != got.shape:
        return float("inf")
    return float(np.max(np.abs(expected.astype(np.float64) - got.astype(np.float64)))) / scale


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--plan", required=True)
    p.add_argument("--original", required=True)
    p.add_argument("--reference", required=True)
    p.add_argument("--target", choices=["numpy", "dask"], required=True)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--check-inputs")
    p.add_argument("--inputs")
    p.add_argument("--scheduler")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--worker-memory")
    p.add_argument("--skip-original", action="store_true")
    p.add_argument("--original-timeout", type=float, default=300.0)
    a = p.parse_args()
    try:
        import numpy as np
        import scipy
        import scipy.sparse as sp
    except ImportError as e:
        say("FAIL python", f"{sys.executable} cannot import numpy and scipy ({e})")
        return 3
    versions = f"numpy {np.__version__}, scipy {scipy.__version__}"
    client = None
    if a.target == "dask":
        try:
            import dask
            from distributed import Client, LocalCluster
        except ImportError as e:
            say("FAIL python", f"{sys.executable} cannot import dask and distributed ({e})")
            return 3
        if a.scheduler:
            client = Client(a.scheduler)
            where = f"the scheduler at {a.scheduler}"
        else:
            cluster = LocalCluster(
                n_workers=a.workers,
                threads_per_worker=1,
                memory_limit=a.worker_memory or "auto",
                dashboard_address=None,
                processes=True,
            )
            client = Client(cluster)
            limits = [w["memory_limit"] for w in client.scheduler_info()["workers"].values()]
            where = f"a LocalCluster of {a.workers} workers, {min(limits) / 2**20:.0f} MiB each"
        versions += f", dask {dask.__version__}, {where}"
    say("VERSION", versions)
    plan = load(a.plan, "risec_plan")
    original = load(a.original, "risec_original")
    reference = load(a.reference, "risec_reference")
    names = list(plan.INPUTS)

    if a.check_inputs:
        import os

        args = []
        for name in names:
            v = np.load(os.path.join(a.check_inputs, f"{name}.npy"))
            args.append(sp.csr_array(v) if plan.INPUTS[name]["sparse"] else v)
        for name, value in plan.compute(*args).items():
            np.save(os.path.join(a.check_inputs, f"out_{name}.npy"), dense(value).astype(np.float64))
        say("CHECKED")

    started = time.perf_counter()
    rng = np.random.default_rng(a.seed)
    args = []
    if a.inputs:
        import os

        for name in names:
            npy, npz = (os.path.join(a.inputs, f"{name}.{ext}") for ext in ("npy", "npz"))
            if os.path.exists(npz):
                value = sp.load_npz(npz)
            elif os.path.exists(npy):
                value = np.load(npy)
            else:
                say("FAIL inputs", f"no {name}.npy or {name}.npz in {a.inputs}")
                return 2
            info = plan.INPUTS[name]
            if tuple(value.shape) != tuple(info["shape"]):
                shape = " x ".join(map(str, value.shape))
                say("FAIL inputs", f"{name}: expected shape {info['shape'][0]} x {info['shape'][1]}, {npz if sp.issparse(value) else npy} holds {shape}")
                return 2
            value = sp.csr_array(value, dtype=np.float32) if info["sparse"] else np.asarray(dense(value), dtype=np.float32)
            args.append(value)
    for name in names if not a.inputs else []:
        info = plan.INPUTS[name]
        rows, cols = info["shape"]
        if info["sparse"]:
            nnz = min(int(info["nnz"]), rows * cols)
            if rows * cols < 2**26:
                flat = rng.choice(rows * cols, size=nnz, replace=False)
                data = rng.uniform(0.5, 1.5, size=flat.size).astype(np.float32)
                m = sp.csr_array((data, (flat // cols, flat % cols)), shape=(rows, cols))
                m.sort_indices()  # canonical, as scipy.sparse.random and most loaders make it
                args.append(m)
            else:
                # Large: CSR made directly (a global sort of 10^8 positions takes minutes), each
                # row with its share of the non-zeros in random columns, sorted within rows (a
                # repeated column, rare at these sizes, is a legal CSR entry scipy adds up).
                counts = np.full(rows, nnz // rows, dtype=np.int64)
                counts[: nnz % rows] += 1
                indptr = np.concatenate(([0], np.cumsum(counts)))
                indices = rng.integers(0, cols, size=nnz, dtype=np.int32)
                data = rng.uniform(0.5, 1.5, size=nnz).astype(np.float32)
                m = sp.csr_array((data, indices, indptr), shape=(rows, cols))
                m.sort_indices()
                args.append(m)
        else:
            args.append(rng.uniform(0.5, 1.5, size=(rows, cols)).astype(np.float32))
    say("PROGRESS inputs", f"{time.perf_counter() - started:.1f}")
    expected = reference.compute(*args)
    say("PROGRESS reference", f"{time.perf_counter() - started:.1f}")
    if client is not None and a.target == "dask":
        if a.scheduler:
            # A remote cluster: the inputs chunked and scattered to the workers once.
            placed = []
            for name, v in zip(names, args):
                info = plan.INPUTS[name]
                x = plan._la_input(v, name, tuple(info["shape"]), info["sparse"])
                placed.append(x.arr.persist() if isinstance(x, plan._LaSparse) else x.persist())
            from distributed import wait

            wait(placed)
        else:
            # A LocalCluster: the inputs saved block by block, each task loading its block
            # (inputs larger than a worker's memory cannot be sent to it from here).
            import os

            folder = os.path.abspath("blocks")
            os.makedirs(folder, exist_ok=True)
            placed = []
            for name, v in zip(names, args):
                x = plan._la_blocks_on_disk(v, name, plan.INPUTS[name]["sparse"], folder)
                placed.append(x.arr if isinstance(x, plan._LaSparse) else x)
        args = placed
        say("PROGRESS placed")

    def timed(module, label):
        times, out, r = [], None, 0
        while len(times) < a.rounds:
            t0 = time.perf_counter()
            out = module.compute(*args)
            ms = (time.perf_counter() - t0) * 1e3
            # The first call warms up, unless it took seconds: then it counts.
            if r > 0 or ms > 5000:
                times.append(ms)
            r += 1
            say("PROGRESS", label, r)
        err = max(rel_error(expected[k], out[k]) for k in expected)
        say("ERROR", label, f"{err:.3e}")
        say("TIME", label, f"{statistics.median(times):.4f}")

    timed(plan, "plan")
    if not a.skip_original:
        if client is None:
            try:
                timed(original, "original")
            except MemoryError as e:
                say("FAIL original", f"MemoryError: {e}"[:300])
        else:
            # On a cluster the outputs as written may not fit the workers, or take hours: they
            # run last, in a thread, and a cluster restart stops them at the time limit.
            import threading

            failure = []

            def run():
                try:
                    timed(original, "original")
                except Exception as e:  # noqa: BLE001 - whatever the cluster raised, say it
                    failure.append(f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"[:300])

            worker = threading.Thread(target=run, daemon=True)
            worker.start()
            worker.join(a.original_timeout)
            if worker.is_alive():
                say("FAIL original", f"did not finish within {a.original_timeout:.0f} s")
                client.restart()
            elif failure:
                say("FAIL original", failure[0])
    if client is not None:
        client.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
