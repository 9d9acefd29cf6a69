// runtime.cu: the thin CUDA runtime shim behind cuzk-gpu (see cuzk_gpu.h).
// Only cudart (static) is linked; every function returns cuzk_error by value.
#include <cstring>

#include "cuzk_error.cuh"

using cuzk::from_cuda;
using cuzk::guard;
using cuzk::invalid;
using cuzk::ok;

extern "C" {

void cuzk_error_free(cuzk_error err) { std::free(err.msg); }

cuzk_error cuzk_built_with_cuda(void) { return ok(); }

cuzk_error cuzk_versions(int32_t *driver, int32_t *runtime) {
    return guard([&] {
        if (!driver || !runtime) return invalid("null output");
        int d = 0, r = 0;
        CUZK_TRY(cudaDriverGetVersion(&d));
        CUZK_TRY(cudaRuntimeGetVersion(&r));
        *driver = d;
        *runtime = r;
        return ok();
    });
}

cuzk_error cuzk_device_count(int32_t *count) {
    return guard([&] {
        if (!count) return invalid("null output");
        int n = 0;
        *count = 0;
        CUZK_TRY(cudaGetDeviceCount(&n));
        *count = n;
        return ok();
    });
}

cuzk_error cuzk_device_props_get(int32_t device, cuzk_device_props *out) {
    return guard([&] {
        if (!out) return invalid("null output");
        std::memset(out, 0, sizeof(*out));
        cudaDeviceProp p;
        CUZK_TRY(cudaGetDeviceProperties(&p, device));
        static_assert(sizeof(out->name) == sizeof(p.name), "name buffer size");
        std::memcpy(out->name, p.name, sizeof(out->name));
        out->name[sizeof(out->name) - 1] = 0;
        out->major = p.major;
        out->minor = p.minor;
        out->sm_count = p.multiProcessorCount;
        // CUDA 13 removed the clock fields from cudaDeviceProp; ask for attributes.
        int v = 0;
        CUZK_TRY(cudaDeviceGetAttribute(&v, cudaDevAttrClockRate, device));
        out->clock_khz = v;
        CUZK_TRY(cudaDeviceGetAttribute(&v, cudaDevAttrMemoryClockRate, device));
        out->mem_clock_khz = v;
        out->mem_bus_width = p.memoryBusWidth;
        out->l2_bytes = p.l2CacheSize;
        out->max_threads_per_sm = p.maxThreadsPerMultiProcessor;
        out->regs_per_sm = p.regsPerMultiprocessor;
        out->async_engines = p.asyncEngineCount;
        out->pci_bus = p.pciBusID;
        out->pci_device = p.pciDeviceID;
        out->total_mem = p.totalGlobalMem;
        out->smem_per_block_optin = p.sharedMemPerBlockOptin;
        out->smem_per_sm = p.sharedMemPerMultiprocessor;
        return ok();
    });
}

cuzk_error cuzk_set_device(int32_t device) {
    return guard([&] {
        CUZK_TRY(cudaSetDevice(device));
        return ok();
    });
}

cuzk_error cuzk_mem_info(int32_t device, uint64_t *free_bytes, uint64_t *total_bytes) {
    return guard([&] {
        if (!free_bytes || !total_bytes) return invalid("null output");
        size_t f = 0, t = 0;
        CUZK_TRY(cudaSetDevice(device));
        CUZK_TRY(cudaMemGetInfo(&f, &t));
        *free_bytes = f;
        *total_bytes = t;
        return ok();
    });
}

cuzk_error cuzk_device_synchronize(int32_t device) {
    return guard([&] {
        CUZK_TRY(cudaSetDevice(device));
        CUZK_TRY(cudaDeviceSynchronize());
        return ok();
    });
}

cuzk_error cuzk_stream_create(int32_t device, cuzk_stream *out) {
    return guard([&] {
        if (!out) return invalid("null output");
        CUZK_TRY(cudaSetDevice(device));
        cudaStream_t s = nullptr;
        // Non-blocking: our streams never serialise against the legacy
        // default stream that other libraries in the process may use.
        CUZK_TRY(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
        *out = s;
        return ok();
    });
}

cuzk_error cuzk_stream_destroy(cuzk_stream stream) {
    return guard([&] {
        CUZK_TRY(cudaStreamDestroy(static_cast<cudaStream_t>(stream)));
        return ok();
    });
}

cuzk_error cuzk_stream_synchronize(cuzk_stream stream) {
    return guard([&] {
        CUZK_TRY(cudaStreamSynchronize(static_cast<cudaStream_t>(stream)));
        return ok();
    });
}

cuzk_error cuzk_stream_wait_event(cuzk_stream stream, cuzk_event event) {
    return guard([&] {
        CUZK_TRY(cudaStreamWaitEvent(static_cast<cudaStream_t>(stream),
                                     static_cast<cudaEvent_t>(event), 0));
        return ok();
    });
}

cuzk_error cuzk_event_create(int32_t device, int32_t timing, cuzk_event *out) {
    return guard([&] {
        if (!out) return invalid("null output");
        CUZK_TRY(cudaSetDevice(device));
        cudaEvent_t e = nullptr;
        CUZK_TRY(cudaEventCreateWithFlags(&e, timing ? cudaEventDefault : cudaEventDisableTiming));
        *out = e;
        return ok();
    });
}

cuzk_error cuzk_event_destroy(cuzk_event event) {
    return guard([&] {
        CUZK_TRY(cudaEventDestroy(static_cast<cudaEvent_t>(event)));
        return ok();
    });
}

cuzk_error cuzk_event_record(cuzk_event event, cuzk_stream stream) {
    return guard([&] {
        CUZK_TRY(cudaEventRecord(static_cast<cudaEvent_t>(event), static_cast<cudaStream_t>(stream)));
        return ok();
    });
}

cuzk_error cuzk_event_synchronize(cuzk_event event) {
    return guard([&] {
        CUZK_TRY(cudaEventSynchronize(static_cast<cudaEvent_t>(event)));
        return ok();
    });
}

cuzk_error cuzk_event_query(cuzk_event event, int32_t *done) {
    return guard([&] {
        if (!done) return invalid("null output");
        cudaError_t e = cudaEventQuery(static_cast<cudaEvent_t>(event));
        if (e == cudaErrorNotReady) {
            *done = 0;
            return ok();
        }
        CUZK_TRY(e);
        *done = 1;
        return ok();
    });
}

cuzk_error cuzk_event_elapsed_ms(cuzk_event start, cuzk_event end, float *ms) {
    return guard([&] {
        if (!ms) return invalid("null output");
        CUZK_TRY(cudaEventElapsedTime(ms, static_cast<cudaEvent_t>(start),
                                      static_cast<cudaEvent_t>(end)));
        return ok();
    });
}

cuzk_error cuzk_malloc(int32_t device, size_t bytes, void **out) {
    return guard([&] {
        if (!out) return invalid("null output");
        *out = nullptr;
        CUZK_TRY(cudaSetDevice(device));
        CUZK_TRY(cudaMalloc(out, bytes));
        return ok();
    });
}

cuzk_error cuzk_free(void *ptr) {
    return guard([&] {
        CUZK_TRY(cudaFree(ptr));
        return ok();
    });
}

cuzk_error cuzk_memcpy_async(void *dst, const void *src, size_t bytes, cuzk_stream stream) {
    return guard([&] {
        if (bytes == 0) return ok();
        if (!dst || !src) return invalid("null pointer");
        CUZK_TRY(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault,
                                 static_cast<cudaStream_t>(stream)));
        return ok();
    });
}

cuzk_error cuzk_memset_async(void *dst, int32_t value, size_t bytes, cuzk_stream stream) {
    return guard([&] {
        if (bytes == 0) return ok();
        if (!dst) return invalid("null pointer");
        CUZK_TRY(cudaMemsetAsync(dst, value, bytes, static_cast<cudaStream_t>(stream)));
        return ok();
    });
}

cuzk_error cuzk_host_alloc(size_t bytes, uint32_t flags, void **out) {
    return guard([&] {
        if (!out) return invalid("null output");
        *out = nullptr;
        CUZK_TRY(cudaHostAlloc(out, bytes, flags));
        return ok();
    });
}

cuzk_error cuzk_host_free(void *ptr) {
    return guard([&] {
        CUZK_TRY(cudaFreeHost(ptr));
        return ok();
    });
}

cuzk_error cuzk_host_register(void *ptr, size_t bytes, uint32_t flags) {
    return guard([&] {
        if (!ptr || bytes == 0) return invalid("null pointer or empty range");
        CUZK_TRY(cudaHostRegister(ptr, bytes, flags));
        return ok();
    });
}

cuzk_error cuzk_host_unregister(void *ptr) {
    return guard([&] {
        CUZK_TRY(cudaHostUnregister(ptr));
        return ok();
    });
}

cuzk_error cuzk_last_error(void) { return from_cuda(cudaGetLastError()); }

}  // extern "C"
