//! Builds the C++/CUDA parts of cuzk-spmv.
//!
//! Always: the host twin of the SpMV kernel (`cuda/spmv_host.cpp`, plain
//! C++ through `cc`), which the CPU tests compare with synth's SpMV.
//! With the `cuda` feature: the device kernel (`cuda/spmv_kernels.cu`) for
//! cuzk-cuda-build's targets.

fn main() {
    let includes = ["cuda", "../field/cuda", "../gpu/cuda/include"];
    for dir in includes {
        println!("cargo:rerun-if-changed={dir}");
    }
    let mut host = cuzk_cuda_build::host_cxx();
    host.file("cuda/spmv_host.cpp");
    for i in includes {
        host.include(i);
    }
    host.compile("cuzk_spmv_host");

    if cuzk_cuda_build::cuda_feature_enabled() {
        let cuda = cuzk_cuda_build::Cuda::detect_or_exit();
        cuda.compile("cuzk_spmv_gpu", &["cuda/spmv_kernels.cu"], &includes);
    }
}
