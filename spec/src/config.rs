//! NPU configurations (TRM 4.2.11 CONFIG, 4.8.3).
