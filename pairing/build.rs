//! Builds the C++/CUDA parts of cuzk-pairing.
//!
//! Always: the host twin of the batched Miller loops
//! (`cuda/pairing_host.cpp`, plain C++ through `cc`, no nvcc), which the CPU
//! tests compare with blst. With the `cuda` feature: the device kernels
//! (`cuda/pairing_api.cu`) for cuzk-cuda-build's architectures.

fn main() {
    let includes = ["cuda", "../field/cuda", "../gpu/cuda/include"];
    for dir in includes {
        println!("cargo:rerun-if-changed={dir}");
    }

    let mut host = cuzk_cuda_build::host_cxx();
    host.file("cuda/pairing_host.cpp");
    for i in includes {
        host.include(i);
    }
    host.compile("cuzk_pairing_host");

    if cuzk_cuda_build::cuda_feature_enabled() {
        let cuda = cuzk_cuda_build::Cuda::detect_or_exit();
        cuda.compile("cuzk_pairing_cuda", &["cuda/pairing_api.cu"], &includes);
    }
}
