pub mod chlo;
