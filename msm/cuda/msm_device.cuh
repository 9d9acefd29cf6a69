// msm_device.cuh: the device executor for msm_pipeline.cuh (one thread per
// index, stream-ordered temporaries) and the per-curve entry templates used
// by msm_g1.cu / msm_g2.cu. nvcc only.
#pragma once

#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <vector>

#include "cuzk_error.cuh"
#include "cuzk_msm.h"
#include "msm_pipeline.cuh"
#include "msm_stream.cuh"

namespace cuzk {
namespace msm {

// A failed CUDA call inside the driver; turned back into a cuzk_error.
struct cuda_failure {
    cudaError_t e;
};

namespace {

// 256 threads: G2 kernels may use up to 255 registers per thread, and
// 256 × 255 still fits the 64 K registers of an SM.
constexpr unsigned kBlock = 256;

template <class Op>
__global__ void for_each_kernel(size_t n, Op op) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) op(i);
}

// The same, asking ptxas for two resident blocks per SM (≤ 128 registers
// per thread). The G1 mixed-add loops (level 0, bitmap segments) need 154
// and 188 registers unbounded (ptxas, sm_90): one 256-thread block per SM,
// two warps per scheduler, too few to keep the multiplier busy through the
// dependent IMAD chains. Bounded to 128 they spill 400 and 240 bytes and
// still win: G1 2^24 MSM 396 → 276 ms, 2^20 51 → 41 ms on the H200; three
// 128-thread blocks at 154 registers (12 warps, no spills) gave 287 and 44
// (the `gpu_msm` bench). So this is the default for them.
template <class Op>
__global__ void __launch_bounds__(kBlock, 2) for_each_kernel_occ2(size_t n, Op op) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) op(i);
}

// Kernels that get the two-block variant: the G1 mixed-add loops and the
// affine rounds' backward pass (142 registers unbounded; bounded to 128
// it spills 108 bytes, ptxas sm_90) only
// (G2's 255-register kernels would spill far too much at 128).
template <class Op>
struct occ2_candidate : std::false_type {};
template <>
struct occ2_candidate<level0_op<fp_t>> : std::true_type {};
template <>
struct occ2_candidate<bitmap_seg_op<fp_t>> : std::true_type {};
template <>
struct occ2_candidate<pair_bwd_op<fp_t>> : std::true_type {};

// Launch shape of the candidate kernels (cuzk_msm_tuning.occupancy, for
// re-measuring on other GPUs): two 256-thread blocks per SM
// (for_each_kernel_occ2, the default), the unbounded kernel in 256-thread
// blocks, or the unbounded kernel in 128-thread blocks.
enum class occ_mode { one_block, two_blocks, block128 };

inline occ_mode occupancy_mode(int32_t code) {
    switch (code) {
        case CUZK_MSM_OCC_ONE_BLOCK: return occ_mode::one_block;
        case CUZK_MSM_OCC_BLOCK128: return occ_mode::block128;
        default: return occ_mode::two_blocks;
    }
}

// Exclusive scan of cnt[0..B) into off[0..B], off[B] = total, by one
// block (phases in msm_pipeline.cuh). B = W·2^(c−1): 2^19 at c = 16,
// 12·2^21 at c = 22 (the 2^27 window), so runs of 512 … 25 K counters per
// thread; the forced c = 24 (11·2^23) is the worst case. A multi-block scan
// is a later speed step.
__global__ void scan_kernel(const uint32_t *cnt, uint32_t *off, uint32_t B) {
    __shared__ uint32_t tot[kScanThreads];
    tot[threadIdx.x] = scan_phase1(cnt, B, threadIdx.x);
    __syncthreads();
    if (threadIdx.x == 0) scan_phase2(tot, off, B);
    __syncthreads();
    scan_phase3(cnt, off, B, threadIdx.x, tot[threadIdx.x]);
}

inline void check(cudaError_t e) {
    if (e != cudaSuccess) throw cuda_failure{e};
}

