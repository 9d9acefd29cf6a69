//! The engine's TOML configuration: no panic; a configuration that parses
//! and validates turns into engine options or a typed error.

/// The target's invariants on one input; panics where one fails.
pub fn check(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(cfg) = cuzk_scheduler::Config::from_toml(text, "fuzz") {
        if cfg.validate().is_ok() {
            let _ = cfg.engine_options();
        }
    }
}
