//! Tests for shape inference.