// Phase profile, for diagnosing an MSM inside a proof where no profiler
// runs (nsys is not on the device machines): with cuzk_msm_tuning.profile
// set, a CUDA event is recorded at each phase boundary of msm_run and one
// line per MSM printed to stderr — device ms per phase, the host's time
// inside cudaMallocAsync (a pool that must map fresh memory blocks there,
// and the device may drain its queue meanwhile) and the call's wall time.
struct phase_log {
    std::vector<std::pair<const char *, cudaEvent_t>> marks;
    double alloc_ms = 0;
    uint32_t allocs = 0;
    std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
    ~phase_log() {
        for (auto &m : marks) (void)cudaEventDestroy(m.second);
    }
    void mark(const char *name, cudaStream_t s) {
        cudaEvent_t e;
        if (cudaEventCreate(&e) != cudaSuccess) return;  // a lost mark only shortens the report
        if (cudaEventRecord(e, s) != cudaSuccess) {
            (void)cudaEventDestroy(e);
            return;
        }
        marks.emplace_back(name, e);
    }
    // Waits for the last mark, then prints the device time between marks
    // summed by the name of the phase each span begins.
    void report(const char *curve, uint32_t n, uint32_t c) {
        if (marks.empty() || cudaEventSynchronize(marks.back().second) != cudaSuccess) return;
        const double wall =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        std::vector<std::pair<const char *, double>> sums;
        double total = 0;
        for (size_t i = 0; i + 1 < marks.size(); i++) {
            float ms = 0;
            if (cudaEventElapsedTime(&ms, marks[i].second, marks[i + 1].second) != cudaSuccess) continue;
            total += ms;
            size_t k = 0;
            while (k < sums.size() && std::strcmp(sums[k].first, marks[i].first) != 0) k++;
            if (k == sums.size()) sums.emplace_back(marks[i].first, 0.0);
            sums[k].second += ms;
        }
        char line[1024];
        int len = std::snprintf(line, sizeof line, "cuzk msm profile %s n=%u c=%u:", curve, n, c);
        for (auto &p : sums)
            if (len > 0 && (size_t)len < sizeof line)
                len += std::snprintf(line + len, sizeof line - len, " %s %.1f", p.first, p.second);
        if (len > 0 && (size_t)len < sizeof line)
            std::snprintf(line + len, sizeof line - len,
                          "; device %.1f ms, host in cudaMallocAsync %.1f ms (%u calls), wall %.1f ms\n", total,
                          alloc_ms, allocs, wall);
        std::fputs(line, stderr);
    }
};

struct device_exec {
    // The shape measure_exec sizes (msm_pipeline.cuh says why these).
    static constexpr uint64_t kInvDirect = kDeviceInvDirect;
    static constexpr size_t kChainThreads = kDeviceChainThreads;
    uint64_t round_chunk() const { return kDeviceRoundChunk; }
    cudaStream_t s;
    phase_log *log = nullptr;  // cuzk_msm_tuning.profile only
    occ_mode occ = occ_mode::two_blocks;
    template <class T>
    T *alloc(size_t n) {
        void *p = nullptr;
        const auto t = std::chrono::steady_clock::now();
        check(cudaMallocAsync(&p, (n ? n : 1) * sizeof(T), s));
        if (log) {
            log->alloc_ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
            log->allocs++;
        }
        return static_cast<T *>(p);
    }
    void phase(const char *name) {
        if (log) log->mark(name, s);
    }
    template <class T>
    void release(T *p) {
        (void)cudaFreeAsync(p, s);  // errors surface at the next launch/sync
    }
    template <class T>
    void zero(T *p, size_t n) {
        check(cudaMemsetAsync(p, 0, n * sizeof(T), s));
    }
    template <class Op>
    void for_each(size_t n, const Op &op) {
        if (n == 0) return;
        size_t blocks = (n + kBlock - 1) / kBlock;
        if constexpr (occ2_candidate<Op>::value) {
            const occ_mode m = occ;
            if (m == occ_mode::two_blocks) {
                for_each_kernel_occ2<<<(unsigned)blocks, kBlock, 0, s>>>(n, op);
                check(cudaGetLastError());
                return;
            }
            if (m == occ_mode::block128) {
                constexpr unsigned kSmall = kBlock / 2;
                for_each_kernel<<<(unsigned)((n + kSmall - 1) / kSmall), kSmall, 0, s>>>(n, op);
                check(cudaGetLastError());
                return;
            }
        }
        for_each_kernel<<<(unsigned)blocks, kBlock, 0, s>>>(n, op);
        check(cudaGetLastError());
    }
    void scan(const uint32_t *cnt, uint32_t *off, uint32_t B) {
        scan_kernel<<<1, kScanThreads, 0, s>>>(cnt, off, B);
        check(cudaGetLastError());
    }
};

