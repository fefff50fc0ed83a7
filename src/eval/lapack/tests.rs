//! The shared LAPACK routines on small matrices, checked by what they must satisfy
//! (`P A = L U`, `A = Q R` with orthonormal `Q`, `A = U Σ Vᴴ`, `A V = V Λ`, the solved
//! system), and against LAPACK's own output conventions where those are fixed (`ipiv`,
//! `info`, real `tau`, ascending eigenvalues).

use num_complex::Complex;

use super::*;

type C = Complex<f64>;

/// A deterministic `m×n` column-major matrix with entries in [-1, 1).
fn matrix<T>(m: usize, n: usize, seed: u64) -> Vec<T>
where
    T: Scalar + FromPair,
{
    let mut s = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    let mut next = || {
        s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((s >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    };
    (0..m * n).map(|_| T::pair(next(), next())).collect()
}

trait FromPair {
    fn pair(re: f64, im: f64) -> Self;
    fn c(self) -> C;
}
impl FromPair for f64 {
    fn pair(re: f64, _: f64) -> Self {
        re
    }
    fn c(self) -> C {
        C::new(self, 0.0)
    }
}
impl FromPair for C {
    fn pair(re: f64, im: f64) -> Self {
        C::new(re, im)
    }
    fn c(self) -> C {
        self
    }
}

/// `a (m×k) · b (k×n)`, column-major, in c128.
fn mul(a: &[C], b: &[C], m: usize, k: usize, n: usize) -> Vec<C> {
    let mut out = vec![C::new(0.0, 0.0); m * n];
    for j in 0..n {
        for p in 0..k {
            for i in 0..m {
                out[i + j * m] += a[i + p * m] * b[p + j * k];
            }
        }
    }
    out
}

fn adjoint(a: &[C], m: usize, n: usize) -> Vec<C> {
    let mut out = vec![C::new(0.0, 0.0); m * n];
    for j in 0..n {
        for i in 0..m {
            out[j + i * n] = a[i + j * m].conj();
        }
    }
    out
}

fn cx<T: FromPair + Copy>(v: &[T]) -> Vec<C> {
    v.iter().map(|x| x.c()).collect()
}

fn assert_close(a: &[C], b: &[C], tol: f64, what: &str) {
    assert_eq!(a.len(), b.len(), "{what}: lengths");
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        assert!((x - y).norm() <= tol, "{what}: element {i}: {x} vs {y}");
    }
}

fn assert_orthonormal_columns(q: &[C], m: usize, n: usize, what: &str) {
    let g = mul(&adjoint(q, m, n), q, n, m, n);
    let eye: Vec<C> = (0..n * n)
        .map(|e| C::new(if e % n == e / n { 1.0 } else { 0.0 }, 0.0))
        .collect();
    assert_close(&g, &eye, 1e-10, what);
}

fn getrf_case<T: Scalar<Re = f64> + FromPair>(m: usize, n: usize) {
    let a0: Vec<T> = matrix(m, n, (m * 31 + n) as u64);
    let mut a = a0.clone();
    let (ipiv, info) = getrf(m, n, &mut a);
    assert_eq!(info, 0);
    let k = m.min(n);
    assert_eq!(ipiv.len(), k);
    // P A: apply the swaps in order.
    let mut pa = cx(&a0);
    for (i, &p) in ipiv.iter().enumerate() {
        let p = p as usize - 1;
        assert!(p >= i && p < m, "ipiv {ipiv:?}");
        for c in 0..n {
            pa.swap(i + c * m, p + c * m);
        }
    }
    let f = cx(&a);
    let l: Vec<C> = (0..m * k)
        .map(|e| {
            let (i, j) = (e % m, e / m);
            match i.cmp(&j) {
                std::cmp::Ordering::Greater => f[i + j * m],
                std::cmp::Ordering::Equal => C::new(1.0, 0.0),
                _ => C::new(0.0, 0.0),
            }
        })
        .collect();
    let u: Vec<C> = (0..k * n)
        .map(|e| {
            let (i, j) = (e % k, e / k);
            if i <= j {
                f[i + j * m]
            } else {
                C::new(0.0, 0.0)
            }
        })
        .collect();
    assert_close(&mul(&l, &u, m, k, n), &pa, 1e-12, "P A = L U");
    // Partial pivoting on |re| + |im|: a multiplier is at most 1 (real) or √2 in modulus
    // (complex: |a| ≤ |re a| + |im a| ≤ |re p| + |im p| ≤ √2 |p|).
    for x in &l {
        assert!(
            x.norm() <= std::f64::consts::SQRT_2 + 1e-12,
            "multiplier {x}"
        );
    }
}

#[test]
fn getrf_factors_real_and_complex_of_every_shape() {
    for (m, n) in [(1, 1), (4, 4), (5, 3), (3, 5), (40, 40), (70, 33)] {
        getrf_case::<f64>(m, n);
        getrf_case::<C>(m, n);
    }
}

#[test]
fn getrf_reports_a_zero_pivot_and_stays_finite() {
    // Rank one: the second pivot is exactly zero.
    let mut a = vec![1.0f64, 2.0, 2.0, 4.0];
    let (ipiv, info) = getrf(2, 2, &mut a);
    assert_eq!(info, 2);
    assert_eq!(ipiv, vec![2, 2]);
    assert_eq!(a, vec![2.0, 0.5, 4.0, 0.0]);
    let mut z = vec![0.0f64; 9];
    let (ipiv, info) = getrf(3, 3, &mut z);
    assert_eq!((ipiv, info), (vec![1, 2, 3], 1));
    assert!(z.iter().all(|x| *x == 0.0));
}

fn qr_case<T: Scalar<Re = f64> + FromPair>(m: usize, n: usize) {
    let a0: Vec<T> = matrix(m, n, (m * 7 + n) as u64);
    let mut a = a0.clone();
    let tau = geqrf(m, n, &mut a);
    let k = m.min(n);
    assert_eq!(tau.len(), k);
    if !T::COMPLEX_TYPE {
        for t in &tau {
            // Real reflectors: tau in [1, 2] (or 0 for a skipped one).
            let t = t.c().re;
            assert!(t == 0.0 || (1.0..=2.0).contains(&t), "tau {t}");
        }
    }
    // Q (m×k) from the reflectors; R (k×n) the upper trapezoid.
    let qa: Vec<T> = a[..m * k].to_vec();
    let q = cx(&orgqr(m, k, &qa, &tau));
    assert_orthonormal_columns(&q, m, k, "Q");
    let f = cx(&a);
    let r: Vec<C> = (0..k * n)
        .map(|e| {
            let (i, j) = (e % k, e / k);
            if i <= j {
                f[i + j * m]
            } else {
                C::new(0.0, 0.0)
            }
        })
        .collect();
    assert_close(&mul(&q, &r, m, k, n), &cx(&a0), 1e-12, "A = Q R");
    // LAPACK's convention: R's diagonal is real (for complex input too), β = -sign(α)‖x‖.
    for i in 0..k {
        assert_eq!(
            f[i + i * m].im,
            0.0,
            "R[{i}, {i}] = {} is not real",
            f[i + i * m]
        );
    }
    if m > n {
        // The complete Q of `mode='complete'`: orgqr on an m×m matrix.
        let mut full = a.clone();
        full.resize(m * m, T::zero());
        let q = cx(&orgqr(m, m, &full, &tau));
        assert_orthonormal_columns(&q, m, m, "complete Q");
    }
}

#[test]
fn geqrf_and_orgqr_reconstruct() {
    for (m, n) in [(1, 1), (4, 3), (3, 4), (6, 6), (50, 37), (37, 70)] {
        qr_case::<f64>(m, n);
        qr_case::<C>(m, n);
    }
}

#[test]
fn orgqr_accepts_lapack_complex_tau() {
    // LAPACK's complex reflectors (tau not real): H = I - tau v vᴴ with tau = 1 + i/2
    // and v = (1, 0.5): Q must be H itself.
    let tau = [C::new(1.0, 0.5)];
    let a = [
        C::new(9.0, 9.0),
        C::new(0.5, 0.0),
        C::new(9.0, 9.0),
        C::new(9.0, 9.0),
    ];
    let q = orgqr(2, 2, &a, &tau);
    let v = [C::new(1.0, 0.0), C::new(0.5, 0.0)];
    let h: Vec<C> = (0..4)
        .map(|e| {
            let (i, j) = (e % 2, e / 2);
            let id = if i == j { 1.0 } else { 0.0 };
            C::new(id, 0.0) - tau[0] * v[i] * v[j].conj()
        })
        .collect();
    assert_close(&q, &h, 1e-15, "Q = H");
}

fn svd_case<T: Scalar<Re = f64> + FromPair>(m: usize, n: usize) {
    let a0: Vec<T> = matrix(m, n, (m * 13 + n) as u64);
    let k = m.min(n);
    for job in [SvdJob::All, SvdJob::Some] {
        let (s, u, vt, info) = gesdd(m, n, &a0, job);
        assert_eq!(info, 0);
        let (s, u, vt) = (s.unwrap(), cx(&u.unwrap()), cx(&vt.unwrap()));
        let s: Vec<f64> = s.iter().map(|x| x.c().re).collect();
        assert!(s.windows(2).all(|w| w[0] >= w[1]), "descending {s:?}");
        let (uc, vr) = if job == SvdJob::All { (m, n) } else { (k, k) };
        assert_orthonormal_columns(&u, m, uc, "U");
        assert_orthonormal_columns(&adjoint(&vt, vr, n), n, vr, "V");
        // U[:, :k] Σ Vᴴ[:k, :] = A.
        let mut us = u[..m * k].to_vec();
        for j in 0..k {
            for i in 0..m {
                us[i + j * m] *= s[j];
            }
        }
        let vtk: Vec<C> = (0..k * n).map(|e| vt[(e % k) + (e / k) * vr]).collect();
        assert_close(&mul(&us, &vtk, m, k, n), &cx(&a0), 1e-12, "U Σ Vᴴ");
        let (only, ..) = gesdd(m, n, &a0, SvdJob::None);
        let only: Vec<f64> = only.unwrap().iter().map(|x| x.c().re).collect();
        for (x, y) in only.iter().zip(&s) {
            assert!((x - y).abs() < 1e-12);
        }
    }
}

#[test]
fn gesdd_full_and_reduced_reconstruct() {
    for (m, n) in [(1, 1), (4, 3), (3, 4), (8, 8), (40, 25)] {
        svd_case::<f64>(m, n);
        svd_case::<C>(m, n);
    }
}

#[test]
fn gesdd_of_nan_reports_info() {
    let a = vec![f64::NAN, 1.0, 2.0, 3.0];
    let (s, _, _, info) = gesdd(2, 2, &a, SvdJob::All);
    assert_eq!((s, info), (None, 1));
}

fn eigh_case<T: Scalar<Re = f64> + FromPair>(n: usize, lower: bool) {
    let a0: Vec<T> = matrix(n, n, n as u64 + 3);
    // The Hermitian matrix of the named triangle (the other triangle is garbage).
    let h = cx(&a0);
    let herm: Vec<C> = (0..n * n)
        .map(|e| {
            let (i, j) = (e % n, e / n);
            if i == j {
                C::new(h[e].re, 0.0)
            } else if (i > j) == lower {
                h[e]
            } else {
                h[j + i * n].conj()
            }
        })
        .collect();
    let mut a = a0.clone();
    let (w, info) = syevd(n, &mut a, lower, true);
    assert_eq!(info, 0);
    let w: Vec<f64> = w.iter().map(|x| x.c().re).collect();
    assert!(w.windows(2).all(|p| p[0] <= p[1]), "ascending {w:?}");
    let v = cx(&a);
    assert_orthonormal_columns(&v, n, n, "eigenvectors");
    let av = mul(&herm, &v, n, n, n);
    let vw: Vec<C> = (0..n * n).map(|e| v[e] * w[e / n]).collect();
    assert_close(&av, &vw, 1e-11, "A V = V Λ");
    let mut b = a0.clone();
    let (w2, _) = syevd(n, &mut b, lower, false);
    for (x, y) in w2.iter().zip(&w) {
        assert!((x.c().re - y).abs() < 1e-11);
    }
}

#[test]
fn syevd_reads_one_triangle() {
    for n in [1, 2, 5, 30] {
        for lower in [true, false] {
            eigh_case::<f64>(n, lower);
            eigh_case::<C>(n, lower);
        }
    }
}

fn geev_case<T: Scalar<Re = f64> + FromPair>(n: usize) {
    let a0: Vec<T> = matrix(n, n, n as u64 + 11);
    let (w, vl, vr, info) = geev(n, &a0, true, true);
    assert_eq!(info, 0);
    let a = cx(&a0);
    assert_close(
        &mul(&a, &vr, n, n, n),
        &(0..n * n).map(|e| vr[e] * w[e / n]).collect::<Vec<_>>(),
        1e-10,
        "A VR = VR Λ",
    );
    // uⱼᴴ A = λⱼ uⱼᴴ  ⇔  Aᴴ uⱼ = conj(λⱼ) uⱼ.
    assert_close(
        &mul(&adjoint(&a, n, n), &vl, n, n, n),
        &(0..n * n)
            .map(|e| vl[e] * w[e / n].conj())
            .collect::<Vec<_>>(),
        1e-10,
        "Aᴴ VL = VL Λ̄",
    );
    for v in [&vl, &vr] {
        for j in 0..n {
            let col = &v[j * n..(j + 1) * n];
            let norm: f64 = col.iter().map(|c| c.norm_sqr()).sum();
            assert!((norm - 1.0).abs() < 1e-12);
            let big = col
                .iter()
                .enumerate()
                .fold(
                    (0, -1.0),
                    |b, (i, c)| if c.norm() > b.1 { (i, c.norm()) } else { b },
                )
                .0;
            // Real: LAPACK leaves the sign as the Schur vectors give it (a pair's largest
            // component real, of either sign); complex: real and positive.
            assert!(col[big].im == 0.0 && col[big].re != 0.0);
            assert!(!T::COMPLEX_TYPE || col[big].re > 0.0);
        }
    }
}

#[test]
fn geev_values_alone_are_the_values_with_vectors() {
    for n in [1, 2, 5, 12] {
        let a: Vec<f64> = matrix(n, n, n as u64 + 31);
        let (w, _, _, _) = geev(n, &a, true, true);
        let (w_only, vl, vr, info) = geev(n, &a, false, false);
        assert_eq!(info, 0);
        assert_eq!(w, w_only, "{n}x{n}");
        assert!(vl.iter().chain(&vr).all(|c| *c == C::new(0.0, 0.0)));
    }
}

#[test]
fn geev_isolates_eigenvalues_by_permuting() {
    // Row 2 and column 0 are zero off the diagonal: ?gebal moves them out, and their
    // eigenvalues (3 and 5) are read off the diagonal exactly.
    let a = vec![5.0, 0.0, 0.0, 1.0, 2.0, 0.0, 4.0, -1.0, 3.0];
    let (w, _, vr, info) = geev::<f64>(3, &a, false, true);
    assert_eq!(info, 0);
    let mut re: Vec<f64> = w.iter().map(|c| c.re).collect();
    re.sort_by(f64::total_cmp);
    assert_eq!(re, vec![2.0, 3.0, 5.0]);
    let a = cx(&a);
    assert_close(
        &mul(&a, &vr, 3, 3, 3),
        &(0..9).map(|e| vr[e] * w[e / 3]).collect::<Vec<_>>(),
        1e-14,
        "A VR = VR Λ",
    );
}

#[test]
fn geev_left_and_right_vectors() {
    for n in [1, 2, 5, 12] {
        geev_case::<f64>(n);
        geev_case::<C>(n);
    }
}

#[test]
fn gtsv_solves_and_pivots() {
    let n = 6;
    for dominant in [true, false] {
        let mut dl: Vec<f64> = (0..n)
            .map(|i| if i == 0 { 0.0 } else { 1.5 + i as f64 })
            .collect();
        let mut d: Vec<f64> = (0..n)
            .map(|i| if dominant { 10.0 } else { 0.1 * i as f64 })
            .collect();
        let mut du: Vec<f64> = (0..n)
            .map(|i| if i == n - 1 { 0.0 } else { -0.5 })
            .collect();
        let x: Vec<f64> = (0..2 * n).map(|e| e as f64 - 3.0).collect();
        // b = A x, column by column.
        let mut b = vec![0.0; 2 * n];
        for c in 0..2 {
            for i in 0..n {
                let mut s = d[i] * x[i + c * n];
                if i > 0 {
                    s += dl[i] * x[i - 1 + c * n];
                }
                if i + 1 < n {
                    s += du[i] * x[i + 1 + c * n];
                }
                b[i + c * n] = s;
            }
        }
        let info = gtsv(&mut dl, &mut d, &mut du, &mut b, 2);
        assert_eq!(info, 0);
        for (p, q) in b.iter().zip(&x) {
            assert!((p - q).abs() < 1e-12, "{b:?} vs {x:?}");
        }
    }
    let (mut dl, mut d, mut du, mut b) = (
        vec![0.0, 0.0],
        vec![0.0, 1.0],
        vec![0.0, 0.0],
        vec![1.0, 1.0],
    );
    assert_eq!(gtsv(&mut dl, &mut d, &mut du, &mut b, 1), 1);
}

/// `H₁⋯H_k` (n×n) for reflectors `vs[i]` (full length n) and `taus[i]`.
fn reflectors_product(vs: &[Vec<C>], taus: &[C], n: usize) -> Vec<C> {
    let mut q: Vec<C> = (0..n * n)
        .map(|e| C::new(if e % n == e / n { 1.0 } else { 0.0 }, 0.0))
        .collect();
    // q ← q H_i for i in order.
    for (v, &t) in vs.iter().zip(taus) {
        let h: Vec<C> = (0..n * n)
            .map(|e| {
                let (i, j) = (e % n, e / n);
                C::new(if i == j { 1.0 } else { 0.0 }, 0.0) - t * v[i] * v[j].conj()
            })
            .collect();
        q = mul(&q, &h, n, n, n);
    }
    q
}

fn gehrd_case<T: Scalar<Re = f64> + FromPair>(n: usize) {
    let a0: Vec<T> = matrix(n, n, n as u64 + 21);
    let mut a = a0.clone();
    let tau = gehrd(n, &mut a, 1, n);
    let f = cx(&a);
    let vs: Vec<Vec<C>> = (0..n - 1)
        .map(|i| {
            (0..n)
                .map(|r| match r.cmp(&(i + 1)) {
                    std::cmp::Ordering::Less => C::new(0.0, 0.0),
                    std::cmp::Ordering::Equal => C::new(1.0, 0.0),
                    _ => f[r + i * n],
                })
                .collect()
        })
        .collect();
    let q = reflectors_product(&vs, &cx(&tau), n);
    assert_orthonormal_columns(&q, n, n, "gehrd Q");
    let h: Vec<C> = (0..n * n)
        .map(|e| {
            if e % n <= e / n + 1 {
                f[e]
            } else {
                C::new(0.0, 0.0)
            }
        })
        .collect();
    let back = mul(&mul(&q, &h, n, n, n), &adjoint(&q, n, n), n, n, n);
    assert_close(&back, &cx(&a0), 1e-12, "Q H Qᴴ = A");
}

#[test]
fn gehrd_reduces_to_hessenberg() {
    for n in [1, 2, 5, 9] {
        gehrd_case::<f64>(n);
        gehrd_case::<C>(n);
    }
}

fn sytrd_case<T: Scalar<Re = f64> + FromPair>(n: usize, lower: bool) {
    let a0: Vec<T> = matrix(n, n, n as u64 + 41);
    let h0 = cx(&a0);
    let herm: Vec<C> = (0..n * n)
        .map(|e| {
            let (i, j) = (e % n, e / n);
            if i == j {
                C::new(h0[e].re, 0.0)
            } else if (i > j) == lower {
                h0[e]
            } else {
                h0[j + i * n].conj()
            }
        })
        .collect();
    let mut a = a0.clone();
    let (d, e, tau) = sytrd(n, &mut a, lower);
    let f = cx(&a);
    let vs: Vec<Vec<C>> = (0..n - 1)
        .map(|i| {
            (0..n)
                .map(|r| {
                    if lower {
                        match r.cmp(&(i + 1)) {
                            std::cmp::Ordering::Less => C::new(0.0, 0.0),
                            std::cmp::Ordering::Equal => C::new(1.0, 0.0),
                            _ => f[r + i * n],
                        }
                    } else {
                        match r.cmp(&i) {
                            std::cmp::Ordering::Less => f[r + (i + 1) * n],
                            std::cmp::Ordering::Equal => C::new(1.0, 0.0),
                            _ => C::new(0.0, 0.0),
                        }
                    }
                })
                .collect()
        })
        .collect();
    // Lower: Q = H₁⋯H_{n-1}; upper: Q = H_{n-1}⋯H₁.
    let taus = cx(&tau);
    let q = if lower {
        reflectors_product(&vs, &taus, n)
    } else {
        let rv: Vec<Vec<C>> = vs.iter().rev().cloned().collect();
        let rt: Vec<C> = taus.iter().rev().copied().collect();
        reflectors_product(&rv, &rt, n)
    };
    assert_orthonormal_columns(&q, n, n, "sytrd Q");
    let t: Vec<C> = (0..n * n)
        .map(|k| {
            let (i, j) = (k % n, k / n);
            if i == j {
                d[i].c()
            } else if i == j + 1 {
                e[j].c()
            } else if j == i + 1 {
                e[i].c()
            } else {
                C::new(0.0, 0.0)
            }
        })
        .collect();
    let back = mul(&mul(&q, &t, n, n, n), &adjoint(&q, n, n), n, n, n);
    assert_close(&back, &herm, 1e-12, "Q T Qᴴ = A");
}

#[test]
fn sytrd_reduces_either_triangle() {
    for n in [1, 2, 5, 8] {
        for lower in [true, false] {
            sytrd_case::<f64>(n, lower);
            sytrd_case::<C>(n, lower);
        }
    }
}

fn gees_case<T: Scalar<Re = f64> + FromPair>(n: usize, a0: Vec<T>) {
    let (t0, z0, w, info) = gees(n, &a0, true);
    assert_eq!(info, 0, "{n}x{n}");
    let (a, t, z) = (cx(&a0), cx(&t0), cx(&z0));
    assert_close(
        &mul(&mul(&z, &t, n, n, n), &adjoint(&z, n, n), n, n, n),
        &a,
        1e-10,
        "Z T Zᴴ = A",
    );
    assert_orthonormal_columns(&z, n, n, "Z");
    // Complex: triangular. Real: quasi-triangular, no two adjacent subdiagonal entries,
    // each 2×2 block a conjugate pair, the eigenvalues read off the blocks.
    for j in 0..n {
        for i in j + 1..n {
            let sub = i == j + 1 && !T::COMPLEX_TYPE;
            assert!(
                sub || t[i + j * n] == C::new(0.0, 0.0),
                "T[{i},{j}] = {}",
                t[i + j * n]
            );
        }
    }
    let mut i = 0;
    while i < n {
        if i + 1 < n && t[i + 1 + i * n] != C::new(0.0, 0.0) {
            assert!(i + 2 >= n || t[i + 2 + (i + 1) * n] == C::new(0.0, 0.0));
            assert!(
                w[i].im > 0.0 && w[i + 1] == w[i].conj(),
                "pair {} {}",
                w[i],
                w[i + 1]
            );
            let trace = t[i + i * n] + t[i + 1 + (i + 1) * n];
            assert!((w[i] + w[i + 1] - trace).norm() < 1e-12);
            // LAPACK's standard form (`?lanv2`): equal diagonal, off-diagonals of opposite sign.
            assert_eq!(t[i + i * n], t[i + 1 + (i + 1) * n], "2×2 block at {i}");
            assert!((t[i + (i + 1) * n] * t[i + 1 + i * n]).re < 0.0);
            i += 2;
        } else {
            assert!((w[i] - t[i + i * n]).norm() == 0.0);
            i += 1;
        }
    }
}

#[test]
fn gees_reconstructs_with_unitary_vectors() {
    for n in [0, 1, 2, 3, 5, 12] {
        gees_case::<f64>(n, matrix(n, n, n as u64 + 21));
        gees_case::<C>(n, matrix(n, n, n as u64 + 21));
    }
    // A rotation by 90° (eigenvalues ±i): one real 2×2 block.
    gees_case::<f64>(2, vec![0.0, 1.0, -1.0, 0.0]);
    // The cyclic shift of order 3 (eigenvalues the cube roots of unity), which stalls a
    // double-shift QR without exceptional shifts, and a Jordan block (defective).
    gees_case::<f64>(3, vec![0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0]);
    gees_case::<f64>(3, vec![2.0, 0.0, 0.0, 1.0, 2.0, 0.0, 0.0, 1.0, 2.0]);
    let (_, _, _, info) = gees::<f64>(2, &[1.0, f64::NAN, 0.0, 1.0], true);
    assert_eq!(info, 1);
}

/// `Q` (m×m) of the reflectors in the column-major `a` (`m` rows) and `tau`, explicitly.
fn q_of(a: &[C], m: usize, tau: &[C]) -> Vec<C> {
    let mut full = a.to_vec();
    full.resize(m * m, C::new(0.0, 0.0));
    orgqr(m, m, &full, tau)
}

#[test]
fn geqrf_complex_matches_lapack_zgeqrf() {
    // [[1+i, 2], [3, 4-i]]: R, the reflector and tau as LAPACK's zgeqrf gives them (scipy's
    // `scipy.linalg.lapack.zgeqrf`, OpenBLAS 0.3): R's diagonal real, the last tau nonzero
    // because it turns the complex R[1,1] real.
    let mut a = [
        C::new(1.0, 1.0),
        C::new(3.0, 0.0),
        C::new(2.0, 0.0),
        C::new(4.0, -1.0),
    ];
    let tau = geqrf(2, 2, &mut a);
    let want_a = [
        C::new(-3.3166247903554003, 0.0),
        C::new(0.6595889446538256, -0.1528020100629408),
        C::new(-4.22115882408869, 1.5075567228888178),
        C::new(-0.9534625892455922, 0.0),
    ];
    let want_tau = [
        C::new(1.3015113445777635, 0.3015113445777636),
        C::new(1.1331464030877865, 0.9910963804518633),
    ];
    assert_close(&a, &want_a, 1e-14, "R and the reflector");
    assert_close(&tau, &want_tau, 1e-14, "tau");
}

#[test]
fn ormqr_applies_q_and_its_adjoint_from_either_side() {
    let (m, n) = (5, 3);
    let mut a: Vec<C> = matrix(m, n, 11);
    let tau = geqrf(m, n, &mut a);
    let q = q_of(&a, m, &tau);
    let qh = adjoint(&q, m, m);
    for left in [true, false] {
        for transpose in [false, true] {
            let (rows, cols) = if left { (m, 2) } else { (2, m) };
            let c0: Vec<C> = matrix(rows, cols, 12);
            let mut c = c0.clone();
            ormqr(Ormqr { left, transpose }, &a, m, &tau, &mut c, rows, cols);
            let op = if transpose { &qh } else { &q };
            let want = if left {
                mul(op, &c0, m, m, cols)
            } else {
                mul(&c0, op, rows, m, m)
            };
            assert_close(
                &c,
                &want,
                1e-12,
                &format!("left={left} transpose={transpose}"),
            );
        }
    }
}

fn geqp3_case<T: Scalar<Re = f64> + FromPair>(m: usize, n: usize, fixed: &[usize]) {
    let mut a0: Vec<T> = matrix(m, n, (m * 5 + n) as u64);
    // A repeated column (times 2): rank-deficient, so the pivots must leave it last.
    for i in 0..m {
        a0[i + m] = a0[i] + a0[i];
    }
    let mut a = a0.clone();
    let mut jpvt = vec![0i32; n];
    for &f in fixed {
        jpvt[f] = 1;
    }
    let tau = geqp3(m, n, &mut a, &mut jpvt);
    let k = m.min(n);
    // A P = Q R, with P from the 1-based jpvt.
    let mut seen = vec![false; n];
    for &p in &jpvt {
        assert!(
            (1..=n as i32).contains(&p) && !seen[p as usize - 1],
            "jpvt {jpvt:?}"
        );
        seen[p as usize - 1] = true;
    }
    for (slot, &f) in fixed.iter().enumerate() {
        assert_eq!(
            jpvt[slot],
            f as i32 + 1,
            "fixed columns come first: {jpvt:?}"
        );
    }
    let f = cx(&a);
    let q = &q_of(&f, m, &cx(&tau))[..m * k];
    let r: Vec<C> = (0..k * n)
        .map(|e| {
            let (i, j) = (e % k, e / k);
            if i <= j {
                f[i + j * m]
            } else {
                C::new(0.0, 0.0)
            }
        })
        .collect();
    let a0 = cx(&a0);
    let ap: Vec<C> = (0..n)
        .flat_map(|j| {
            let c = jpvt[j] as usize - 1;
            a0[c * m..(c + 1) * m].to_vec()
        })
        .collect();
    assert_close(&mul(q, &r, m, k, n), &ap, 1e-12, "A P = Q R");
    // The free part's diagonal of R does not grow in magnitude, and is real.
    for i in fixed.len()..k {
        assert_eq!(f[i + i * m].im, 0.0);
        if i + 1 < k {
            assert!(f[i + i * m].norm() + 1e-12 >= f[i + 1 + (i + 1) * m].norm());
        }
    }
}

#[test]
fn geqp3_pivots_by_column_norm_after_fixed_columns() {
    for (m, n) in [(5, 4), (4, 6), (6, 6), (1, 3)] {
        geqp3_case::<f64>(m, n, &[]);
        geqp3_case::<C>(m, n, &[]);
    }
    geqp3_case::<f64>(6, 5, &[1, 3]);
    geqp3_case::<C>(6, 5, &[1, 3]);
    geqp3_case::<f64>(3, 5, &[0, 2, 4]);
}

/// `T x` for the tridiagonal `T` of `(dl, d, du)` and the column-major `n×nrhs` `x`.
fn tridiagonal_times(dl: &[C], d: &[C], du: &[C], x: &[C], nrhs: usize) -> Vec<C> {
    let n = d.len();
    let mut out = vec![C::new(0.0, 0.0); n * nrhs];
    for c in 0..nrhs {
        for i in 0..n {
            let mut s = d[i] * x[i + c * n];
            if i > 0 {
                s += dl[i] * x[i - 1 + c * n];
            }
            if i + 1 < n {
                s += du[i] * x[i + 1 + c * n];
            }
            out[i + c * n] = s;
        }
    }
    out
}

#[test]
fn tridiagonal_solve_perturbed_solves_and_survives_singular_systems() {
    let n = 6;
    let dl: Vec<C> = matrix(n, 1, 21);
    let d: Vec<C> = matrix(n, 1, 22);
    let du: Vec<C> = matrix(n, 1, 23);
    let b: Vec<C> = matrix(n, 2, 24);
    let mut x = b.clone();
    tridiagonal_solve_perturbed(&dl, &d, &du, &mut x, 2);
    assert_close(
        &tridiagonal_times(&dl, &d, &du, &x, 2),
        &b,
        1e-10,
        "T x = b",
    );
    // A zero matrix: every pivot is perturbed to a tiny nonzero value; the answer is
    // finite (huge), not inf or NaN.
    let zero = vec![0.0f64; 4];
    let mut x = vec![1.0f64; 4];
    tridiagonal_solve_perturbed(&zero, &zero, &zero, &mut x, 1);
    assert!(x.iter().all(|v| v.is_finite() && *v != 0.0), "{x:?}");
    // n = 1.
    let mut x = vec![C::new(2.0, 0.0)];
    tridiagonal_solve_perturbed(
        &[C::new(0.0, 0.0)],
        &[C::new(0.0, 4.0)],
        &[C::new(0.0, 0.0)],
        &mut x,
        1,
    );
    assert_close(&x, &[C::new(0.0, -0.5)], 1e-15, "1x1");
}
