//! Device enumeration and properties.

use std::fmt::Write as _;

use crate::{check, sys, GpuError, Result};

/// True when this build contains CUDA code (the `cuda` feature).
pub fn built_with_cuda() -> bool {
    // SAFETY: no arguments; returns an error by value.
    check(unsafe { sys::cuzk_built_with_cuda() }).is_ok()
}

/// Number of CUDA devices: [`GpuError::NotBuilt`] without the `cuda`
/// feature, [`GpuError::NoDevice`] without a GPU or driver.
pub fn try_device_count() -> Result<usize> {
    let mut n = 0i32;
    // SAFETY: `n` is a valid out-pointer for the call's duration.
    check(unsafe { sys::cuzk_device_count(&mut n) })?;
    if n <= 0 {
        return Err(GpuError::NoDevice(
            "the CUDA runtime reports 0 devices".into(),
        ));
    }
    Ok(n as usize)
}

/// Number of usable CUDA devices; 0 when built without CUDA or none is present.
pub fn device_count() -> usize {
    try_device_count().unwrap_or(0)
}

/// CUDA driver and runtime versions as (major, minor) pairs.
pub fn versions() -> Result<((i32, i32), (i32, i32))> {
    let (mut d, mut r) = (0i32, 0i32);
    // SAFETY: both out-pointers are valid for the call.
    check(unsafe { sys::cuzk_versions(&mut d, &mut r) })?;
    Ok(((d / 1000, (d % 1000) / 10), (r / 1000, (r % 1000) / 10)))
}

/// A CUDA device (an ordinal checked against the device count).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Device {
    ordinal: usize,
}

/// What we read about a device.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceProps {
    pub name: String,
    /// Compute capability (major, minor), e.g. (9, 0) for H100/H200.
    pub compute_capability: (u32, u32),
    pub sm_count: u32,
    pub clock_khz: u32,
    pub mem_clock_khz: u32,
    pub mem_bus_width_bits: u32,
    pub l2_bytes: u64,
    pub total_mem: u64,
    pub max_threads_per_sm: u32,
    pub regs_per_sm: u32,
    pub smem_per_block_optin: u64,
    pub smem_per_sm: u64,
    pub async_engines: u32,
    pub pci_bus: u32,
    pub pci_device: u32,
}

impl Device {
    /// Device `ordinal`; errors if CUDA is missing or the ordinal is out of range.
    pub fn new(ordinal: usize) -> Result<Device> {
        let count = try_device_count()?;
        if ordinal >= count {
            return Err(GpuError::InvalidDevice { ordinal, count });
        }
        Ok(Device { ordinal })
    }

    /// All devices.
    pub fn all() -> Result<Vec<Device>> {
        Ok((0..try_device_count()?)
            .map(|ordinal| Device { ordinal })
            .collect())
    }

    /// The CUDA ordinal.
    pub fn ordinal(&self) -> usize {
        self.ordinal
    }

    pub(crate) fn raw(&self) -> i32 {
        self.ordinal as i32
    }

    /// Static properties.
    pub fn props(&self) -> Result<DeviceProps> {
        let mut p = sys::cuzk_device_props::default();
        // SAFETY: `p` is a valid, writable cuzk_device_props.
        check(unsafe { sys::cuzk_device_props_get(self.raw(), &mut p) })?;
        let name_bytes: Vec<u8> = p
            .name
            .iter()
            .take_while(|&&c| c != 0)
            .map(|&c| c as u8)
            .collect();
        let u = |v: i32| v.max(0) as u32;
        Ok(DeviceProps {
            name: String::from_utf8_lossy(&name_bytes).into_owned(),
            compute_capability: (u(p.major), u(p.minor)),
            sm_count: u(p.sm_count),
            clock_khz: u(p.clock_khz),
            mem_clock_khz: u(p.mem_clock_khz),
            mem_bus_width_bits: u(p.mem_bus_width),
            l2_bytes: u(p.l2_bytes) as u64,
            total_mem: p.total_mem,
            max_threads_per_sm: u(p.max_threads_per_sm),
            regs_per_sm: u(p.regs_per_sm),
            smem_per_block_optin: p.smem_per_block_optin,
            smem_per_sm: p.smem_per_sm,
            async_engines: u(p.async_engines),
            pci_bus: u(p.pci_bus),
            pci_device: u(p.pci_device),
        })
    }

    /// (free, total) device memory in bytes. Makes the device current on
    /// this thread.
    pub fn mem_info(&self) -> Result<(u64, u64)> {
        let (mut f, mut t) = (0u64, 0u64);
        // SAFETY: both out-pointers are valid for the call.
        check(unsafe { sys::cuzk_mem_info(self.raw(), &mut f, &mut t) })?;
        Ok((f, t))
    }

    /// Makes this device current on the calling thread.
    pub fn bind(&self) -> Result<()> {
        // SAFETY: plain value argument.
        check(unsafe { sys::cuzk_set_device(self.raw()) })
    }

    /// Waits for all work on the device.
    pub fn synchronize(&self) -> Result<()> {
        // SAFETY: plain value argument.
        check(unsafe { sys::cuzk_device_synchronize(self.raw()) })
    }
}

const GIB: f64 = (1u64 << 30) as f64;

/// Human-readable description of the CUDA build and every device, for
/// `cuzk info`. Never fails: problems are part of the text.
pub fn describe_devices() -> String {
    let mut s = String::new();
    match try_device_count() {
        Err(GpuError::NotBuilt) => {
            s.push_str("GPU: built without CUDA (rebuild with `--features cuda`)\n");
            return s;
        }
        Err(e) => {
            let _ = writeln!(s, "GPU: none usable ({e})");
            return s;
        }
        Ok(n) => {
            let v = match versions() {
                Ok(((dm, dn), (rm, rn))) => format!("driver CUDA {dm}.{dn}, runtime {rm}.{rn}"),
                Err(e) => format!("versions unknown: {e}"),
            };
            let _ = writeln!(s, "GPU: {n} device(s), {v}");
        }
    }
    for d in Device::all().unwrap_or_default() {
        match d.props() {
            Ok(p) => {
                let _ = writeln!(
                    s,
                    "  [{}] {} (sm_{}{}), {} SMs @ {} MHz, {:.1} GiB, L2 {} MiB, PCI {:02x}:{:02x}",
                    d.ordinal,
                    p.name,
                    p.compute_capability.0,
                    p.compute_capability.1,
                    p.sm_count,
                    p.clock_khz / 1000,
                    p.total_mem as f64 / GIB,
                    p.l2_bytes >> 20,
                    p.pci_bus,
                    p.pci_device,
                );
                if let Ok((free, total)) = d.mem_info() {
                    let _ = writeln!(
                        s,
                        "      memory free {:.1} / {:.1} GiB, smem/block opt-in {} KiB, {} copy engines",
                        free as f64 / GIB,
                        total as f64 / GIB,
                        p.smem_per_block_optin >> 10,
                        p.async_engines
                    );
                }
            }
            Err(e) => {
                let _ = writeln!(s, "  [{}] error: {e}", d.ordinal);
            }
        }
    }
    s
}
