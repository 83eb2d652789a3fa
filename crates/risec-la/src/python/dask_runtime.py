# --- runtime (dask target): the operations of `.la` plans on dask arrays. Every value is 2-D
# (a scalar is 1 x 1). A dense value is a dask array of NumPy chunks; a sparse value is an
# `_LaSparse`: a dask array whose chunks are scipy.sparse CSR arrays, which dask's own
# operations do not handle, so each operation on it is a `blockwise` of our own. Nothing is
# computed until `_la_results`, which computes every output in one `dask.compute` (shared
# intermediates once) on the scheduler in use: a `dask.distributed` client if one is active.
# Outputs come back as NumPy arrays, or as scipy.sparse CSR arrays where the plan keeps them
# sparse (as with the NumPy target).
import dask as _dask
import dask.array as _da
import numpy as _np
import scipy.sparse as _sp


class _LaSparse:
    """A sparse value: `arr`, a dask array of CSR chunks."""

    def __init__(self, arr):
        self.arr = arr
        self.shape = arr.shape
        self.dtype = arr.dtype


def _la_client():
    """The active `dask.distributed` client, or None."""
    try:
        from distributed import get_client

        return get_client()
    except (ImportError, ValueError):
        return None


def _la_chunk_bytes():
    """Bytes per chunk: a sixteenth of the smallest worker's memory limit when a distributed
    client is active (room for the worker's share of the data and a task's operands, result
    and intermediates), at most 128 MiB; 64 MiB otherwise."""
    client = _la_client()
    if client is not None:
        workers = client.scheduler_info()["workers"].values()
        limits = [m for m in (w.get("memory_limit") or 0 for w in workers) if m > 0]
        if limits:
            return max(1 << 20, min(128 << 20, min(limits) // 16))
    return 64 << 20


def _la_chunks(shape, bytes_per_entry):
    """Blocks of whole rows when a row fits in a chunk, else square-ish blocks."""
    rows, cols = shape
    budget = max(1, int(_la_chunk_bytes() / max(bytes_per_entry, 1e-9)))
    if cols <= budget:
        return (max(1, min(rows, budget // max(1, cols))), cols)
    side = max(1, int(budget**0.5))
    return (min(rows, side), min(cols, side))


def _la_input(value, name, shape, sparse):
    """`value` (NumPy, scipy.sparse or dask) as the plan expects it, in chunks sized for the
    workers; a wrong shape is an error that names the input."""
    if tuple(value.shape) != shape:
        raise ValueError(
            f"input {name}: expected shape {shape[0]} x {shape[1]}, got {' x '.join(map(str, value.shape))}"
        )
    if sparse:
        if isinstance(value, _LaSparse):
            return value
        if isinstance(value, _da.Array):
            if _sp.issparse(value._meta):
                return _LaSparse(value.map_blocks(_sp.csr_array, dtype=value.dtype, meta=_la_meta(True, value.dtype)))
            return _LaSparse(value.map_blocks(_sp.csr_array, dtype=value.dtype, meta=_la_meta(True, value.dtype)))
        value = value if isinstance(value, _sp.csr_array) else _sp.csr_array(value)
        return _LaSparse(_la_from_blocks(value, _la_input_chunks(value, True), True))
    if isinstance(value, _da.Array):
        return value
    if _sp.issparse(value):
        value = value.toarray()
    value = _np.asarray(value)
    return _la_from_blocks(value, _la_input_chunks(value, False), False)


def _la_input_chunks(value, sparse):
    """The blocks an input is cut into: a CSR row takes about 12 bytes a non-zero."""
    rows, cols = value.shape
    if sparse:
        per_row = max(1.0, value.nnz / max(1, rows))
        return _la_chunks(value.shape, 12.0 * per_row / max(1, cols))
    return _la_chunks(value.shape, value.itemsize)


def _la_load_block(path, sparse):
    return _sp.csr_array(_sp.load_npz(path)) if sparse else _np.load(path)


def _la_blocks_on_disk(value, name, sparse, folder):
    """`value` (NumPy or scipy.sparse) saved block by block in `folder` (`NAME.I.J.npz` or
    `.npy`), and the dask array whose tasks load each block where they run: inputs on storage
    that every worker reads, as a cluster's data usually are, rather than sent from the client
    (the blocks of a value larger than a worker's memory would not fit it on the way)."""
    import os

    value = _sp.csr_array(value) if sparse else _np.asarray(value)
    (rows, cols), (step_r, step_c) = value.shape, _la_input_chunks(value, sparse)
    grid = []
    for i in range(0, rows, step_r):
        row = []
        for j in range(0, cols, step_c):
            block = value[i : i + step_r, j : j + step_c]
            path = os.path.join(folder, f"{name}.{i // step_r}.{j // step_c}.{'npz' if sparse else 'npy'}")
            if sparse:
                _sp.save_npz(path, _sp.csr_array(block), compressed=False)
            else:
                _np.save(path, _np.ascontiguousarray(block))
            load = _dask.delayed(_la_load_block, pure=True)(path, sparse)
            row.append(_da.from_delayed(load, shape=block.shape, dtype=value.dtype, meta=_la_meta(sparse, value.dtype)))
        grid.append(row)
    return _LaSparse(_la_assemble(grid, value.dtype)) if sparse else _da.block(grid)


def _la_from_blocks(value, chunks, sparse):
    """A dask array of `value`'s blocks, each its own piece of the graph: a task carries its
    block only (`da.from_array` would ship the whole array to every worker that slices it)."""
    (rows, cols), (step_r, step_c) = value.shape, chunks
    blocks = []
    for i in range(0, rows, step_r):
        row = []
        for j in range(0, cols, step_c):
            block = value[i : i + step_r, j : j + step_c]
            row.append(_sp.csr_array(block) if sparse else _np.ascontiguousarray(block))
        blocks.append(row)
    client = _la_client()
    if client is not None:
        # On a cluster each block goes to a worker once, spread over the workers, rather than
        # inside the task graph.
        flat = client.scatter([b for row in blocks for b in row])
        it = iter(flat)
        handles = [[next(it) for _ in row] for row in blocks]
    else:
        handles = [[_dask.delayed(b) for b in row] for row in blocks]
    grid = [
        [
            _da.from_delayed(h, shape=b.shape, dtype=value.dtype, meta=_la_meta(sparse, value.dtype))
            for h, b in zip(hrow, brow)
        ]
        for hrow, brow in zip(handles, blocks)
    ]
    if sparse:
        # `da.block` would concatenate through NumPy; the blocks are placed without it.
        return _la_assemble(grid, value.dtype)
    return _da.block(grid)


def _la_assemble(grid, dtype):
    """A dask array whose blocks are the lazy CSR blocks of `grid` (rows of blocks)."""
    from dask.array.core import Array
    from dask.highlevelgraph import HighLevelGraph

    name = "la-sparse-" + _dask.base.tokenize(*[b.name for row in grid for b in row])
    layers, deps = {}, []
    for i, row in enumerate(grid):
        for j, b in enumerate(row):
            layers[(name, i, j)] = (b.name, 0, 0)
            deps.append(b)
    chunks = (tuple(row[0].shape[0] for row in grid), tuple(b.shape[1] for b in grid[0]))
    graph = HighLevelGraph.from_collections(name, layers, dependencies=deps)
    return Array(graph, name, chunks, dtype=dtype, meta=_la_meta(True, dtype))


def _la_dense(a):
    """A sparse value made dense, each CSR block cut into pieces that fit a chunk when dense
    (a block of 7,000 rows of 100,000 columns is small in CSR and 2.8 GB dense)."""
    if not isinstance(a, _LaSparse):
        return a
    arr = a.arr
    widest = (max(arr.chunks[0]), max(arr.chunks[1]))
    step_r, step_c = _la_chunks(widest, arr.dtype.itemsize)
    if step_r >= widest[0] and step_c >= widest[1]:
        return arr.map_blocks(lambda b: b.toarray(), dtype=a.dtype, meta=_np.empty((0, 0), a.dtype))
    grid = []
    for i, rows in enumerate(arr.chunks[0]):
        for r0 in range(0, rows, step_r):
            line = []
            for j, cols in enumerate(arr.chunks[1]):
                for c0 in range(0, cols, step_c):
                    r1, c1 = min(rows, r0 + step_r), min(cols, c0 + step_c)
                    piece = arr.blocks[i, j].map_blocks(
                        lambda b, r0=r0, r1=r1, c0=c0, c1=c1: b[r0:r1, c0:c1].toarray(),
                        chunks=((r1 - r0,), (c1 - c0,)),
                        dtype=a.dtype,
                        meta=_np.empty((0, 0), a.dtype),
                    )
                    line.append(piece)
            grid.append(line)
    return _da.block(grid)


def _la_meta(sparse, dtype):
    return _sp.csr_array((0, 0), dtype=dtype) if sparse else _np.empty((0, 0), dtype)


def _la_block_mm(xs, ys):
    """Block (i, j) of a product: the sum over the blocks k of x(i, k) @ y(k, j)."""
    total = None
    for x, y in zip(xs, ys):
        p = x @ y
        total = p if total is None else total + p
    return _sp.csr_array(total) if _sp.issparse(total) else _np.asarray(total)


def _la_block_mm_partial(x, y):
    """One block product, dense, as a slice of a 3-D array whose middle axis is summed."""
    return _np.asarray(x @ y)[:, None, :]


def _la_mm(a, b):
    sparse_a, sparse_b = isinstance(a, _LaSparse), isinstance(b, _LaSparse)
    if not sparse_a and not sparse_b:
        # Output blocks that fit a chunk: the rows of `a` and the columns of `b` cut finer
        # where one block of the product would not (U %*% t(V) with U and t(V) one chunk each
        # would be a single block of every entry).
        step_r, step_c = _la_chunks((a.shape[0], b.shape[1]), _np.result_type(a.dtype, b.dtype).itemsize)
        if max(a.chunks[0]) > step_r:
            a = a.rechunk({0: step_r})
        if max(b.chunks[1]) > step_c:
            b = b.rechunk({1: step_c})
        return a @ b
    x = a.arr if sparse_a else a
    y = b.arr if sparse_b else b
    dtype = _np.result_type(x.dtype, y.dtype)
    if sparse_a and sparse_b:
        # Sparse result: the block products along the shared dimension summed in one task.
        out = _da.blockwise(
            _la_block_mm, "ij", x, "ik", y, "kj", concatenate=False, dtype=dtype, meta=_la_meta(True, dtype)
        )
        return _LaSparse(out)
    # Dense result: one task per block product, then a tree reduction along the shared
    # dimension (as dask's own matmul does), so that no task holds a whole row of blocks.
    partial = _da.blockwise(
        _la_block_mm_partial,
        "ikj",
        x,
        "ik",
        y,
        "kj",
        adjust_chunks={"k": 1},
        dtype=dtype,
        meta=_np.empty((0, 0, 0), dtype),
    )
    return partial.sum(axis=1)


def _la_scalar_of(a):
    return a if isinstance(a, float) else None


def _la_mul(a, b):
    if isinstance(b, _LaSparse) and not isinstance(a, _LaSparse):
        a, b = b, a
    if not isinstance(a, _LaSparse):
        return a * b
    s = _la_scalar_of(b)
    if s is not None:
        return _LaSparse(a.arr.map_blocks(lambda x: x * s, dtype=a.dtype, meta=_la_meta(True, a.dtype)))
    if isinstance(b, _LaSparse):
        if b.shape != a.shape:
            return _la_mul(a, _la_dense(b))
        other = b.arr.rechunk(a.arr.chunks)
        f = lambda x, y: _sp.csr_array(x.multiply(y))
    else:
        b = _da.asarray(b)
        # Chunked like `a` along the dimensions it has, then broadcast along the others.
        b = b.rechunk(tuple(c if n == m else (1,) for c, n, m in zip(a.arr.chunks, b.shape, a.shape)))
        other = _da.broadcast_to(b, a.shape, chunks=a.arr.chunks)
        f = lambda x, y: _sp.csr_array(x.multiply(y))
    dtype = _np.result_type(a.dtype, other.dtype)
    return _LaSparse(_da.blockwise(f, "ij", a.arr, "ij", other, "ij", dtype=dtype, meta=_la_meta(True, dtype)))


def _la_add(a, b):
    if isinstance(a, _LaSparse) and isinstance(b, _LaSparse) and a.shape == b.shape:
        dtype = _np.result_type(a.dtype, b.dtype)
        f = lambda x, y: _sp.csr_array(x + y)
        return _LaSparse(
            _da.blockwise(f, "ij", a.arr, "ij", b.arr.rechunk(a.arr.chunks), "ij", dtype=dtype, meta=_la_meta(True, dtype))
        )
    return _la_dense(a) + _la_dense(b)


def _la_t(a):
    if isinstance(a, _LaSparse):
        f = lambda x: _sp.csr_array(x.T)
        return _LaSparse(_da.blockwise(f, "ji", a.arr, "ij", dtype=a.dtype, meta=_la_meta(True, a.dtype)))
    return a.T


def _la_block_sums(a, axis):
    """Per-block sums of a sparse value (dense: one row or column, or one entry, a block)."""
    arr = a.arr
    if axis is None:
        f, chunks = (lambda x: _np.asarray(x.sum()).reshape(1, 1)), ((1,) * arr.numblocks[0], (1,) * arr.numblocks[1])
    elif axis == 1:
        f, chunks = (lambda x: _np.asarray(x.sum(axis=1)).reshape(-1, 1)), (arr.chunks[0], (1,) * arr.numblocks[1])
    else:
        f, chunks = (lambda x: _np.asarray(x.sum(axis=0)).reshape(1, -1)), ((1,) * arr.numblocks[0], arr.chunks[1])
    return arr.map_blocks(f, chunks=chunks, dtype=a.dtype, meta=_np.empty((0, 0), a.dtype))


def _la_sum(a):
    if isinstance(a, _LaSparse):
        a = _la_block_sums(a, None)
    return a.sum().reshape(1, 1)


def _la_rowsums(a):
    if isinstance(a, _LaSparse):
        a = _la_block_sums(a, 1)
    return a.sum(axis=1, keepdims=True)


def _la_colsums(a):
    if isinstance(a, _LaSparse):
        a = _la_block_sums(a, 0)
    return a.sum(axis=0, keepdims=True)


def _la_sparse_map(a, f):
    return _LaSparse(a.arr.map_blocks(lambda x: _sp.csr_array(f(x)), dtype=a.dtype, meta=_la_meta(True, a.dtype)))


def _la_exp(a):
    return _da.exp(_la_dense(a))


def _la_log(a):
    return _da.log(_la_dense(a))


def _la_sqrt(a):
    return _la_sparse_map(a, lambda x: x.sqrt()) if isinstance(a, _LaSparse) else _da.sqrt(a)


def _la_abs(a):
    return _la_sparse_map(a, abs) if isinstance(a, _LaSparse) else abs(a)


def _la_sigmoid(a):
    return 1.0 / (1.0 + _da.exp(-_la_dense(a)))


def _la_relu(a):
    return _la_sparse_map(a, lambda x: x.maximum(0)) if isinstance(a, _LaSparse) else _da.maximum(a, 0)


def _la_inv(a):
    return 1.0 / _la_dense(a)


def _la_results(values):
    """Computes the outputs together (one graph: shared intermediates once): dense ones as
    NumPy arrays, sparse ones as scipy.sparse CSR arrays, each assembled from its blocks.
    Every output goes to `dask.compute` as its grid of blocks (`to_delayed`, unoptimised so
    that outputs keep sharing their intermediates' keys): given dask arrays and lists of
    delayed blocks together, dask 2026.8 returned one output's value in another's place."""
    grids = [(v.arr if isinstance(v, _LaSparse) else v).to_delayed(optimize_graph=False).tolist() for v in values]
    done = _dask.compute(*grids)
    out = []
    for v, grid in zip(values, done):
        if isinstance(v, _LaSparse):
            out.append(_sp.csr_array(_sp.block_array([[_sp.csr_array(b) for b in row] for row in grid], format="csr")))
        else:
            out.append(_np.block([[_np.asarray(b) for b in row] for row in grid]))
    return out
