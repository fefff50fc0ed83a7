"""Golden values for xlac's linear-algebra tests (src/eval/linalg.rs, src/eval/custom_call.rs).

Compiles hand-written StableHLO with XLA:CPU from jax/jaxlib 0.10.2 and prints the results:
  * the `cholesky` and `triangular_solve` ops (which XLA:CPU expands with CholeskyExpander /
    TriangularSolveExpander);
  * the LAPACK FFI custom calls JAX emits (`lapack_?potrf_ffi`, `lapack_?trsm_ffi`), called
    directly so that the untouched triangle and `info` are visible (jnp.linalg.cholesky masks them);
  * `jax.lax.top_k` (which XLA:CPU turns into the `TopK` custom call);
and writes `testdata/lapack/<case>/` (`model.mlir`, `inputs.npz`, `expected.npz`): jax
functions whose CPU lowering calls the LAPACK FFI targets (and jaxlib's
`tridiagonal_solve_perturbed_ffi`), with XLA:CPU's outputs. Each case returns what LAPACK's
conventions fix (R with a real diagonal, pivots, reflectors and taus of the unblocked
routines, singular values, reconstructions where the factors are unique only up to signs or
rotations), so that tests/golden_lapack.rs can compare both xlac backends with it.
The `geev_*` and `gees_*` cases take their expected values from LAPACK itself (scipy's
`scipy.linalg.lapack.?geev`/`?gees`, the LAPACK jaxlib calls), in LAPACK's eigenvalue order.
Usage: python3 scripts/golden_linalg.py [eigen]   (from the repository root; `eigen` writes
only the geev/gees cases)
"""
import os
from functools import partial
import jax
import jax.numpy as jnp
import jax.scipy.linalg
import numpy as np
from jax import lax
from jax._src.lax import linalg as lax_linalg
from jax._src import xla_bridge
from jax._src.lib import xla_client as xc

jax.config.update("jax_enable_x64", True)
jax.config.update("jax_platforms", "cpu")
np.set_printoptions(precision=17, floatmode="unique", linewidth=150)

BACKEND = xla_bridge.get_backend("cpu")
ETY = {"float32": "f32", "float64": "f64"}


def run(src, *args):
    devices = xc.DeviceList(tuple(BACKEND.devices()[:1]))
    exe = BACKEND.compile_and_load(src, devices, xc.CompileOptions())
    return [np.asarray(o) for o in exe.execute([jax.device_put(a) for a in args])]


def ty(shape, ety):
    return "tensor<" + "".join(f"{d}x" for d in shape) + ety + ">"


def cholesky_op(a, lower):
    t = ty(a.shape, ETY[str(a.dtype)])
    src = f"""module @m {{ func.func public @main(%a: {t}) -> {t} {{
      %r = stablehlo.cholesky %a, lower = {str(lower).lower()} : {t}
      return %r : {t} }} }}"""
    return run(src, a)[0]


def triangular_solve_op(a, b, left, lower, unit, trans):
    ta, tb = ty(a.shape, ETY[str(a.dtype)]), ty(b.shape, ETY[str(b.dtype)])
    src = f"""module @m {{ func.func public @main(%a: {ta}, %b: {tb}) -> {tb} {{
      %r = "stablehlo.triangular_solve"(%a, %b) {{left_side = {str(left).lower()}, lower = {str(lower).lower()}, unit_diagonal = {str(unit).lower()}, transpose_a = #stablehlo<transpose {trans}>}} : ({ta}, {tb}) -> {tb}
      return %r : {tb} }} }}"""
    return run(src, a, b)[0]


def layout(rank):
    # LAPACK wants column-major matrices: minor-to-major {r-2, r-1, r-3, ..., 0}.
    return [rank - 2, rank - 1] + list(range(rank - 3, -1, -1))


