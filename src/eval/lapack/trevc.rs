//! Eigenvectors from the Schur form, as LAPACK's `?trevc3` computes them for `?geev`
//! (`SIDE = R`, `L` or `B`, `HOWMNY = B`): each eigenvector of the (quasi-)triangular `T`
//! is found by back-substitution (right: upward, left: downward through `Tᴴ`), then
//! back-transformed by the Schur vectors `Z` and scaled so that its largest component has
//! `|re| + |im| = 1`. Real `T` gives a conjugate pair as two real columns (real part,
//! imaginary part), the 1×1 and 2×2 diagonal blocks solved by `?laln2`.
//!
//! The back-transformation is `Z x` summed over `Z`'s columns in order, as the blocked
//! version jaxlib runs (it asks `?geev` for its optimal workspace). Complex `T` is solved by
//! plain substitution (`?trsv`), which is what `?latrs` does unless the solution nears
//! overflow; its scaled careful path is not ported.
//!
//! Indices are 1-based as LAPACK's; matrices column-major with `n` rows.
//!
//! LAPACK: `dtrevc3.f`, `dlaln2.f`, `ztrevc3.f`, `zlatrs.f`.

use num_complex::Complex;

use super::auxiliary::{Elem, Real, cdiv, ladiv};

/// `dtrevc3` with `HOWMNY = B`: `vl`/`vr` hold `Z` on entry and the back-transformed left
/// and right eigenvectors on return (a pair as its real and imaginary columns).
pub(crate) fn trevc_real<R: Real + Elem<R = R>>(
    n: usize,
    t: &[R],
    vl: Option<&mut [R]>,
    vr: Option<&mut [R]>,
) {
    let zero = R::zero();
    let one = R::one();
    let at = |i: usize, j: usize| (i - 1) + (j - 1) * n;
    let unfl = R::safmin();
    let ulp = R::ulp();
    let smlnum = unfl * (R::lit(n as f64) / ulp);
    let bignum = (one - ulp) / smlnum;
    // The 1-norms of T's strictly upper columns, for the overflow checks.
    let mut cn = vec![zero; n + 1];
    for j in 2..=n {
        for i in 1..j {
            cn[j] += t[at(i, j)].abs();
        }
    }
    if let Some(vr) = vr {
        let q = vr.to_vec();
        let mut ip = 0i32;
        for ki in (1..=n).rev() {
            if ip == -1 {
                ip = 1;
                continue;
            }
            ip = if ki == 1 || t[at(ki, ki - 1)] == zero {
                0
            } else {
                -1
            };
            let wr = t[at(ki, ki)];
            let wi = if ip != 0 {
                t[at(ki, ki - 1)].abs().sqrt() * t[at(ki - 1, ki)].abs().sqrt()
            } else {
                zero
            };
            let smin = (ulp * (wr.abs() + wi.abs())).max(smlnum);
            if ip == 0 {
                // A real right eigenvector.
                let mut x = vec![zero; n + 1];
                x[ki] = one;
                for k in 1..ki {
                    x[k] = -t[at(k, ki)];
                }
                let mut jnxt = ki as isize - 1;
                for j in (1..ki).rev() {
                    if j as isize > jnxt {
                        continue;
                    }
                    let (mut j1, j2) = (j, j);
                    jnxt = j as isize - 1;
                    if j > 1 && t[at(j, j - 1)] != zero {
                        j1 = j - 1;
                        jnxt = j as isize - 2;
                    }
                    if j1 == j2 {
                        let a = [[t[at(j, j)], zero], [zero, zero]];
                        let b = [[x[j], zero], [zero, zero]];
                        let (mut xs, mut scale, xnorm) = laln2(false, 1, 1, smin, a, b, wr, zero);
                        if xnorm > one && cn[j] > bignum / xnorm {
                            xs[0][0] /= xnorm;
                            scale /= xnorm;
                        }
                        if scale != one {
                            x[1..=ki].iter_mut().for_each(|v| *v *= scale);
                        }
                        x[j] = xs[0][0];
                        for i in 1..j {
                            x[i] += -xs[0][0] * t[at(i, j)];
                        }
                    } else {
                        let a = block(t, n, j - 1);
                        let b = [[x[j - 1], zero], [x[j], zero]];
                        let (mut xs, mut scale, xnorm) = laln2(false, 2, 1, smin, a, b, wr, zero);
                        if xnorm > one {
                            let beta = cn[j - 1].max(cn[j]);
                            if beta > bignum / xnorm {
                                xs[0][0] /= xnorm;
                                xs[1][0] /= xnorm;
                                scale /= xnorm;
                            }
                        }
                        if scale != one {
                            x[1..=ki].iter_mut().for_each(|v| *v *= scale);
                        }
                        x[j - 1] = xs[0][0];
                        x[j] = xs[1][0];
                        for i in 1..j - 1 {
                            x[i] += -xs[0][0] * t[at(i, j - 1)];
                        }
                        for i in 1..j - 1 {
                            x[i] += -xs[1][0] * t[at(i, j)];
                        }
                    }
                }
                let mut v = back_transform(&q, n, &x, 1..=ki);
                normalize_real(&mut v);
                vr[(ki - 1) * n..ki * n].copy_from_slice(&v);
            } else {
                // A complex pair: columns ki-1 (real part) and ki (imaginary part).
                let mut xr = vec![zero; n + 1];
                let mut xi = vec![zero; n + 1];
                if t[at(ki - 1, ki)].abs() >= t[at(ki, ki - 1)].abs() {
                    xr[ki - 1] = one;
                    xi[ki] = wi / t[at(ki - 1, ki)];
                } else {
                    xr[ki - 1] = -wi / t[at(ki, ki - 1)];
                    xi[ki] = one;
                }
                xr[ki] = zero;
                xi[ki - 1] = zero;
                for k in 1..ki - 1 {
                    xr[k] = -xr[ki - 1] * t[at(k, ki - 1)];
                    xi[k] = -xi[ki] * t[at(k, ki)];
                }
                let mut jnxt = ki as isize - 2;
                for j in (1..ki - 1).rev() {
                    if j as isize > jnxt {
                        continue;
                    }
                    let (mut j1, j2) = (j, j);
                    jnxt = j as isize - 1;
                    if j > 1 && t[at(j, j - 1)] != zero {
                        j1 = j - 1;
                        jnxt = j as isize - 2;
                    }
                    if j1 == j2 {
                        let a = [[t[at(j, j)], zero], [zero, zero]];
                        let b = [[xr[j], xi[j]], [zero, zero]];
                        let (mut xs, mut scale, xnorm) = laln2(false, 1, 2, smin, a, b, wr, wi);
                        if xnorm > one && cn[j] > bignum / xnorm {
                            xs[0][0] /= xnorm;
                            xs[0][1] /= xnorm;
                            scale /= xnorm;
                        }
                        if scale != one {
                            xr[1..=ki].iter_mut().for_each(|v| *v *= scale);
                            xi[1..=ki].iter_mut().for_each(|v| *v *= scale);
                        }
                        xr[j] = xs[0][0];
                        xi[j] = xs[0][1];
                        for i in 1..j {
                            xr[i] += -xs[0][0] * t[at(i, j)];
                        }
                        for i in 1..j {
                            xi[i] += -xs[0][1] * t[at(i, j)];
                        }
                    } else {
                        let a = block(t, n, j - 1);
                        let b = [[xr[j - 1], xi[j - 1]], [xr[j], xi[j]]];
                        let (mut xs, mut scale, xnorm) = laln2(false, 2, 2, smin, a, b, wr, wi);
                        if xnorm > one {
                            let beta = cn[j - 1].max(cn[j]);
                            if beta > bignum / xnorm {
                                let rec = one / xnorm;
                                xs.iter_mut().flatten().for_each(|v| *v *= rec);
                                scale *= rec;
                            }
                        }
                        if scale != one {
                            xr[1..=ki].iter_mut().for_each(|v| *v *= scale);
                            xi[1..=ki].iter_mut().for_each(|v| *v *= scale);
                        }
                        xr[j - 1] = xs[0][0];
                        xr[j] = xs[1][0];
                        xi[j - 1] = xs[0][1];
                        xi[j] = xs[1][1];
                        for i in 1..j - 1 {
                            xr[i] += -xs[0][0] * t[at(i, j - 1)];
                        }
                        for i in 1..j - 1 {
                            xr[i] += -xs[1][0] * t[at(i, j)];
                        }
                        for i in 1..j - 1 {
                            xi[i] += -xs[0][1] * t[at(i, j - 1)];
                        }
                        for i in 1..j - 1 {
                            xi[i] += -xs[1][1] * t[at(i, j)];
                        }
                    }
                }
                let mut re = back_transform(&q, n, &xr, 1..=ki);
                let mut im = back_transform(&q, n, &xi, 1..=ki);
                normalize_pair(&mut re, &mut im);
                vr[(ki - 2) * n..(ki - 1) * n].copy_from_slice(&re);
                vr[(ki - 1) * n..ki * n].copy_from_slice(&im);
            }
        }
    }
    if let Some(vl) = vl {
        let q = vl.to_vec();
        let mut ip = 0i32;
        for ki in 1..=n {
            if ip == 1 {
                ip = -1;
                continue;
            }
            ip = if ki == n || t[at(ki + 1, ki)] == zero {
                0
            } else {
                1
            };
            let wr = t[at(ki, ki)];
            let wi = if ip != 0 {
                t[at(ki, ki + 1)].abs().sqrt() * t[at(ki + 1, ki)].abs().sqrt()
            } else {
                zero
            };
            let smin = (ulp * (wr.abs() + wi.abs())).max(smlnum);
            let dot = |col: usize, from: usize, to: usize, x: &[R]| {
                let mut s = zero;
                for k in from..to {
                    s += t[at(k, col)] * x[k];
                }
                s
            };
            if ip == 0 {
                // A real left eigenvector.
                let mut x = vec![zero; n + 1];
                x[ki] = one;
                for k in ki + 1..=n {
                    x[k] = -t[at(ki, k)];
                }
                let mut vmax = one;
                let mut vcrit = bignum;
                let mut jnxt = ki + 1;
                for j in ki + 1..=n {
                    if j < jnxt {
                        continue;
                    }
                    let (j1, mut j2) = (j, j);
                    jnxt = j + 1;
                    if j < n && t[at(j + 1, j)] != zero {
                        j2 = j + 1;
                        jnxt = j + 2;
                    }
                    if j1 == j2 {
                        if cn[j] > vcrit {
                            let rec = one / vmax;
                            x[ki..=n].iter_mut().for_each(|v| *v *= rec);
                            vmax = one;
                        }
                        let d = dot(j, ki + 1, j, &x);
                        x[j] -= d;
                        let a = [[t[at(j, j)], zero], [zero, zero]];
                        let b = [[x[j], zero], [zero, zero]];
                        let (xs, scale, _) = laln2(false, 1, 1, smin, a, b, wr, zero);
                        if scale != one {
                            x[ki..=n].iter_mut().for_each(|v| *v *= scale);
                        }
                        x[j] = xs[0][0];
                        vmax = x[j].abs().max(vmax);
                        vcrit = bignum / vmax;
                    } else {
                        let beta = cn[j].max(cn[j + 1]);
                        if beta > vcrit {
                            let rec = one / vmax;
                            x[ki..=n].iter_mut().for_each(|v| *v *= rec);
                            vmax = one;
                        }
                        let d = dot(j, ki + 1, j, &x);
                        x[j] -= d;
                        let d = dot(j + 1, ki + 1, j, &x);
                        x[j + 1] -= d;
                        let a = block(t, n, j);
                        let b = [[x[j], zero], [x[j + 1], zero]];
                        let (xs, scale, _) = laln2(true, 2, 1, smin, a, b, wr, zero);
                        if scale != one {
                            x[ki..=n].iter_mut().for_each(|v| *v *= scale);
                        }
                        x[j] = xs[0][0];
                        x[j + 1] = xs[1][0];
                        vmax = x[j].abs().max(x[j + 1].abs()).max(vmax);
                        vcrit = bignum / vmax;
                    }
                }
                let mut v = back_transform(&q, n, &x, ki..=n);
                normalize_real(&mut v);
                vl[(ki - 1) * n..ki * n].copy_from_slice(&v);
            } else {
                // A complex pair: columns ki (real part) and ki+1 (imaginary part).
                let mut xr = vec![zero; n + 1];
                let mut xi = vec![zero; n + 1];
                if t[at(ki, ki + 1)].abs() >= t[at(ki + 1, ki)].abs() {
                    xr[ki] = wi / t[at(ki, ki + 1)];
                    xi[ki + 1] = one;
                } else {
                    xr[ki] = one;
                    xi[ki + 1] = -wi / t[at(ki + 1, ki)];
                }
                xr[ki + 1] = zero;
                xi[ki] = zero;
                for k in ki + 2..=n {
                    xr[k] = -xr[ki] * t[at(ki, k)];
                    xi[k] = -xi[ki + 1] * t[at(ki + 1, k)];
                }
                let mut vmax = one;
                let mut vcrit = bignum;
                let mut jnxt = ki + 2;
                for j in ki + 2..=n {
                    if j < jnxt {
                        continue;
                    }
                    let (j1, mut j2) = (j, j);
                    jnxt = j + 1;
                    if j < n && t[at(j + 1, j)] != zero {
                        j2 = j + 1;
                        jnxt = j + 2;
                    }
                    if j1 == j2 {
                        if cn[j] > vcrit {
                            let rec = one / vmax;
                            xr[ki..=n].iter_mut().for_each(|v| *v *= rec);
                            xi[ki..=n].iter_mut().for_each(|v| *v *= rec);
                            vmax = one;
                        }
                        let d = dot(j, ki + 2, j, &xr);
                        xr[j] -= d;
                        let d = dot(j, ki + 2, j, &xi);
                        xi[j] -= d;
                        let a = [[t[at(j, j)], zero], [zero, zero]];
                        let b = [[xr[j], xi[j]], [zero, zero]];
                        let (xs, scale, _) = laln2(false, 1, 2, smin, a, b, wr, -wi);
                        if scale != one {
                            xr[ki..=n].iter_mut().for_each(|v| *v *= scale);
                            xi[ki..=n].iter_mut().for_each(|v| *v *= scale);
                        }
                        xr[j] = xs[0][0];
                        xi[j] = xs[0][1];
                        vmax = xr[j].abs().max(xi[j].abs()).max(vmax);
                        vcrit = bignum / vmax;
                    } else {
                        let beta = cn[j].max(cn[j + 1]);
                        if beta > vcrit {
                            let rec = one / vmax;
                            xr[ki..=n].iter_mut().for_each(|v| *v *= rec);
                            xi[ki..=n].iter_mut().for_each(|v| *v *= rec);
                            vmax = one;
                        }
                        let d = dot(j, ki + 2, j, &xr);
                        xr[j] -= d;
                        let d = dot(j, ki + 2, j, &xi);
                        xi[j] -= d;
                        let d = dot(j + 1, ki + 2, j, &xr);
                        xr[j + 1] -= d;
                        let d = dot(j + 1, ki + 2, j, &xi);
                        xi[j + 1] -= d;
                        let a = block(t, n, j);
                        let b = [[xr[j], xi[j]], [xr[j + 1], xi[j + 1]]];
                        let (xs, scale, _) = laln2(true, 2, 2, smin, a, b, wr, -wi);
                        if scale != one {
                            xr[ki..=n].iter_mut().for_each(|v| *v *= scale);
                            xi[ki..=n].iter_mut().for_each(|v| *v *= scale);
                        }
                        xr[j] = xs[0][0];
                        xi[j] = xs[0][1];
                        xr[j + 1] = xs[1][0];
                        xi[j + 1] = xs[1][1];
                        vmax = xs[0][0]
                            .abs()
                            .max(xs[0][1].abs())
                            .max(xs[1][0].abs())
                            .max(xs[1][1].abs())
                            .max(vmax);
                        vcrit = bignum / vmax;
                    }
                }
                let mut re = back_transform(&q, n, &xr, ki..=n);
                let mut im = back_transform(&q, n, &xi, ki..=n);
                normalize_pair(&mut re, &mut im);
                vl[(ki - 1) * n..ki * n].copy_from_slice(&re);
                vl[ki * n..(ki + 1) * n].copy_from_slice(&im);
            }
        }
    }
}

