//! Weight-stream codec (TRM 4.7).
