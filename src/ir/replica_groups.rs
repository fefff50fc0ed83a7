//! Replica groups as HLO text writes them (`replica_groups=`, `source_target_pairs=`):
//! explicit lists `{{0,1},{2,3}}`, XLA's iota form `[G,S]<=[N]` and its mesh form, read
//! into plain lists of ids. The interpreter's and runtime's collectives and the HLO proto
//! writer share these readers.

/// `{{0,1},{2,3}}`, `{}`, XLA's iota form `[G,S]<=[N]` / `[G,S]<=[a,b]T(1,0)`, or its mesh
/// form `mesh['a'=4,'b'=2] {'b'}` (optionally `, device_ids=(...)` after the mesh).
pub fn parse_groups(v: &str) -> Option<Vec<Vec<i64>>> {
    let v = v.trim();
    if v.starts_with('[') {
        return parse_iota_groups(v);
    }
    if let Some(rest) = v.strip_prefix("mesh") {
        return parse_mesh_groups(rest.trim_start());
    }
    parse_nested(v)
}

/// The ids `0..prod(dims)` laid out with `dims`, transposed by `perm`, read row-major.
fn iota_ids(dims: &[i64], perm: &[i64]) -> Option<Vec<i64>> {
    if perm.len() != dims.len() || dims.iter().any(|&d| d < 0) {
        return None;
    }
    let mut seen = vec![false; dims.len()];
    for &p in perm {
        let p = usize::try_from(p).ok().filter(|&p| p < dims.len())?;
        if std::mem::replace(&mut seen[p], true) {
            return None;
        }
    }
    let tdims: Vec<i64> = perm.iter().map(|&p| dims[p as usize]).collect();
    let count = tdims.iter().try_fold(1i64, |a, &d| a.checked_mul(d))?;
    // Group lists are small; refuse absurd sizes rather than allocate them.
    if count > 1 << 20 {
        return None;
    }
    let mut strides = vec![1i64; dims.len()];
    for d in (0..dims.len().saturating_sub(1)).rev() {
        strides[d] = strides[d + 1] * dims[d + 1];
    }
    let mut ids = Vec::with_capacity(count as usize);
    let mut index = vec![0i64; tdims.len()];
    for _ in 0..count {
        ids.push(
            index
                .iter()
                .zip(perm)
                .map(|(&i, &p)| i * strides[p as usize])
                .sum(),
        );
        for d in (0..index.len()).rev() {
            index[d] += 1;
            if index[d] < tdims[d] {
                break;
            }
            index[d] = 0;
        }
    }
    Some(ids)
}

/// `[R...]` or `[R...]T(p...)` (an iota array), or a plain comma list of ids.
fn parse_id_array(v: &str) -> Option<Vec<i64>> {
    let v = v.trim();
    let Some(body) = v.strip_prefix('[') else {
        return parse_list(v);
    };
    let close = body.find(']')?;
    let dims = parse_list(&body[..close])?;
    let rest = body[close + 1..].trim();
    let perm = match rest.strip_prefix('T') {
        Some(p) => parse_list(p.trim().strip_prefix('(')?.strip_suffix(')')?)?,
        None if rest.is_empty() => (0..dims.len() as i64).collect(),
        None => return None,
    };
    iota_ids(&dims, &perm)
}

