//! Builds the C/C++/CUDA parts of cuzk-gpu.
//!
//! With the `cuda` feature: the runtime shim (every SASS target of
//! cuzk-cuda-build); a missing nvcc is then a hard error naming
//! `cargo xtask cuda`. Without it: `not_built.c`, whose functions all return
//! CUZK_ERR_NOT_BUILT.
//! With `field-test`: the host C++ twin of the field/curve templates (`cc`,
//! no nvcc), used by the CPU differential tests, and with `cuda` too the
//! field test/bench kernels (sm_90 only: they exist for the H200 runs, and
//! each extra target costs a minute of ptxas).

fn main() {
    let includes = ["cuda/include", "../field/cuda"];
    for dir in ["cuda", "../field/cuda"] {
        println!("cargo:rerun-if-changed={dir}");
    }

    let field_test = std::env::var_os("CARGO_FEATURE_FIELD_TEST").is_some();
    if field_test {
        let mut host = cuzk_cuda_build::host_cxx();
        host.file("cuda/host/field_host.cpp");
        for i in includes {
            host.include(i);
        }
        host.compile("cuzk_field_host");
    }

    if cuzk_cuda_build::cuda_feature_enabled() {
        let cuda = cuzk_cuda_build::Cuda::detect_or_exit();
        cuda.compile("cuzk_gpu_runtime", &["cuda/runtime.cu"], &includes);
        if field_test {
            cuda.with_archs(&[90]).compile(
                "cuzk_gpu_field",
                &["cuda/field_kernels.cu", "cuda/field_bench.cu"],
                &includes,
            );
        }
    } else {
        cc::Build::new()
            .file("cuda/not_built.c")
            .include("cuda/include")
            .warnings(true)
            .compile("cuzk_gpu_not_built");
    }
}
