//! Builds the C++/CUDA parts of cuzk-msm.
//!
//! Always: the host C++ twin of the GPU MSM pipeline (`cuda/msm_host.cpp`,
//! plain C++ through `cc`, no nvcc), which the CPU tests compare with the
//! CPU MSM, and of the fixed-base kernels (`cuda/fixed_base_host.cpp`).
//! With the `cuda` feature: the device pipeline (`msm_g1.cu`, `msm_g2.cu`,
//! `msm_api.cu`) and the fixed-base kernels (`fixed_base_{g1,g2,api}.cu`)
//! for cuzk-cuda-build's architectures: every card a provider proves on
//! (`CUZK_CUDA_ARCHS=90` narrows them for a quicker local build).

fn main() {
    let includes = ["cuda", "../field/cuda", "../gpu/cuda/include"];
    for dir in ["cuda", "../field/cuda", "../gpu/cuda/include"] {
        println!("cargo:rerun-if-changed={dir}");
    }

    let mut host = cuzk_cuda_build::host_cxx();
    host.file("cuda/msm_host.cpp");
    host.file("cuda/fixed_base_host.cpp");
    for i in includes {
        host.include(i);
    }
    host.compile("cuzk_msm_host");

    if cuzk_cuda_build::cuda_feature_enabled() {
        let cuda = cuzk_cuda_build::Cuda::detect_or_exit();
        cuda.compile(
            "cuzk_msm_cuda",
            &[
                "cuda/msm_g1.cu",
                "cuda/msm_g2.cu",
                "cuda/msm_api.cu",
                "cuda/fixed_base_g1.cu",
                "cuda/fixed_base_g2.cu",
                "cuda/fixed_base_api.cu",
            ],
            &includes,
        );
    }
}