/// XLA's mesh form (after `mesh`): `['a'=4,'b'=2][, device_ids=(...)] {'b'[, ...]}`, where
/// an axis reference may name a sub-axis `'a':(pre)size`. The groups are the device array,
/// shaped like the mesh, with the named axes moved last, cut into rows of their size.
fn parse_mesh_groups(v: &str) -> Option<Vec<Vec<i64>>> {
    let body = v.strip_prefix('[')?;
    let close = body.find(']')?;
    let mut axes: Vec<(String, i64)> = Vec::new();
    for part in body[..close]
        .split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
    {
        let (name, size) = part.split_once('=')?;
        let name = name.trim().trim_matches('\'').to_string();
        let size: i64 = size.trim().parse().ok().filter(|&s| s > 0)?;
        axes.push((name, size));
    }
    let mut rest = body[close + 1..].trim_start();
    let total = axes.iter().try_fold(1i64, |a, (_, s)| a.checked_mul(*s))?;
    // Device meshes are small; refuse absurd sizes rather than allocate them.
    if total > 1 << 20 {
        return None;
    }
    let ids = match rest.strip_prefix(',') {
        Some(r) => {
            let r = r.trim_start().strip_prefix("device_ids")?.trim_start();
            let r = r.strip_prefix('=')?.trim_start().strip_prefix('(')?;
            let end = r.find(')').and_then(|i| {
                // `T(...)` nests one pair of parentheses.
                let after = &r[i + 1..];
                if r[..i].contains("T(") {
                    after.find(')').map(|j| i + 1 + j)
                } else {
                    Some(i)
                }
            })?;
            let ids = parse_id_array(&r[..end])?;
            rest = r[end + 1..].trim_start();
            ids
        }
        None => (0..total).collect(),
    };
    if ids.len() as i64 != total {
        return None;
    }
    let refs = rest.strip_prefix('{')?.strip_suffix('}')?;
    // Factor dims: each axis split into [pre, size, post] when a sub-axis names it.
    let mut factors: Vec<i64> = Vec::new();
    let mut axis_factor: Vec<(usize, usize)> = Vec::new(); // first factor, count
    let mut group_factors: Vec<usize> = Vec::new();
    let mut subs: Vec<(usize, i64, i64)> = Vec::new();
    for r in refs.split(',').map(str::trim).filter(|r| !r.is_empty()) {
        let (name, sub) = match r.find(":(") {
            Some(i) => (&r[..i], Some(&r[i + 2..])),
            None => (r, None),
        };
        let name = name.trim().trim_matches('\'');
        let axis = axes.iter().position(|(n, _)| n == name)?;
        if let Some(sub) = sub {
            let (pre, size) = sub.split_once(')')?;
            let pre: i64 = pre.trim().parse().ok().filter(|&p| p > 0)?;
            let size: i64 = size.trim().parse().ok().filter(|&s| s > 0)?;
            if axes[axis].1 % pre.checked_mul(size)? != 0 {
                return None;
            }
            subs.push((axis, pre, size));
        }
    }
    for (a, (_, size)) in axes.iter().enumerate() {
        let first = factors.len();
        match subs.iter().find(|s| s.0 == a) {
            Some(&(_, pre, sub)) => {
                factors.extend([pre, sub, size / (pre * sub)]);
                axis_factor.push((first, 3));
            }
            None => {
                factors.push(*size);
                axis_factor.push((first, 1));
            }
        }
    }
    // Group axes in the order the braces list them.
    for r in refs.split(',').map(str::trim).filter(|r| !r.is_empty()) {
        let name = r.split(":(").next()?.trim().trim_matches('\'');
        let axis = axes.iter().position(|(n, _)| n == name)?;
        let (first, count) = axis_factor[axis];
        group_factors.push(if count == 3 { first + 1 } else { first });
    }
    let mut perm: Vec<i64> = (0..factors.len())
        .filter(|f| !group_factors.contains(f))
        .map(|f| f as i64)
        .collect();
    perm.extend(group_factors.iter().map(|&f| f as i64));
    let size: i64 = group_factors.iter().map(|&f| factors[f]).product();
    let order = iota_ids(&factors, &perm)?;
    let devices: Vec<i64> = order.iter().map(|&i| ids[i as usize]).collect();
    Some(
        devices
            .chunks(size.max(1) as usize)
            .map(<[i64]>::to_vec)
            .collect(),
    )
}

/// `{{1,2},{3}}` (or `{}`) as nested lists.
pub fn parse_nested(v: &str) -> Option<Vec<Vec<i64>>> {
    let inner = v.trim().strip_prefix('{')?.strip_suffix('}')?.trim();
    let mut out = Vec::new();
    let mut rest = inner;
    while !rest.is_empty() {
        let open = rest.strip_prefix('{')?;
        let close = open.find('}')?;
        out.push(parse_list(&open[..close])?);
        rest = open[close + 1..].trim_start();
        rest = rest.strip_prefix(',').unwrap_or(rest).trim_start();
    }
    Some(out)
}

/// `0,1, 2` as integers (empty text is an empty list).
pub fn parse_list(v: &str) -> Option<Vec<i64>> {
    v.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().ok())
        .collect()
}

/// XLA's iota replica-group list: `[G,S]<=[dims]` optionally followed by `T(perm)`: the ids
/// `0..N` laid out with `dims`, transposed by `perm`, reshaped to G groups of S.
fn parse_iota_groups(v: &str) -> Option<Vec<Vec<i64>>> {
    let (shape, rest) = v.split_once("<=")?;
    let shape = parse_list(shape.trim().strip_prefix('[')?.strip_suffix(']')?)?;
    let ids = parse_id_array(rest)?;
    let [groups, size] = shape.as_slice() else {
        return None;
    };
    if Some(ids.len() as i64) != groups.checked_mul(*size) || *size <= 0 {
        return None;
    }
    Some(ids.chunks(*size as usize).map(<[i64]>::to_vec).collect())
}