// The stream-ordered pool keeps up to the largest scratch an MSM of this
// process has needed (per device): the placement reserves that much as
// working memory (cuzk_msm_dev_scratch_bytes), and CUDA's default release
// threshold (0) would hand it back at every synchronisation, so each MSM
// mapped its scratch again — 20–27 ms of the G1 2^27 MSM's 1590 on the
// H200 (host time in cudaMallocAsync; 4 ms at 2^24), 0.5 ms when kept.
inline void keep_scratch(uint64_t bytes) {
    int dev = 0;
    cudaMemPool_t pool;
    if (cudaGetDevice(&dev) != cudaSuccess || cudaDeviceGetDefaultMemPool(&pool, dev) != cudaSuccess) return;
    uint64_t now = 0;
    if (cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &now) != cudaSuccess || now >= bytes) return;
    (void)cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &bytes);
}

// keep_scratch undone: the threshold back to 0 and every unused byte of
// the pool released, for a caller that needs the memory until its next MSM.
inline void release_scratch() {
    int dev = 0;
    cudaMemPool_t pool;
    check(cudaGetDevice(&dev));
    check(cudaDeviceGetDefaultMemPool(&pool, dev));
    uint64_t zero = 0;
    check(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &zero));
    check(cudaMemPoolTrimTo(pool, 0));
}

template <class Body>
cuzk_error run_device(Body &&body) {
    return guard([&] {
        try {
            body();
        } catch (const cuda_failure &f) {
            // A failed allocation also sets the runtime's last error; clear
            // it so the next call's launch check does not report it again
            // (seen on the H200: an out-of-memory poisoned the next MSM).
            (void)cudaGetLastError();
            return from_cuda(f.e);
        }
        return ok();
    });
}

}  // namespace

// The `rounds` argument of msm_run / msm_accumulate for a tuning: auto
// (-1) unless the tuning caps G1's rounds below what the plan calls for.
template <class F>
int tuned_rounds(const cuzk_msm_tuning &t, const plan_t &p) {
    if (t.max_rounds < 0 || !rounds_by_default<F>::value) return -1;
    const uint32_t r = auto_rounds(p);
    return (int)(r < (uint32_t)t.max_rounds ? r : (uint32_t)t.max_rounds);
}

template <class F>
cuzk_error dev_msm(const void *bases, const uint32_t *idx, const void *scalars, uint32_t n, uint32_t c,
                   uint32_t copies, uint32_t stride, void *out, cuzk_msm_tuning tuning, cuzk_stream stream) {
    return run_device([&] {
        keep_scratch(msm_scratch_peak<F>(n, c, copies));
        device_exec ex{static_cast<cudaStream_t>(stream)};
        ex.occ = occupancy_mode(tuning.occupancy);
        phase_log log;
        if (tuning.profile) ex.log = &log;
        msm_run<F>(ex, static_cast<const affine_t<F> *>(bases), idx, static_cast<const fr_t *>(scalars), n, c, copies,
                   stride, static_cast<xyzz_t<F> *>(out), tuned_rounds<F>(tuning, make_plan(n, c, copies, stride)));
        if (ex.log) {
            ex.phase("end");
            log.report(std::is_same<F, fp_t>::value ? "G1" : "G2", n, c);
        }
    });
}

