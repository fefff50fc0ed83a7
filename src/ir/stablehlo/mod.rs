//! StableHLO ingestion (work in progress).

pub mod chlo;
