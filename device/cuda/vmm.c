//go:build cgo

// Virtual memory management: reserve addresses, create physical memory on
// the device and map it, granule by granule. The structs are the driver's
// ABI (cuda.h, CUDA 11.2 and later): checked by size below.

#include "shim.h"
#include "extlib.h"

typedef unsigned long long gp_mem_handle; // CUmemGenericAllocationHandle

typedef struct {
	int type; // CUmemLocationType
	int id;
} gp_mem_location;

typedef struct {
	int type;                 // CUmemAllocationType
	int requestedHandleTypes; // CUmemAllocationHandleType
	gp_mem_location location;
	void *win32HandleMetaData;
	struct {
		unsigned char compressionType;
		unsigned char gpuDirectRDMACapable;
		unsigned short usage;
		unsigned char reserved[4];
	} allocFlags;
} gp_mem_alloc_prop;
_Static_assert(sizeof(gp_mem_alloc_prop) == 32, "CUmemAllocationProp is 32 bytes");

typedef struct {
	gp_mem_location location;
	int flags; // CUmemAccess_flags
} gp_mem_access_desc;
_Static_assert(sizeof(gp_mem_access_desc) == 12, "CUmemAccessDesc is 12 bytes");

enum {
	GP_MEM_ALLOCATION_TYPE_PINNED = 0x1,
	GP_MEM_HANDLE_TYPE_NONE = 0x0,
	GP_MEM_LOCATION_TYPE_DEVICE = 0x1,
	GP_MEM_ACCESS_FLAGS_PROT_READWRITE = 0x3,
	GP_MEM_ALLOC_GRANULARITY_MINIMUM = 0x0,
};

typedef CUresult (*t_gran)(size_t *, const gp_mem_alloc_prop *, int);
typedef CUresult (*t_reserve)(CUdeviceptr *, size_t, size_t, CUdeviceptr, unsigned long long);
typedef CUresult (*t_addr_free)(CUdeviceptr, size_t);
typedef CUresult (*t_create)(gp_mem_handle *, size_t, const gp_mem_alloc_prop *, unsigned long long);
typedef CUresult (*t_release)(gp_mem_handle);
typedef CUresult (*t_map)(CUdeviceptr, size_t, size_t, gp_mem_handle, unsigned long long);
typedef CUresult (*t_unmap)(CUdeviceptr, size_t);
typedef CUresult (*t_set_access)(CUdeviceptr, size_t, const gp_mem_access_desc *, size_t);

#define FN(T, name) ((T)gp_fn_get(GP_##name))

// entry is entry point sym with ctx current; or NULL, *rc then saying why
// (sym missing or hidden, or the context switch failed).
static void *entry(gp_h ctx, int sym, gp_rc *rc) {
	void *f = gp_fn_get(sym);
	*rc = f ? gp_use_ctx(ctx) : gp_pack(GP_SYMBOL_MISSING, sym);
	return *rc ? 0 : f;
}

// Device memory of dev, no shareable handle, no compression.
static gp_mem_alloc_prop prop_for(CUdevice dev) {
	gp_mem_alloc_prop p = {0};
	p.type = GP_MEM_ALLOCATION_TYPE_PINNED;
	p.requestedHandleTypes = GP_MEM_HANDLE_TYPE_NONE;
	p.location.type = GP_MEM_LOCATION_TYPE_DEVICE;
	p.location.id = dev;
	return p;
}

gp_ret gp_vm_granularity(gp_h ctx, CUdevice dev) {
	gp_ret out = {0};
	t_gran f = (t_gran)entry(ctx, GP_cuMemGetAllocationGranularity, &out.rc);
	if (!f) {
		return out;
	}
	gp_mem_alloc_prop p = prop_for(dev);
	size_t g = 0;
	CUresult r = f(&g, &p, GP_MEM_ALLOC_GRANULARITY_MINIMUM);
	if (r) {
		out.rc = gp_pack(r, GP_cuMemGetAllocationGranularity);
		return out;
	}
	out.v = g;
	return out;
}

gp_ret gp_vm_reserve(gp_h ctx, size_t size) {
	gp_ret out = {0};
	t_reserve f = (t_reserve)entry(ctx, GP_cuMemAddressReserve, &out.rc);
	if (!f) {
		return out;
	}
	CUdeviceptr p = 0;
	CUresult r = f(&p, size, 0, 0, 0);
	if (r) {
		out.rc = gp_pack(r, GP_cuMemAddressReserve);
		return out;
	}
	out.v = p;
	return out;
}

gp_rc gp_vm_free(gp_h ctx, CUdeviceptr p, size_t size) {
	gp_rc c;
	t_addr_free f = (t_addr_free)entry(ctx, GP_cuMemAddressFree, &c);
	if (!f) {
		return c;
	}
	CUresult r = f(p, size);
	return r ? gp_pack(r, GP_cuMemAddressFree) : 0;
}

// gp_vm_map creates size bytes on dev, maps them at p and grants dev read
// and write access; on failure it undoes what it did. out.v is the handle.
gp_ret gp_vm_map(gp_h ctx, CUdevice dev, CUdeviceptr p, size_t size) {
	gp_ret out = {0};
	t_create create = FN(t_create, cuMemCreate);
	t_release release = FN(t_release, cuMemRelease);
	t_map map = FN(t_map, cuMemMap);
	t_unmap unmap = FN(t_unmap, cuMemUnmap);
	t_set_access access = FN(t_set_access, cuMemSetAccess);
	int miss = !create ? GP_cuMemCreate : !release ? GP_cuMemRelease : !map ? GP_cuMemMap
		: !unmap ? GP_cuMemUnmap : !access ? GP_cuMemSetAccess : -1;
	if (miss >= 0) {
		out.rc = gp_pack(GP_SYMBOL_MISSING, miss);
		return out;
	}
	if ((out.rc = gp_use_ctx(ctx))) {
		return out;
	}
	gp_mem_alloc_prop prop = prop_for(dev);
	gp_mem_handle h = 0;
	CUresult r = create(&h, size, &prop, 0);
	if (r) {
		out.rc = gp_pack(r, GP_cuMemCreate);
		return out;
	}
	r = map(p, size, 0, h, 0);
	if (r) {
		release(h);
		out.rc = gp_pack(r, GP_cuMemMap);
		return out;
	}
	gp_mem_access_desc d = {{GP_MEM_LOCATION_TYPE_DEVICE, dev}, GP_MEM_ACCESS_FLAGS_PROT_READWRITE};
	r = access(p, size, &d, 1);
	if (r) {
		unmap(p, size);
		release(h);
		out.rc = gp_pack(r, GP_cuMemSetAccess);
		return out;
	}
	out.v = h;
	return out;
}

// gp_vm_unmap unmaps [p, p+size) and releases the handle mapped there (the
// physical memory is freed once no mapping refers to it).
gp_rc gp_vm_unmap(gp_h ctx, CUdeviceptr p, size_t size, unsigned long long h) {
	t_unmap unmap = FN(t_unmap, cuMemUnmap);
	t_release release = FN(t_release, cuMemRelease);
	if (!unmap) {
		return gp_pack(GP_SYMBOL_MISSING, GP_cuMemUnmap);
	}
	if (!release) {
		return gp_pack(GP_SYMBOL_MISSING, GP_cuMemRelease);
	}
	gp_rc c = gp_use_ctx(ctx);
	if (c) {
		return c;
	}
	CUresult r = unmap(p, size);
	if (r) {
		return gp_pack(r, GP_cuMemUnmap);
	}
	r = release(h);
	return r ? gp_pack(r, GP_cuMemRelease) : 0;
}
