/*
 * not_built.c: the cuzk_gpu.h functions for builds without the `cuda`
 * feature. Each returns CUZK_ERR_NOT_BUILT, so the Rust layer is the same in
 * both builds and reports GpuError::NotBuilt from one place.
 */
#include <stdlib.h>
#include <string.h>

#include "cuzk_gpu.h"

static cuzk_error not_built(void) {
    static const char text[] = "cuzk was built without CUDA (enable the `cuda` feature)";
    cuzk_error e;
    e.code = CUZK_ERR_NOT_BUILT;
    e.msg = (char *)malloc(sizeof text);
    if (e.msg) memcpy(e.msg, text, sizeof text);
    return e;
}

void cuzk_error_free(cuzk_error err) { free(err.msg); }

cuzk_error cuzk_built_with_cuda(void) { return not_built(); }
cuzk_error cuzk_versions(int32_t *d, int32_t *r) { (void)d; (void)r; return not_built(); }
cuzk_error cuzk_device_count(int32_t *c) { if (c) *c = 0; return not_built(); }
cuzk_error cuzk_device_props_get(int32_t d, cuzk_device_props *o) { (void)d; (void)o; return not_built(); }
cuzk_error cuzk_mem_info(int32_t d, uint64_t *f, uint64_t *t) { (void)d; (void)f; (void)t; return not_built(); }
cuzk_error cuzk_set_device(int32_t d) { (void)d; return not_built(); }
cuzk_error cuzk_device_synchronize(int32_t d) { (void)d; return not_built(); }
cuzk_error cuzk_stream_create(int32_t d, cuzk_stream *o) { (void)d; (void)o; return not_built(); }
cuzk_error cuzk_stream_destroy(cuzk_stream s) { (void)s; return not_built(); }
cuzk_error cuzk_stream_synchronize(cuzk_stream s) { (void)s; return not_built(); }
cuzk_error cuzk_stream_wait_event(cuzk_stream s, cuzk_event e) { (void)s; (void)e; return not_built(); }
cuzk_error cuzk_event_create(int32_t d, int32_t t, cuzk_event *o) { (void)d; (void)t; (void)o; return not_built(); }
cuzk_error cuzk_event_destroy(cuzk_event e) { (void)e; return not_built(); }
cuzk_error cuzk_event_record(cuzk_event e, cuzk_stream s) { (void)e; (void)s; return not_built(); }
cuzk_error cuzk_event_synchronize(cuzk_event e) { (void)e; return not_built(); }
cuzk_error cuzk_event_query(cuzk_event e, int32_t *d) { (void)e; (void)d; return not_built(); }
cuzk_error cuzk_event_elapsed_ms(cuzk_event a, cuzk_event b, float *m) { (void)a; (void)b; (void)m; return not_built(); }
cuzk_error cuzk_malloc(int32_t d, size_t n, void **o) { (void)d; (void)n; (void)o; return not_built(); }
cuzk_error cuzk_free(void *p) { (void)p; return not_built(); }
cuzk_error cuzk_memcpy_async(void *d, const void *s, size_t n, cuzk_stream st) { (void)d; (void)s; (void)n; (void)st; return not_built(); }
cuzk_error cuzk_memset_async(void *d, int32_t v, size_t n, cuzk_stream st) { (void)d; (void)v; (void)n; (void)st; return not_built(); }
cuzk_error cuzk_host_alloc(size_t n, uint32_t f, void **o) { (void)n; (void)f; (void)o; return not_built(); }
cuzk_error cuzk_host_free(void *p) { (void)p; return not_built(); }
cuzk_error cuzk_host_register(void *p, size_t n, uint32_t f) { (void)p; (void)n; (void)f; return not_built(); }
cuzk_error cuzk_host_unregister(void *p) { (void)p; return not_built(); }
cuzk_error cuzk_last_error(void) { return not_built(); }
