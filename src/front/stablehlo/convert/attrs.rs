//! Reading an operation's attributes into the typed values HLO wants, with located errors:
//! integer lists, dimension numbers, windows, precisions, comparison settings.

use super::Converter;
use crate::front::hlo_text::ParseError;
use crate::front::stablehlo::ast::Operation;
use crate::front::stablehlo::attributes::Attr;
use crate::ir::{
    ComparisonDirection, ComparisonType, GatherDimensionNumbers, Precision,
    ScatterDimensionNumbers, Window, WindowDimension,
};

impl Converter<'_> {
    /// A required attribute.
    pub(crate) fn attr<'o>(&self, op: &'o Operation, name: &str) -> Result<&'o Attr, ParseError> {
        op.attr(name).ok_or_else(|| {
            self.err(
                op.loc,
                format!("'{}' needs the attribute '{name}'", op.name),
            )
        })
    }

    /// A required integer attribute.
    pub(crate) fn int_attr(&self, op: &Operation, name: &str) -> Result<i64, ParseError> {
        self.attr(op, name)?.as_int().ok_or_else(|| {
            self.err(
                op.loc,
                format!("attribute '{name}' of '{}' must be an integer", op.name),
            )
        })
    }

    /// An optional integer attribute.
    pub(crate) fn opt_int(&self, op: &Operation, name: &str) -> Result<Option<i64>, ParseError> {
        match op.attr(name) {
            None => Ok(None),
            Some(_) => self.int_attr(op, name).map(Some),
        }
    }

    /// An optional boolean attribute (absent is false).
    pub(crate) fn bool_attr(&self, op: &Operation, name: &str) -> Result<bool, ParseError> {
        match op.attr(name) {
            None => Ok(false),
            Some(a) => a.as_bool().ok_or_else(|| {
                self.err(
                    op.loc,
                    format!("attribute '{name}' of '{}' must be a boolean", op.name),
                )
            }),
        }
    }

    /// A required list of integers.
    pub(crate) fn ints_attr(&self, op: &Operation, name: &str) -> Result<Vec<i64>, ParseError> {
        self.attr(op, name)?.as_ints().ok_or_else(|| {
            self.err(
                op.loc,
                format!(
                    "attribute '{name}' of '{}' must be a list of integers",
                    op.name
                ),
            )
        })
    }

    /// An optional list of integers.
    pub(crate) fn opt_ints(
        &self,
        op: &Operation,
        name: &str,
    ) -> Result<Option<Vec<i64>>, ParseError> {
        match op.attr(name) {
            None => Ok(None),
            Some(_) => self.ints_attr(op, name).map(Some),
        }
    }

    /// Integers that must be valid dimension numbers (non-negative).
    pub(crate) fn dims(
        &self,
        op: &Operation,
        values: Vec<i64>,
        what: &str,
    ) -> Result<Vec<usize>, ParseError> {
        values
            .into_iter()
            .map(|v| {
                usize::try_from(v).map_err(|_| {
                    self.err(
                        op.loc,
                        format!("{what} of '{}' has a negative dimension {v}", op.name),
                    )
                })
            })
            .collect()
    }

    /// A required list of dimension numbers.
    pub(crate) fn dims_attr(&self, op: &Operation, name: &str) -> Result<Vec<usize>, ParseError> {
        let v = self.ints_attr(op, name)?;
        self.dims(op, v, name)
    }

    /// A required enum spelling or string.
    pub(crate) fn str_attr<'o>(
        &self,
        op: &'o Operation,
        name: &str,
    ) -> Result<&'o str, ParseError> {
        self.attr(op, name)?.as_str().ok_or_else(|| {
            self.err(
                op.loc,
                format!("attribute '{name}' of '{}' must be a name", op.name),
            )
        })
    }

    /// A dimension list field of a struct attribute (absent fields are empty).
    pub(crate) fn field_dims(
        &self,
        op: &Operation,
        attr: &Attr,
        field: &str,
    ) -> Result<Vec<usize>, ParseError> {
        match attr.field(field) {
            None => Ok(Vec::new()),
            Some(a) => {
                let v = a.as_ints().ok_or_else(|| {
                    self.err(
                        op.loc,
                        format!("field '{field}' must be a list of integers"),
                    )
                })?;
                self.dims(op, v, field)
            }
        }
    }

    /// An integer field of a struct attribute (absent is 0).
    fn field_int(&self, op: &Operation, attr: &Attr, field: &str) -> Result<i64, ParseError> {
        match attr.field(field) {
            None => Ok(0),
            Some(a) => a
                .as_int()
                .ok_or_else(|| self.err(op.loc, format!("field '{field}' must be an integer"))),
        }
    }

    /// `#stablehlo.gather<...>`.
    pub(crate) fn gather_dims(
        &self,
        op: &Operation,
        attr: &Attr,
    ) -> Result<GatherDimensionNumbers, ParseError> {
        let ivd = self.field_int(op, attr, "index_vector_dim")?;
        Ok(GatherDimensionNumbers {
            offset_dims: self.field_dims(op, attr, "offset_dims")?,
            collapsed_slice_dims: self.field_dims(op, attr, "collapsed_slice_dims")?,
            start_index_map: self.field_dims(op, attr, "start_index_map")?,
            index_vector_dim: self.dims(op, vec![ivd], "index_vector_dim")?[0],
            operand_batching_dims: self.field_dims(op, attr, "operand_batching_dims")?,
            start_indices_batching_dims: self.field_dims(
                op,
                attr,
                "start_indices_batching_dims",
            )?,
        })
    }

    /// `#stablehlo.scatter<...>`.
    pub(crate) fn scatter_dims(
        &self,
        op: &Operation,
        attr: &Attr,
    ) -> Result<ScatterDimensionNumbers, ParseError> {
        let ivd = self.field_int(op, attr, "index_vector_dim")?;
        Ok(ScatterDimensionNumbers {
            update_window_dims: self.field_dims(op, attr, "update_window_dims")?,
            inserted_window_dims: self.field_dims(op, attr, "inserted_window_dims")?,
            scatter_dims_to_operand_dims: self.field_dims(
                op,
                attr,
                "scatter_dims_to_operand_dims",
            )?,
            index_vector_dim: self.dims(op, vec![ivd], "index_vector_dim")?[0],
            input_batching_dims: self.field_dims(op, attr, "input_batching_dims")?,
            scatter_indices_batching_dims: self.field_dims(
                op,
                attr,
                "scatter_indices_batching_dims",
            )?,
        })
    }

    /// `precision_config = [#stablehlo<precision DEFAULT>, ...]` (empty when absent).
    pub(crate) fn precision(&self, op: &Operation) -> Result<Vec<Precision>, ParseError> {
        let Some(Attr::Array(items)) = op.attr("precision_config") else {
            return Ok(Vec::new());
        };
        items
            .iter()
            .map(|a| {
                a.as_str()
                    .and_then(|s| s.parse::<Precision>().ok())
                    .ok_or_else(|| self.err(op.loc, format!("bad precision {a:?}")))
            })
            .collect()
    }

    /// `comparison_direction` and `compare_type`.
    pub(crate) fn comparison(
        &self,
        op: &Operation,
    ) -> Result<(ComparisonDirection, Option<ComparisonType>), ParseError> {
        let d = self.str_attr(op, "comparison_direction")?;
        let direction = d
            .parse()
            .map_err(|_| self.err(op.loc, format!("bad comparison direction '{d}'")))?;
        let ty = match op.attr("compare_type") {
            None => None,
            Some(a) => {
                let t = a.as_str().unwrap_or_default();
                if t == "NOTYPE" {
                    None
                } else {
                    Some(
                        t.parse()
                            .map_err(|_| self.err(op.loc, format!("bad comparison type '{t}'")))?,
                    )
                }
            }
        };
        Ok((direction, ty))
    }

    /// A window from `window_dimensions`/`window_strides`/`base_dilations`/
    /// `window_dilations`/`padding` (reduce_window, select_and_scatter). `sizes` overrides
    /// `window_dimensions` (convolution takes them from the kernel).
    pub(crate) fn window(
        &self,
        op: &Operation,
        rank: usize,
        sizes: Option<Vec<i64>>,
        names: [&str; 4],
    ) -> Result<Window, ParseError> {
        let [strides_n, base_n, win_n, rev_n] = names;
        let sizes = match sizes {
            Some(s) => s,
            None => self.ints_attr(op, "window_dimensions")?,
        };
        if sizes.len() != rank {
            return Err(self.err(
                op.loc,
                format!("window has {} dimensions, expected {rank}", sizes.len()),
            ));
        }
        let get = |name: &str, default: i64| -> Result<Vec<i64>, ParseError> {
            match self.opt_ints(op, name)? {
                Some(v) if v.len() == rank => Ok(v),
                Some(v) => Err(self.err(
                    op.loc,
                    format!("'{name}' has {} entries, expected {rank}", v.len()),
                )),
                None => Ok(vec![default; rank]),
            }
        };
        let strides = get(strides_n, 1)?;
        let base = get(base_n, 1)?;
        let win = get(win_n, 1)?;
        let rev = get(rev_n, 0)?;
        let padding = match self.opt_ints(op, "padding")? {
            Some(p) if p.len() == 2 * rank => p,
            Some(p) => {
                return Err(self.err(
                    op.loc,
                    format!("'padding' has {} entries, expected {}", p.len(), 2 * rank),
                ));
            }
            None => vec![0; 2 * rank],
        };
        Ok(Window {
            dimensions: (0..rank)
                .map(|i| WindowDimension {
                    size: sizes[i],
                    stride: strides[i],
                    padding_low: padding[2 * i],
                    padding_high: padding[2 * i + 1],
                    window_dilation: win[i],
                    base_dilation: base[i],
                    window_reversal: rev[i] != 0,
                })
                .collect(),
        })
    }
}
