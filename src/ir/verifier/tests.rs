//! Verifier tests.