/// The 2×2 diagonal block of `t` at `(j, j)` (1-based), as `[row][column]`.
fn block<R: Real>(t: &[R], n: usize, j: usize) -> [[R; 2]; 2] {
    let at = |i: usize, c: usize| (i - 1) + (c - 1) * n;
    [
        [t[at(j, j)], t[at(j, j + 1)]],
        [t[at(j + 1, j)], t[at(j + 1, j + 1)]],
    ]
}

/// `Z x` over `Z`'s columns `cols` (1-based; `x` is indexed 1-based too).
fn back_transform<T: Elem>(
    q: &[T],
    n: usize,
    x: &[T],
    cols: std::ops::RangeInclusive<usize>,
) -> Vec<T> {
    let mut v = vec![T::ZERO; n];
    for k in cols {
        let xk = x[k];
        let col = &q[(k - 1) * n..k * n];
        for (vi, &qi) in v.iter_mut().zip(col) {
            *vi += xk * qi;
        }
    }
    v
}

/// Scales a real vector by `1 / |v(i?amax)|`.
fn normalize_real<R: Real>(v: &mut [R]) {
    let mut big = R::zero();
    for &x in v.iter() {
        if x.abs() > big {
            big = x.abs();
        }
    }
    let remax = R::one() / big;
    v.iter_mut().for_each(|x| *x *= remax);
}

