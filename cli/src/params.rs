//! Where parameter files are: the one `--param-cache` flag every command
//! shares, and the test parameters of the built-in circuits that `demo`
//! and `bench` keep there (made once, `cuzk_scheduler::params`).

use crate::circuit::CircuitArgs;
use crate::cmd::setup::SetupDevice;
use crate::output::Ctx;
use anyhow::Result;
use cuzk_scheduler::params::{ensure_test_params, param_dir, test_params_path, ParamFiles};
use std::path::{Path, PathBuf};

/// The parameter directory flag.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct ParamArgs {
    /// Directory of the `.params` (and `.vk`) files (default: the config
    /// file's [srs] param_cache; else Filecoin's files in
    /// $FIL_PROOFS_PARAMETER_CACHE or /var/tmp/filecoin-proof-parameters,
    /// the built-in circuits' test parameters in $CUZK_PARAM_CACHE or
    /// ~/.cache/cuzk/params).
    #[arg(long = "param-cache", value_name = "DIR")]
    pub param_cache: Option<PathBuf>,
}

impl ParamArgs {
    /// The directory of `files`: this flag, else `config` (the
    /// configuration file's `param_cache`), else `files`' own default.
    pub fn dir(&self, config: Option<&Path>, files: ParamFiles) -> PathBuf {
        param_dir(self.param_cache.as_deref(), config, files)
    }
}

/// The test parameters of `circuit` (setup seed 0) in `dir`, generated
/// when absent or unfit; returns the file and whether it was generated.
pub fn test_params(ctx: &Ctx, circuit: &CircuitArgs, dir: &Path) -> Result<(PathBuf, bool)> {
    let path = test_params_path(dir, &circuit.shape_name(), 0);
    let made = ensure_test_params(&path, &circuit.shape()?, |unfit| {
        if let Some(why) = unfit {
            ctx.say(format!("cached parameters unusable ({why}); regenerating"));
        }
        ctx.say(format!(
            "generating test parameters for {} (cached at {})",
            circuit.shape_name(),
            path.display()
        ));
        crate::cmd::setup::generate(ctx, circuit, 0, SetupDevice::Auto)
    })?;
    Ok((path, made != cuzk_scheduler::params::TestParams::Cached))
}