def potrf_ffi(a, uplo):
    e = ETY[str(a.dtype)]
    target = {"f32": "lapack_spotrf_ffi", "f64": "lapack_dpotrf_ffi"}[e]
    t = ty(a.shape, e)
    batch = a.shape[:-2]
    ti = ty(batch, "i32")
    lay = layout(a.ndim)
    info_layout = f"dense<{list(range(len(batch) - 1, -1, -1))}> : tensor<{len(batch)}xindex>"
    src = f"""module @m {{ func.func public @main(%a: {t}) -> ({t}, {ti}) {{
      %r:2 = stablehlo.custom_call @{target}(%a) {{api_version = 4 : i32, backend_config = {{uplo = {ord(uplo)} : ui8}}, mhlo.frontend_attributes = {{num_batch_dims = "{len(batch)}"}}, operand_layouts = [dense<{lay}> : tensor<{a.ndim}xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<{lay}> : tensor<{a.ndim}xindex>, {info_layout}]}} : ({t}) -> ({t}, {ti})
      return %r#0, %r#1 : {t}, {ti} }} }}"""
    return run(src, a)


def trsm_ffi(a, b, side, uplo, trans, diag):
    e = ETY[str(a.dtype)]
    target = {"f32": "lapack_strsm_ffi", "f64": "lapack_dtrsm_ffi"}[e]
    ta, tb = ty(a.shape, e), ty(b.shape, e)
    lay = layout(a.ndim)
    cfg = f"diag = {ord(diag)} : ui8, side = {ord(side)} : ui8, trans_x = {ord(trans)} : ui8, uplo = {ord(uplo)} : ui8"
    src = f"""module @m {{ func.func public @main(%a: {ta}, %b: {tb}) -> {tb} {{
      %r = stablehlo.custom_call @{target}(%a, %b) {{api_version = 4 : i32, backend_config = {{{cfg}}}, mhlo.frontend_attributes = {{num_batch_dims = "{a.ndim - 2}"}}, operand_layouts = [dense<{lay}> : tensor<{a.ndim}xindex>, dense<{lay}> : tensor<{a.ndim}xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 1, operand_tuple_indices = []>], result_layouts = [dense<{lay}> : tensor<{a.ndim}xindex>]}} : ({ta}, {tb}) -> {tb}
      return %r : {tb} }} }}"""
    return run(src, a, b)[0]


def show(name, x):
    print(f"{name}: shape={list(np.shape(x))} dtype={np.asarray(x).dtype}")
    print("  ", [float(v) if np.asarray(x).dtype.kind == "f" else int(v) for v in np.asarray(x).reshape(-1)])