/// Scales a pair's real and imaginary parts by `1 / max(|re| + |im|)`.
fn normalize_pair<R: Real>(re: &mut [R], im: &mut [R]) {
    let mut emax = R::zero();
    for (a, b) in re.iter().zip(im.iter()) {
        emax = emax.max(a.abs() + b.abs());
    }
    let remax = R::one() / emax;
    re.iter_mut().for_each(|x| *x *= remax);
    im.iter_mut().for_each(|x| *x *= remax);
}

/// `dlaln2` with `CA = 1`, `D = I`: solves `(A - w) X = s B` (or `(Aᵀ - w) X = s B` with
/// `trans`) for a 1×1 or 2×2 `a`, real (`nw = 1`) or complex (`nw = 2`, `w = wr + i wi`,
/// `b[.][1]` the imaginary parts), perturbing `A - w` to at least `smin`. Returns `(X,
/// scale, ‖X‖∞)`.
#[allow(clippy::too_many_arguments)]
fn laln2<R: Real>(
    trans: bool,
    na: usize,
    nw: usize,
    smin: R,
    a: [[R; 2]; 2],
    b: [[R; 2]; 2],
    wr: R,
    wi: R,
) -> ([[R; 2]; 2], R, R) {
    const ZSWAP: [bool; 4] = [false, false, true, true];
    const RSWAP: [bool; 4] = [false, true, false, true];
    // IPIVOT(r, icmax), 1-based entries.
    const IPIVOT: [[usize; 4]; 4] = [[1, 2, 3, 4], [2, 1, 4, 3], [3, 4, 1, 2], [4, 3, 2, 1]];
    let zero = R::zero();
    let one = R::one();
    let smlnum = R::lit(2.0) * R::safmin();
    let bignum = one / smlnum;
    let smini = smin.max(smlnum);
    let mut scale = one;
    let mut x = [[zero; 2]; 2];
    if na == 1 {
        if nw == 1 {
            let mut csr = a[0][0] - wr;
            let mut cnorm = csr.abs();
            if cnorm < smini {
                csr = smini;
                cnorm = smini;
            }
            let bnorm = b[0][0].abs();
            if cnorm < one && bnorm > one && bnorm > bignum * cnorm {
                scale = one / bnorm;
            }
            x[0][0] = (b[0][0] * scale) / csr;
            return (x, scale, x[0][0].abs());
        }
        let mut csr = a[0][0] - wr;
        let mut csi = -wi;
        let mut cnorm = csr.abs() + csi.abs();
        if cnorm < smini {
            csr = smini;
            csi = zero;
            cnorm = smini;
        }
        let bnorm = b[0][0].abs() + b[0][1].abs();
        if cnorm < one && bnorm > one && bnorm > bignum * cnorm {
            scale = one / bnorm;
        }
        let (p, q) = ladiv(scale * b[0][0], scale * b[0][1], csr, csi);
        x[0][0] = p;
        x[0][1] = q;
        return (x, scale, p.abs() + q.abs());
    }
    // CR in column-major order: CRV(1) = CR(1,1), CRV(2) = CR(2,1), CRV(3) = CR(1,2), CRV(4) = CR(2,2).
    let (c12, c21) = if trans {
        (a[1][0], a[0][1])
    } else {
        (a[0][1], a[1][0])
    };
    let crv = [a[0][0] - wr, c21, c12, a[1][1] - wr];
    if nw == 1 {
        let mut cmax = zero;
        let mut icmax = 0;
        for (j, c) in crv.iter().enumerate() {
            if c.abs() > cmax {
                cmax = c.abs();
                icmax = j;
            }
        }
        if cmax < smini {
            let bnorm = b[0][0].abs().max(b[1][0].abs());
            if smini < one && bnorm > one && bnorm > bignum * smini {
                scale = one / bnorm;
            }
            let temp = scale / smini;
            x[0][0] = temp * b[0][0];
            x[1][0] = temp * b[1][0];
            return (x, scale, temp * bnorm);
        }
        let ur11 = crv[icmax];
        let cr21 = crv[IPIVOT[icmax][1] - 1];
        let ur12 = crv[IPIVOT[icmax][2] - 1];
        let cr22 = crv[IPIVOT[icmax][3] - 1];
        let ur11r = one / ur11;
        let lr21 = ur11r * cr21;
        let mut ur22 = cr22 - ur12 * lr21;
        if ur22.abs() < smini {
            ur22 = smini;
        }
        let (br1, mut br2) = if RSWAP[icmax] {
            (b[1][0], b[0][0])
        } else {
            (b[0][0], b[1][0])
        };
        br2 -= lr21 * br1;
        let bbnd = (br1 * (ur22 * ur11r)).abs().max(br2.abs());
        if bbnd > one && ur22.abs() < one && bbnd >= bignum * ur22.abs() {
            scale = one / bbnd;
        }
        let xr2 = (br2 * scale) / ur22;
        let xr1 = (scale * br1) * ur11r - xr2 * (ur11r * ur12);
        if ZSWAP[icmax] {
            x[0][0] = xr2;
            x[1][0] = xr1;
        } else {
            x[0][0] = xr1;
            x[1][0] = xr2;
        }
        let mut xnorm = xr1.abs().max(xr2.abs());
        if xnorm > one && cmax > one && xnorm > bignum / cmax {
            let temp = cmax / bignum;
            x[0][0] = temp * x[0][0];
            x[1][0] = temp * x[1][0];
            xnorm = temp * xnorm;
            scale = temp * scale;
        }
        return (x, scale, xnorm);
    }
    let civ = [-wi, zero, zero, -wi];
    let mut cmax = zero;
    let mut icmax = 0;
    for j in 0..4 {
        if crv[j].abs() + civ[j].abs() > cmax {
            cmax = crv[j].abs() + civ[j].abs();
            icmax = j;
        }
    }
    if cmax < smini {
        let bnorm = (b[0][0].abs() + b[0][1].abs()).max(b[1][0].abs() + b[1][1].abs());
        if smini < one && bnorm > one && bnorm > bignum * smini {
            scale = one / bnorm;
        }
        let temp = scale / smini;
        for r in 0..2 {
            for c in 0..2 {
                x[r][c] = temp * b[r][c];
            }
        }
        return (x, scale, temp * bnorm);
    }
    let ur11 = crv[icmax];
    let ui11 = civ[icmax];
    let cr21 = crv[IPIVOT[icmax][1] - 1];
    let ci21 = civ[IPIVOT[icmax][1] - 1];
    let ur12 = crv[IPIVOT[icmax][2] - 1];
    let ui12 = civ[IPIVOT[icmax][2] - 1];
    let cr22 = crv[IPIVOT[icmax][3] - 1];
    let ci22 = civ[IPIVOT[icmax][3] - 1];
    let (ur11r, ui11r, lr21, li21, ur12s, ui12s, mut ur22, mut ui22);
    if icmax == 0 || icmax == 3 {
        // The off-diagonals of the pivoted C are real.
        if ur11.abs() > ui11.abs() {
            let temp = ui11 / ur11;
            ur11r = one / (ur11 * (one + temp * temp));
            ui11r = -temp * ur11r;
        } else {
            let temp = ur11 / ui11;
            ui11r = -one / (ui11 * (one + temp * temp));
            ur11r = -temp * ui11r;
        }
        lr21 = cr21 * ur11r;
        li21 = cr21 * ui11r;
        ur12s = ur12 * ur11r;
        ui12s = ur12 * ui11r;
        ur22 = cr22 - ur12 * lr21;
        ui22 = ci22 - ur12 * li21;
    } else {
        // The diagonals of the pivoted C are real.
        ur11r = one / ur11;
        ui11r = zero;
        lr21 = cr21 * ur11r;
        li21 = ci21 * ur11r;
        ur12s = ur12 * ur11r;
        ui12s = ui12 * ur11r;
        ur22 = cr22 - ur12 * lr21 + ui12 * li21;
        ui22 = -ur12 * li21 - ui12 * lr21;
    }
    let u22abs = ur22.abs() + ui22.abs();
    if u22abs < smini {
        ur22 = smini;
        ui22 = zero;
    }
    let (mut br1, mut br2, mut bi1, mut bi2) = if RSWAP[icmax] {
        (b[1][0], b[0][0], b[1][1], b[0][1])
    } else {
        (b[0][0], b[1][0], b[0][1], b[1][1])
    };
    br2 = br2 - lr21 * br1 + li21 * bi1;
    bi2 = bi2 - li21 * br1 - lr21 * bi1;
    let bbnd = ((br1.abs() + bi1.abs()) * (u22abs * (ur11r.abs() + ui11r.abs())))
        .max(br2.abs() + bi2.abs());
    if bbnd > one && u22abs < one && bbnd >= bignum * u22abs {
        scale = one / bbnd;
        br1 = scale * br1;
        bi1 = scale * bi1;
        br2 = scale * br2;
        bi2 = scale * bi2;
    }
    let (xr2, xi2) = ladiv(br2, bi2, ur22, ui22);
    let xr1 = ur11r * br1 - ui11r * bi1 - ur12s * xr2 + ui12s * xi2;
    let xi1 = ui11r * br1 + ur11r * bi1 - ui12s * xr2 - ur12s * xi2;
    if ZSWAP[icmax] {
        x = [[xr2, xi2], [xr1, xi1]];
    } else {
        x = [[xr1, xi1], [xr2, xi2]];
    }
    let mut xnorm = (xr1.abs() + xi1.abs()).max(xr2.abs() + xi2.abs());
    if xnorm > one && cmax > one && xnorm > bignum / cmax {
        let temp = cmax / bignum;
        x.iter_mut().flatten().for_each(|v| *v = temp * *v);
        xnorm = temp * xnorm;
        scale = temp * scale;
    }
    (x, scale, xnorm)
}

