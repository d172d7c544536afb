//! A service the tests need, named by an environment variable: its value,
//! or `None` (the test skips with a notice), which `TXBENCH_REQUIRE_SERVICES=1`
//! makes a failure instead.

/// The value of `var`, or `None` when it is unset or empty.
pub fn from_env(var: &str) -> Option<String> {
    match std::env::var(var) {
        Ok(v) if !v.is_empty() => Some(v),
        _ => {
            assert!(
                std::env::var("TXBENCH_REQUIRE_SERVICES").as_deref() != Ok("1"),
                "{var} is not set and TXBENCH_REQUIRE_SERVICES=1"
            );
            eprintln!("skipping: set {var} to run this test");
            None
        }
    }
}
