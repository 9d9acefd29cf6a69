// msm_stream.cuh: the streamed pass's own step (cuzk_msm::gpu::StreamedBases),
// for the host and the device executors alike.
#pragma once

#include <cstddef>
#include <cstdint>

#include "bls12_381.cuh"

namespace cuzk {
namespace msm {

// idx[i] −= sub (mod 2^32): a chunk's gather indices, uploaded as the op
// holds them (relative to its first base, with no shifted host copy), made
// local to the chunk of bases the pass holds.
struct index_sub_op {
    uint32_t *idx;
    uint32_t sub;
    CUZK_HD void operator()(size_t i) const { idx[i] -= sub; }
};

}  // namespace msm
}  // namespace cuzk
