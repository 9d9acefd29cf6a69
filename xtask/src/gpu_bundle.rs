//! `cargo xtask gpu-bundle` (stub while being written).
use std::path::PathBuf;
pub(crate) fn run(_out: Option<PathBuf>, _strip: bool) -> anyhow::Result<()> {
    anyhow::bail!("todo")
}
