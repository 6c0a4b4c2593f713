//! Register map: BASE, BASE_POINTERS, ID and PMU pages (TRM 4.2-4.5).