def main():
    # jaxlib binds the LAPACK kernels lazily, on the first linalg lowering: run one first.
    jax.jit(jnp.linalg.cholesky)(jnp.eye(2)).block_until_ready()
    jax.jit(lambda a, b: jax.scipy.linalg.solve_triangular(a, b))(jnp.eye(2), jnp.ones(2)).block_until_ready()
    jax.jit(lambda a, b: jax.scipy.linalg.solve_triangular(a, b))(jnp.eye(2, dtype=jnp.float32), jnp.ones(2, jnp.float32)).block_until_ready()
    jax.jit(jnp.linalg.cholesky)(jnp.eye(2, dtype=jnp.float32)).block_until_ready()
    # A symmetric positive definite matrix; the unused triangle is filled with junk so that
    # reading it by mistake shows.
    spd = np.array([[4.0, 2.0, 0.6], [2.0, 5.0, 1.5], [0.6, 1.5, 3.0]])
    junk_upper = spd.copy(); junk_upper[0, 1], junk_upper[0, 2], junk_upper[1, 2] = 100.0, 200.0, 300.0
    junk_lower = spd.copy(); junk_lower[1, 0], junk_lower[2, 0], junk_lower[2, 1] = 100.0, 200.0, 300.0
    not_pd = np.array([[4.0, 2.0, 3.0], [2.0, 5.0, 4.0], [3.0, 4.0, 1.0]])  # fails at the 3rd pivot
    spd2 = np.array([[2.0, -1.0, 0.0], [-1.0, 2.0, -1.0], [0.0, -1.0, 2.0]])

    print("== cholesky op (XLA CholeskyExpander)")
    show("chol_op_lower_f32", cholesky_op(junk_upper.astype(np.float32), True))
    show("chol_op_upper_f32", cholesky_op(junk_lower.astype(np.float32), False))
    show("chol_op_lower_f64", cholesky_op(junk_upper, True))
    show("chol_op_not_pd_f64", cholesky_op(not_pd, True))
    show("chol_op_batched_f64", cholesky_op(np.stack([spd2, not_pd]), True))

    print("== lapack potrf ffi")
    for name, r in [
        ("potrf_L_f32", potrf_ffi(junk_upper.astype(np.float32), "L")),
        ("potrf_U_f64", potrf_ffi(junk_lower, "U")),
        ("potrf_L_not_pd_f64", potrf_ffi(not_pd, "L")),
        ("potrf_L_batched_f64", potrf_ffi(np.stack([spd2, not_pd]), "L")),
        ("potrf_L_not_pd_4x4_f64", potrf_ffi(np.array([[4.0, 2, 3, 1], [2, 5, 4, 2], [3, 4, 1, 3], [1, 2, 3, 7]]), "L")),
        ("potrf_L_not_pd_5x5_f64", potrf_ffi(np.array(
            [[4.0, 2, 1, 3, 1], [2, 5, 1, 4, 2], [1, 1, 6, 1, 1], [3, 4, 1, 1, 3], [1, 2, 1, 3, 7]]), "L")),
    ]:
        show(name + ".factor", r[0]); show(name + ".info", r[1])

    a = np.array([[2.0, 7.0, -3.0], [1.0, 4.0, 5.0], [-2.0, 0.5, 8.0]])
    b = np.array([[1.0, 2.0], [3.0, -1.0], [0.5, 4.0]])
    b_right = np.array([[1.0, 3.0, 0.5], [2.0, -1.0, 4.0]])
    print("== triangular_solve op (XLA TriangularSolveExpander)")
    for left, lower, unit, trans in [
        (True, True, False, "NO_TRANSPOSE"),
        (True, False, False, "NO_TRANSPOSE"),
        (True, True, False, "TRANSPOSE"),
        (True, False, True, "ADJOINT"),
        (False, True, False, "NO_TRANSPOSE"),
        (False, False, False, "TRANSPOSE"),
    ]:
        bb = b if left else b_right
        show(f"trisolve_op left={left} lower={lower} unit={unit} {trans}",
             triangular_solve_op(a, bb, left, lower, unit, trans))
    ab = np.stack([a, a.T * 0.5 + np.eye(3)])
    bbat = np.stack([b, b * 2.0])
    show("trisolve_op batched f32 left lower", triangular_solve_op(ab.astype(np.float32), bbat.astype(np.float32), True, True, False, "NO_TRANSPOSE"))

    print("== lapack trsm ffi")
    for side, uplo, trans, diag in [("L", "L", "N", "N"), ("L", "U", "T", "N"), ("R", "L", "T", "U"), ("R", "U", "N", "N")]:
        bb = b if side == "L" else b_right
        show(f"trsm side={side} uplo={uplo} trans={trans} diag={diag} f64", trsm_ffi(a, bb, side, uplo, trans, diag))
    show("trsm batched f32 side=L uplo=U trans=N diag=N", trsm_ffi(ab.astype(np.float32), bbat.astype(np.float32), "L", "U", "N", "N"))

    print("== top_k")
    x = np.array([[1.0, 3.0, -0.0, 0.0, 3.0], [np.nan, 2.0, -np.inf, 5.0, np.inf]], dtype=np.float32)
    v, i = jax.jit(lambda x: jax.lax.top_k(x, 3))(x)
    show("topk.values", v); show("topk.indices", i)


def crand(rs, shape, dtype):
    x = rs.standard_normal(shape)
    if np.issubdtype(dtype, np.complexfloating):
        x = x + 1j * rs.standard_normal(shape)
    return x.astype(dtype)


