//! Verilator harness and testbench.
