//! Tests that outgrew their rule file, and the whole-corpus check.

mod arithmetic;
mod corpus;