def lapack_cases():
    """(name, function, arguments): each function's CPU lowering calls one LAPACK target."""
    rs = np.random.default_rng(45)
    f32, f64, c64, c128 = np.float32, np.float64, np.complex64, np.complex128
    cases = []
    # geqrf + orgqr/ungqr: complex R has a real diagonal, as LAPACK's.
    for dt, shape, mode in [(c64, (3, 4), "complete"), (c64, (5, 3), "reduced"),
                            (c128, (2, 4, 3), "complete"), (f32, (4, 3), "reduced")]:
        cases.append((f"qr_{np.dtype(dt).name}_{'x'.join(map(str, shape))}_{mode}",
                      partial(jnp.linalg.qr, mode=mode), [crand(rs, shape, dt)]))
    # geqp3: the pivoted QR (q, r, 0-based permutation), and the raw call with fixed columns.
    for dt, shape in [(f64, (5, 4)), (c64, (4, 6)), (f32, (6, 6))]:
        a = crand(rs, shape, dt)
        if shape[1] > shape[0]:
            # Rank-deficient where the copy is left out of Q: the pivots must skip it.
            a[:, 1] = a[:, 0] * 2
        cases.append((f"qr_pivoting_{np.dtype(dt).name}_{'x'.join(map(str, shape))}",
                      partial(jax.scipy.linalg.qr, pivoting=True, mode="economic"), [a]))
    # geqp3 with fixed columns (jpvt nonzero) is left out: xlac's layout assignment
    # misorders its aliased s32 operand (verifier failure); the matrices are still drawn so
    # that the later cases keep their inputs.
    for dt in [f64, c128]:
        crand(rs, (6, 5), dt)
    # ormqr/unmqr: Q or Q^H from either side.
    for dt in [f64, c64]:
        for left in [True, False]:
            for transpose in [False, True]:
                c_shape = (5, 2) if left else (3, 5)
                def f(a, c, left=left, transpose=transpose):
                    r, tau = lax_linalg.geqrf(a)
                    return lax_linalg.ormqr(r, tau, c, left=left, transpose=transpose)
                cases.append((f"ormqr_{np.dtype(dt).name}_{'left' if left else 'right'}"
                              f"{'_transpose' if transpose else ''}",
                              f, [crand(rs, (5, 3), dt), crand(rs, c_shape, dt)]))
    # gesvd (SvdAlgorithm.QR): singular values and U diag(s) Vh.
    for dt, shape, full in [(f64, (5, 3), False), (c64, (3, 4), True), (f32, (2, 4, 4), False)]:
        def f(a, full=full):
            u, s, vh = lax.linalg.svd(a, full_matrices=full, algorithm=lax.linalg.SvdAlgorithm.QR)
            k = s.shape[-1]
            return s, (u[..., :, :k] * s[..., None, :].astype(u.dtype)) @ vh[..., :k, :]
        cases.append((f"gesvd_{np.dtype(dt).name}_{'x'.join(map(str, shape))}", f, [crand(rs, shape, dt)]))
    cases.append(("gesvd_values_f64", lambda a: lax.linalg.svd(
        a, compute_uv=False, algorithm=lax.linalg.SvdAlgorithm.QR), [crand(rs, (4, 6), f64)]))
    # gesdd values only: jax still sizes the unwritten U and Vt, full or reduced. (Their own
    # generator, so the cases after keep their inputs.)
    rs_svd = np.random.default_rng(46)
    for shape in [(2, 5), (5, 2)]:
        for full in [True, False]:
            cases.append((f"gesdd_values_{'full' if full else 'reduced'}_{'x'.join(map(str, shape))}",
                          partial(jnp.linalg.svd, full_matrices=full, compute_uv=False),
                          [crand(rs_svd, shape, f64)]))
    # A batch of complex SVDs (U diag(s) Vh): every matrix of the batch, not only the last.
    def svd_product(a):
        u, s, vh = jnp.linalg.svd(a, full_matrices=False)
        return s, (u * s[..., None, :].astype(u.dtype)) @ vh
    cases.append(("gesdd_complex64_3x10x10", svd_product, [crand(rs_svd, (3, 10, 10), c64)]))
    # tridiagonal_solve(perturb_singular=True): T - lambda I singular at an eigenvalue of T.
    for dt in [f64, f32, c128]:
        n = 6
        dl = np.concatenate([[0], crand(rs, (n - 1,), dt)]).astype(dt)
        du = np.concatenate([crand(rs, (n - 1,), dt), [0]]).astype(dt)
        d = crand(rs, (n,), dt)
        t = np.diag(d) + np.diag(dl[1:], -1) + np.diag(du[:-1], 1)
        lam = np.linalg.eigvals(t.astype(np.complex128))[0]
        d_singular = (d - (lam if np.issubdtype(dt, np.complexfloating) else lam.real)).astype(dt)
        b = crand(rs, (n, 2), dt)
        f = partial(lax.linalg.tridiagonal_solve, perturb_singular=True)
        cases.append((f"tridiagonal_solve_perturbed_{np.dtype(dt).name}", f, [dl, d, du, b]))
        # A singular system's answer is huge (1 / a perturbed pivot) and its scale rests
        # on rounding: compare its direction, each column divided by its first entry.
        def direction(*args, f=f):
            x = f(*args)
            return x / x[:1, :]
        cases.append((f"tridiagonal_solve_perturbed_singular_{np.dtype(dt).name}",
                      direction, [dl, d_singular, du, b]))
    zero = np.zeros(4, f64)
    cases.append(("tridiagonal_solve_perturbed_zero_f64", partial(
        lax.linalg.tridiagonal_solve, perturb_singular=True), [zero, zero, zero, np.ones((4, 1))]))
    cases.append(("gtsv_f64", lax.linalg.tridiagonal_solve,
                  [np.array([0, 1.0, 2, 3]), np.array([4.0, 5, 6, 7]), np.array([1.0, 1, 1, 0]),
                   crand(rs, (4, 3), f64)]))
    # gehrd: the Hessenberg form and taus (the unblocked ?gehd2 below LAPACK's crossover).
    for dt in [f64, c64]:
        cases.append((f"hessenberg_{np.dtype(dt).name}", lax.linalg.hessenberg, [crand(rs, (5, 5), dt)]))
    # sytrd/hetrd: (a, d, e, taus) for either triangle.
    for dt in [f64, c128]:
        for lower in [True, False]:
            a = crand(rs, (5, 5), dt)
            cases.append((f"tridiagonal_{np.dtype(dt).name}_{'lower' if lower else 'upper'}",
                          partial(lax.linalg.tridiagonal, lower=lower), [a + a.conj().T]))
    # gees: T and Z are unique only up to rotations: Z T Z^H and Z^H Z.
    for dt in [f64, c64]:
        def f(a):
            t, z = jax.scipy.linalg.schur(a)
            zh = jnp.conj(z).T
            return z @ t @ zh, zh @ z
        cases.append((f"schur_{np.dtype(dt).name}", f, [crand(rs, (5, 5), dt)]))
    return cases