template <class F>
cuzk_error dev_accumulate(const void *bases, const uint32_t *idx, const void *scalars, uint32_t n, uint32_t c,
                          void *acc, cuzk_msm_tuning tuning, cuzk_stream stream) {
    return run_device([&] {
        keep_scratch(accumulate_scratch_peak<F>(n, c));
        device_exec ex{static_cast<cudaStream_t>(stream)};
        ex.occ = occupancy_mode(tuning.occupancy);
        phase_log log;
        if (tuning.profile) ex.log = &log;
        msm_accumulate<F>(ex, static_cast<const affine_t<F> *>(bases), idx, static_cast<const fr_t *>(scalars), n, c,
                          static_cast<xyzz_t<F> *>(acc), tuned_rounds<F>(tuning, make_plan(n, c)));
        if (ex.log) {
            ex.phase("end");
            log.report(std::is_same<F, fp_t>::value ? "G1 accumulate" : "G2 accumulate", n, c);
        }
    });
}

// clear: acc ← infinity; otherwise out ← the window sums of acc.
template <class F>
cuzk_error dev_buckets(uint32_t c, void *acc, void *out, cuzk_msm_tuning tuning, cuzk_stream stream) {
    return run_device([&] {
        device_exec ex{static_cast<cudaStream_t>(stream)};
        ex.occ = occupancy_mode(tuning.occupancy);
        if (!out) {
            buckets_clear<F>(ex, c, static_cast<xyzz_t<F> *>(acc));
            return;
        }
        phase_log log;
        if (tuning.profile) ex.log = &log;
        buckets_reduce<F>(ex, c, static_cast<xyzz_t<F> *>(acc), static_cast<xyzz_t<F> *>(out));
        if (ex.log) {
            ex.phase("end");
            log.report(std::is_same<F, fp_t>::value ? "G1 buckets" : "G2 buckets", 0, c);
        }
    });
}

template <class F>
cuzk_error dev_bitmap_sum(const void *bases, const uint64_t *words, uint32_t nbits, void *out, cuzk_msm_tuning tuning,
                          cuzk_stream stream) {
    return run_device([&] {
        device_exec ex{static_cast<cudaStream_t>(stream)};
        ex.occ = occupancy_mode(tuning.occupancy);
        bitmap_sum_run<F>(ex, static_cast<const affine_t<F> *>(bases), words, nbits, static_cast<affine_t<F> *>(out));
    });
}

// Defined in msm_g1.cu / msm_g2.cu (one curve per file, so the two ptxas
// runs go in parallel and G1 can be built with inlined multiplication).
cuzk_error g1_msm(const void *, const uint32_t *, const void *, uint32_t, uint32_t, uint32_t, uint32_t, void *,
                  cuzk_msm_tuning, cuzk_stream);
cuzk_error g1_bitmap_sum(const void *, const uint64_t *, uint32_t, void *, cuzk_msm_tuning, cuzk_stream);
cuzk_error g2_msm(const void *, const uint32_t *, const void *, uint32_t, uint32_t, uint32_t, uint32_t, void *,
                  cuzk_msm_tuning, cuzk_stream);
cuzk_error g2_bitmap_sum(const void *, const uint64_t *, uint32_t, void *, cuzk_msm_tuning, cuzk_stream);
cuzk_error g1_accumulate(const void *, const uint32_t *, const void *, uint32_t, uint32_t, void *, cuzk_msm_tuning,
                         cuzk_stream);
cuzk_error g2_accumulate(const void *, const uint32_t *, const void *, uint32_t, uint32_t, void *, cuzk_msm_tuning,
                         cuzk_stream);
cuzk_error g1_buckets(uint32_t, void *, void *, cuzk_msm_tuning, cuzk_stream);
cuzk_error g2_buckets(uint32_t, void *, void *, cuzk_msm_tuning, cuzk_stream);

}  // namespace msm
}  // namespace cuzk
