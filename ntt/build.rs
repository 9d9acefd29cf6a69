//! Builds the C++/CUDA parts of cuzk-ntt.
//!
//! Always: the host C++ twin of the NTT kernels (`cuda/ntt_host.cpp`, `cc`,
//! no nvcc), which the CPU tests compare with the Rust NTT.
//! With the `cuda` feature: the device kernels (`cuda/ntt_kernels.cu`) for
//! every SASS target of cuzk-cuda-build (`CUZK_CUDA_ARCHS=90` narrows it for
//! local builds); a missing nvcc is a hard error naming `cargo xtask cuda`.

fn main() {
    let includes = ["cuda", "../field/cuda", "../gpu/cuda/include"];
    for dir in includes {
        println!("cargo:rerun-if-changed={dir}");
    }
    let mut host = cuzk_cuda_build::host_cxx();
    host.file("cuda/ntt_host.cpp");
    for i in includes {
        host.include(i);
    }
    host.compile("cuzk_ntt_host");

    if cuzk_cuda_build::cuda_feature_enabled() {
        let cuda = cuzk_cuda_build::Cuda::detect_or_exit();
        cuda.compile("cuzk_ntt_gpu", &["cuda/ntt_kernels.cu"], &includes);
    }
}