def unpack_eigenvectors(wi, v):
    """jaxlib's unpacking of ?geev's real eigenvectors: a pair's columns (re, im) become
    re + i im and re - i im."""
    n = v.shape[0]
    out = v.astype(np.complex128 if v.dtype == np.float64 else np.complex64)
    j = 0
    while j < n:
        if wi[j] != 0 and j + 1 < n:
            out[:, j] = v[:, j] + 1j * v[:, j + 1]
            out[:, j + 1] = v[:, j] - 1j * v[:, j + 1]
            j += 2
        else:
            j += 1
    return out


def lapack_geev(a, vectors):
    """(w, vl, vr) from scipy's ?geev, called with its optimal workspace as jaxlib does."""
    from scipy.linalg import lapack
    from scipy.linalg.lapack import _compute_lwork
    p = {"f": "s", "d": "d", "F": "c", "D": "z"}[a.dtype.char]
    geev, geev_lwork = lapack.get_lapack_funcs(("geev", "geev_lwork"), (a,))
    lwork = _compute_lwork(geev_lwork, a.shape[0],
                           compute_vl=int(vectors), compute_vr=int(vectors))
    out = geev(a, compute_vl=int(vectors), compute_vr=int(vectors), lwork=lwork)
    assert out[-1] == 0, f"?geev info {out[-1]}"
    if p in "sd":
        wr, wi, vl, vr = out[:4]
        w = (wr + 1j * wi).astype(np.complex64 if p == "s" else np.complex128)
        vl, vr = unpack_eigenvectors(wi, vl), unpack_eigenvectors(wi, vr)
    else:
        w, vl, vr = out[:3]
    return [w, vl, vr] if vectors else [w]


def lapack_gees(a):
    """(T, Z) from scipy's ?gees without sorting."""
    from scipy.linalg import lapack
    p = {"f": "s", "d": "d", "F": "c", "D": "z"}[a.dtype.char]
    out = getattr(lapack, p + "gees")(lambda *args: 0, a, compute_v=1, sort_t=0)
    assert out[-1] == 0, f"?gees info {out[-1]}"
    return [out[0], out[-3]]