/// `ztrevc3` with `HOWMNY = B`: `vl`/`vr` hold `Z` on entry and the back-transformed left
/// and right eigenvectors on return.
pub(crate) fn trevc_complex<R: Real>(
    n: usize,
    t: &[Complex<R>],
    vl: Option<&mut [Complex<R>]>,
    vr: Option<&mut [Complex<R>]>,
) where
    Complex<R>: Elem<R = R>,
{
    let zero = R::zero();
    let czero = Complex::new(zero, zero);
    let cone = Complex::new(R::one(), zero);
    let at = |i: usize, j: usize| (i - 1) + (j - 1) * n;
    let cabs1 = |x: Complex<R>| x.re.abs() + x.im.abs();
    let ulp = R::ulp();
    let smlnum = R::safmin() * (R::lit(n as f64) / ulp);
    let mut t = t.to_vec();
    let diag: Vec<Complex<R>> = (1..=n).map(|i| t[at(i, i)]).collect();
    if let Some(vr) = vr {
        let q = vr.to_vec();
        for ki in (1..=n).rev() {
            let smin = (ulp * cabs1(t[at(ki, ki)])).max(smlnum);
            let mut x = vec![czero; n + 1];
            x[ki] = cone;
            for k in 1..ki {
                x[k] = -t[at(k, ki)];
            }
            for k in 1..ki {
                t[at(k, k)] = t[at(k, k)] - t[at(ki, ki)];
                if cabs1(t[at(k, k)]) < smin {
                    t[at(k, k)] = Complex::new(smin, zero);
                }
            }
            // Upper triangular solve, columns right to left (`ztrsv`, `N`).
            for j in (1..ki).rev() {
                if x[j] != czero {
                    x[j] = cdiv(x[j], t[at(j, j)]);
                    let temp = x[j];
                    for i in (1..j).rev() {
                        x[i] -= temp * t[at(i, j)];
                    }
                }
            }
            let mut v = back_transform(&q, n, &x, 1..=ki);
            normalize_complex(&mut v);
            vr[(ki - 1) * n..ki * n].copy_from_slice(&v);
            for k in 1..ki {
                t[at(k, k)] = diag[k - 1];
            }
        }
    }
    if let Some(vl) = vl {
        let q = vl.to_vec();
        for ki in 1..=n {
            let smin = (ulp * cabs1(t[at(ki, ki)])).max(smlnum);
            let mut x = vec![czero; n + 1];
            x[ki] = cone;
            for k in ki + 1..=n {
                x[k] = -t[at(ki, k)].conj();
            }
            for k in ki + 1..=n {
                t[at(k, k)] = t[at(k, k)] - t[at(ki, ki)];
                if cabs1(t[at(k, k)]) < smin {
                    t[at(k, k)] = Complex::new(smin, zero);
                }
            }
            // Conjugate-transposed upper triangular solve, top to bottom (`ztrsv`, `C`).
            for j in ki + 1..=n {
                let mut temp = x[j];
                for i in ki + 1..j {
                    temp -= t[at(i, j)].conj() * x[i];
                }
                x[j] = cdiv(temp, t[at(j, j)].conj());
            }
            let mut v = back_transform(&q, n, &x, ki..=n);
            normalize_complex(&mut v);
            vl[(ki - 1) * n..ki * n].copy_from_slice(&v);
            for k in ki + 1..=n {
                t[at(k, k)] = diag[k - 1];
            }
        }
    }
}

/// Scales a complex vector by `1 / cabs1(v(izamax))`.
fn normalize_complex<R: Real>(v: &mut [Complex<R>])
where
    Complex<R>: Elem<R = R>,
{
    let mut big = R::zero();
    for &x in v.iter() {
        if x.abs1() > big {
            big = x.abs1();
        }
    }
    let remax = R::one() / big;
    v.iter_mut().for_each(|x| *x = x.scale(remax));
}
