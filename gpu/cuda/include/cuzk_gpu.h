/*
 * cuzk_gpu.h: the C face of cuzk's CUDA runtime shim (gpu/cuda/runtime.cu).
 *
 * Conventions for every cuzk C entry point, device (.cu) and host twin
 * (.cpp) alike (see docs/GPU.md):
 *  - functions are plain `extern "C"` and return a `cuzk_error` BY VALUE;
 *    results go through pointer arguments;
 *  - `code == 0` means success and then `msg` is NULL;
 *  - on failure `msg` is a malloc'd, NUL-terminated string owned by the
 *    caller, released with `cuzk_error_free`;
 *  - no C++ exception crosses this boundary: bodies run inside cuzk::guard
 *    (cuzk_guard.hpp), which turns exceptions into CUZK_ERR_EXCEPTION /
 *    CUZK_ERR_HOST_ALLOC;
 *  - each header is bound to Rust by bindgen (`cargo xtask bindgen`,
 *    checked in CI), never declared by hand.
 * This header needs no CUDA headers, so bindgen (and plain C) can read it.
 */
#ifndef CUZK_GPU_H
#define CUZK_GPU_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Result of every cuzk C function. Positive codes are cudaError_t values. */
typedef struct cuzk_error {
    int32_t code;
    char *msg;
} cuzk_error;

/** A C++ exception was caught at the boundary. */
#define CUZK_ERR_EXCEPTION (-1)
/** An argument was invalid (null pointer, bad size). */
#define CUZK_ERR_INVALID_ARG (-2)
/** Host memory allocation (std::bad_alloc) failed. */
#define CUZK_ERR_HOST_ALLOC (-3)
/** No usable device: no GPU, no driver, or a driver too old for the runtime. */
#define CUZK_ERR_NO_DEVICE (-4)
/** The library was built without CUDA (the `cuda` feature was off). */
#define CUZK_ERR_NOT_BUILT (-5)

/** cudaHostAlloc / cudaHostRegister flags (same values as CUDA's). */
#define CUZK_HOST_ALLOC_DEFAULT 0u
#define CUZK_HOST_ALLOC_PORTABLE 1u
#define CUZK_HOST_REGISTER_DEFAULT 0u
#define CUZK_HOST_REGISTER_PORTABLE 1u
#define CUZK_HOST_REGISTER_READ_ONLY 8u

/** Frees the message of an error (no-op for success). */
void cuzk_error_free(cuzk_error err);

/** What `cuzk info` prints about a device. */
typedef struct cuzk_device_props {
    char name[256];
    int32_t major;
    int32_t minor;
    int32_t sm_count;
    int32_t clock_khz;
    int32_t mem_clock_khz;
    int32_t mem_bus_width;
    int32_t l2_bytes;
    int32_t max_threads_per_sm;
    int32_t regs_per_sm;
    int32_t async_engines;
    int32_t pci_bus;
    int32_t pci_device;
    uint64_t total_mem;
    uint64_t smem_per_block_optin;
    uint64_t smem_per_sm;
} cuzk_device_props;

/** Opaque handles (cudaStream_t, cudaEvent_t). A null stream is the legacy default stream. */
typedef void *cuzk_stream;
typedef void *cuzk_event;

/** 0 when CUDA is compiled in, else CUZK_ERR_NOT_BUILT (never fails otherwise). */
cuzk_error cuzk_built_with_cuda(void);
/** Driver and runtime versions (1000*major + 10*minor). */
cuzk_error cuzk_versions(int32_t *driver, int32_t *runtime);
cuzk_error cuzk_device_count(int32_t *count);
cuzk_error cuzk_device_props_get(int32_t device, cuzk_device_props *out);
/** Makes `device` current on the calling thread, then reports its free/total memory. */
cuzk_error cuzk_mem_info(int32_t device, uint64_t *free_bytes, uint64_t *total_bytes);
cuzk_error cuzk_set_device(int32_t device);
cuzk_error cuzk_device_synchronize(int32_t device);

cuzk_error cuzk_stream_create(int32_t device, cuzk_stream *out);
cuzk_error cuzk_stream_destroy(cuzk_stream stream);
cuzk_error cuzk_stream_synchronize(cuzk_stream stream);
cuzk_error cuzk_stream_wait_event(cuzk_stream stream, cuzk_event event);

/** `timing != 0` enables elapsed-time measurement. */
cuzk_error cuzk_event_create(int32_t device, int32_t timing, cuzk_event *out);
cuzk_error cuzk_event_destroy(cuzk_event event);
cuzk_error cuzk_event_record(cuzk_event event, cuzk_stream stream);
cuzk_error cuzk_event_synchronize(cuzk_event event);
/** `*done` = 1 when the event has completed, 0 when work is pending. */
cuzk_error cuzk_event_query(cuzk_event event, int32_t *done);
cuzk_error cuzk_event_elapsed_ms(cuzk_event start, cuzk_event end, float *ms);

cuzk_error cuzk_malloc(int32_t device, size_t bytes, void **out);
cuzk_error cuzk_free(void *ptr);
/** Asynchronous copy in any direction (unified addressing) on `stream`. */
cuzk_error cuzk_memcpy_async(void *dst, const void *src, size_t bytes, cuzk_stream stream);
/** Asynchronous byte fill of device memory on `stream`. */
cuzk_error cuzk_memset_async(void *dst, int32_t value, size_t bytes, cuzk_stream stream);

cuzk_error cuzk_host_alloc(size_t bytes, uint32_t flags, void **out);
cuzk_error cuzk_host_free(void *ptr);
cuzk_error cuzk_host_register(void *ptr, size_t bytes, uint32_t flags);
cuzk_error cuzk_host_unregister(void *ptr);

/** Returns (and clears) the calling thread's last CUDA error. */
cuzk_error cuzk_last_error(void);

#ifdef __cplusplus
}
#endif

#endif /* CUZK_GPU_H */