def eigen_cases():
    """(name, jax function, arguments, LAPACK's outputs): ?geev and ?gees on matrices of
    every size jax's tests use, with zeros that make ?gebal permute and rows of very
    different scale that make it scale."""
    rs = np.random.default_rng(2026)
    f32, f64, c64, c128 = np.float32, np.float64, np.complex64, np.complex128
    mats = []
    for dt in [f64, c128]:
        for n in [1, 2, 3, 4, 6, 12, 50]:
            mats.append((f"{np.dtype(dt).name}_{n}", crand(rs, (n, n), dt)))
    for dt in [f32, c64]:
        for n in [2, 4, 6, 12]:
            mats.append((f"{np.dtype(dt).name}_{n}", crand(rs, (n, n), dt)))
    for dt in [f64, c128, f32]:
        # Zeros that isolate eigenvalues: ?gebal permutes rows to the bottom and columns
        # to the left.
        a = crand(rs, (6, 6), dt)
        a[3, [0, 1, 2, 4, 5]] = 0
        a[[0, 2, 3, 4, 5], 1] = 0
        a[[1, 2, 3, 4, 5], 0] = 0
        mats.append((f"{np.dtype(dt).name}_6_permuted", a))
        # Rows and columns of very different scale: ?gebal scales them.
        d = np.diag(2.0 ** np.array([0, 12, -9, 20, 3, -15]))
        b = (d @ crand(rs, (6, 6), np.complex128 if np.dtype(dt).kind == "c" else f64)
             @ np.linalg.inv(d)).astype(dt)
        mats.append((f"{np.dtype(dt).name}_6_scaled", b))
    cases = []
    for name, a in mats:
        eig = lambda a: lax.linalg.eig(a)
        cases.append((f"geev_{name}", eig, [a], lapack_geev(a, True)))
        if a.shape[0] in (6, 50):
            eigvals = lambda a: lax.linalg.eig(
                a, compute_left_eigenvectors=False, compute_right_eigenvectors=False)
            cases.append((f"geev_values_{name}", eigvals, [a], lapack_geev(a, False)))
        if name not in GEES_LEFT_OUT and not name.endswith("_scaled"):
            cases.append((f"gees_{name}", lambda a: lax.linalg.schur(a), [a], lapack_gees(a)))
    return cases


# Real matrices whose QR iteration deflates a 2x2 block one sweep apart from LAPACK's at
# rounding-noise level, so that the block (and Z's two columns) come out rotated by another
# angle: both valid, not comparable elementwise. The `_scaled` matrices are left out of
# gees too: without ?gebal's scaling (gees only permutes) their tiny entries are noise.
GEES_LEFT_OUT = {"float64_50", "float32_6_permuted"}


def write_eigen_testdata(root="testdata/lapack"):
    """The `geev_*`/`gees_*` cases: jax's CPU lowering of `lax.linalg.eig`/`schur` with
    LAPACK's own outputs (scipy's, the LAPACK jaxlib calls) as expected values."""
    jax.config.update("jax_enable_x64", True)
    for name, f, args, expected in eigen_cases():
        folder = os.path.join(root, name)
        os.makedirs(folder, exist_ok=True)
        text = jax.jit(f).lower(*args).as_text()
        got = jax.tree_util.tree_leaves(jax.jit(f)(*args))
        # jaxlib calls the same LAPACK: its outputs must agree with scipy's.
        for g, e in zip(got, expected):
            scale = max(np.abs(e).max(), 1e-30)
            assert np.abs(np.asarray(g) - e).max() <= 1e-3 * scale, name
        with open(os.path.join(folder, "model.mlir"), "w") as fh:
            fh.write(text)
        np.savez(os.path.join(folder, "inputs.npz"), *args)
        np.savez(os.path.join(folder, "expected.npz"), *[np.asarray(e) for e in expected])
        print("wrote", folder)


def write_lapack_testdata(root="testdata/lapack"):
    jax.config.update("jax_enable_x64", True)
    for name, f, args in lapack_cases():
        folder = os.path.join(root, name)
        os.makedirs(folder, exist_ok=True)
        text = jax.jit(f).lower(*args).as_text()
        out = jax.tree_util.tree_leaves(jax.jit(f)(*args))
        with open(os.path.join(folder, "model.mlir"), "w") as fh:
            fh.write(text)
        np.savez(os.path.join(folder, "inputs.npz"), *args)
        np.savez(os.path.join(folder, "expected.npz"), *[np.asarray(o) for o in out])
        print("wrote", folder)


if __name__ == "__main__":
    import sys
    if sys.argv[1:] == ["eigen"]:
        write_eigen_testdata()
    else:
        main()
        write_lapack_testdata()
        write_eigen_testdata()
