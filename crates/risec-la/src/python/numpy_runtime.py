# --- runtime (numpy target): the operations of `.la` plans on NumPy arrays and
# scipy.sparse CSR arrays. Every value is 2-D; a scalar is a 1 x 1 array. A sparse value
# stays sparse through the operations that keep its zeros (products with anything,
# transposes, abs/sqrt/relu) and is made dense by the others.
import numpy as _np
import scipy.sparse as _sp


def _la_input(value, name, shape, sparse):
    """`value` as the plan expects it: a CSR array when declared sparse, else a dense 2-D
    array; a wrong shape is an error that names the input."""
    if sparse:
        value = value if isinstance(value, _sp.csr_array) else _sp.csr_array(value)
    else:
        value = value.toarray() if _sp.issparse(value) else _np.asarray(value)
        if value.ndim == 0:
            value = value.reshape(1, 1)
    if tuple(value.shape) != shape:
        raise ValueError(
            f"input {name}: expected shape {shape[0]} x {shape[1]}, got {' x '.join(map(str, value.shape))}"
        )
    return value


def _la_dense(a):
    return a.toarray() if _sp.issparse(a) else a


def _la_scalar_of(a):
    """A 1 x 1 value as a Python number (which broadcasts with sparse values too)."""
    if isinstance(a, float):
        return a
    if getattr(a, "shape", None) == (1, 1):
        return _la_dense(a).item()
    return None


def _la_mm(a, b):
    if _sp.issparse(a) and _sp.issparse(b):
        return _sp.csr_array(a @ b)
    return a @ b


def _la_mul(a, b):
    for x, y in ((a, b), (b, a)):
        if _sp.issparse(x):
            s = _la_scalar_of(y)
            if s is not None:
                return x * s
            if _sp.issparse(y):
                return _sp.csr_array(x.multiply(y))
            return _la_scale(x, _np.asarray(y))
    return a * b


def _la_scale(x, y):
    """CSR `x` times dense `y` (same shape, a column or a row that broadcasts): each stored
    entry scaled by its factor, O(non-zeros) (scipy's `multiply` expands a broadcast operand
    to the full shape first)."""
    x = x.tocsr()
    if y.shape == (x.shape[0], 1):
        factors = _np.repeat(y[:, 0], _np.diff(x.indptr))
    elif y.shape == (1, x.shape[1]):
        factors = y[0, x.indices]
    else:
        y = _np.broadcast_to(y, x.shape)
        factors = y[_np.repeat(_np.arange(x.shape[0]), _np.diff(x.indptr)), x.indices]
    return _sp.csr_array((x.data * factors, x.indices, x.indptr), shape=x.shape)


def _la_add(a, b):
    if _sp.issparse(a) and _sp.issparse(b) and a.shape == b.shape:
        return _sp.csr_array(a + b)
    return _la_dense(a) + _la_dense(b)


def _la_t(a):
    return _sp.csr_array(a.T) if _sp.issparse(a) else a.T


def _la_sum(a):
    return _np.asarray(a.sum()).reshape(1, 1)


def _la_rowsums(a):
    if _sp.issparse(a):
        return _np.asarray(a.sum(axis=1)).reshape(-1, 1)
    # A product with ones (BLAS): NumPy's reductions along an axis of a narrow array are
    # ten times slower.
    return a @ _np.ones((a.shape[1], 1), a.dtype)


def _la_colsums(a):
    if _sp.issparse(a):
        return _np.asarray(a.sum(axis=0)).reshape(1, -1)
    return _np.ones((1, a.shape[0]), a.dtype) @ a


def _la_exp(a):
    return _np.exp(_la_dense(a))


def _la_log(a):
    return _np.log(_la_dense(a))


def _la_sqrt(a):
    return a.sqrt() if _sp.issparse(a) else _np.sqrt(a)


def _la_abs(a):
    return abs(a)


def _la_sigmoid(a):
    return 1.0 / (1.0 + _np.exp(-_la_dense(a)))


def _la_relu(a):
    return a.maximum(0) if _sp.issparse(a) else _np.maximum(a, 0)


def _la_inv(a):
    return 1.0 / _la_dense(a)


def _la_results(values):
    """The outputs: a value the plan keeps sparse as a scipy.sparse CSR array (expanding a
    1 %-dense output to a dense array would cost more than computing it), others as dense
    NumPy arrays."""
    return [_sp.csr_array(a) if _sp.issparse(a) else _np.asarray(a) for a in values]
