//! Benchmark and differential-harness helpers.
