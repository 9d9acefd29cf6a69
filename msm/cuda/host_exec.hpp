// host_exec.hpp: the host executor of msm_pipeline.cuh's drivers (one plain
// loop per step; the device executor is in msm_device.cuh). Shared by the
// host twins msm_host.cpp and fixed_base_host.cpp, whose entry points keep
// exceptions inside through cuzk::guard (cuzk_guard.hpp). Host C++ only.
#pragma once

#include <cstdlib>
#include <cstring>
#include <new>

#include "cuzk_guard.hpp"
#include "cuzk_msm.h"
#include "msm_pipeline.cuh"
#include "msm_stream.cuh"

namespace cuzk {
namespace msm {

struct host_exec {
    // Affine rounds (msm_rounds.cuh): small chunks so that CI-sized MSMs
    // cross chunk boundaries; recursion down to 64 elements, because here
    // every direct inversion costs its full price.
    static constexpr uint64_t kInvDirect = 64;
    static constexpr size_t kChainThreads = 1;
    uint64_t round_chunk() const { return 1ull << 12; }
    template <class T>
    T *alloc(size_t n) {
        void *p = std::malloc((n ? n : 1) * sizeof(T));
        if (!p) throw std::bad_alloc();
        return static_cast<T *>(p);
    }
    template <class T>
    void release(T *p) {
        std::free(p);
    }
    template <class T>
    void zero(T *p, size_t n) {
        std::memset(p, 0, n * sizeof(T));
    }
    template <class Op>
    void for_each(size_t n, const Op &op) {
        for (size_t i = 0; i < n; i++) op(i);
    }
    // The device executor's profile marks (cuzk_msm_tuning.profile); none here.
    void phase(const char *) {}
    // The device's one-block scan, its threads run one after another.
    void scan(const uint32_t *cnt, uint32_t *off, uint32_t B) {
        uint32_t tot[kScanThreads];
        for (uint32_t t = 0; t < kScanThreads; t++) tot[t] = scan_phase1(cnt, B, t);
        scan_phase2(tot, off, B);
        for (uint32_t t = 0; t < kScanThreads; t++) scan_phase3(cnt, off, B, t, tot[t]);
    }
};

}  // namespace msm
}  // namespace cuzk
