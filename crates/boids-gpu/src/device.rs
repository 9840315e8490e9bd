//! The adapter and device the engine runs on, found once per process and shared by every
//! flock: wgpu's default high-performance adapter on Vulkan, Metal or DX12 (a CPU adapter such
//! as Mesa's lavapipe when it is the only one), with the adapter's own limits, since a flock of
//! millions needs storage buffers far beyond WebGPU's defaults.

use std::sync::{Arc, Mutex, OnceLock};

use boids_core::EngineKind;
use boids_core::engine::Unavailable;

/// The device, its queue, and what the adapter says of itself.
#[derive(Debug)]
pub struct Gpu {
    /// The logical device.
    pub device: wgpu::Device,
    /// Its queue.
    pub queue: wgpu::Queue,
    /// The adapter: name, backend, driver.
    pub info: wgpu::AdapterInfo,
    /// The limits the device was made with (the adapter's).
    pub limits: wgpu::Limits,
    /// The first error the device reported on its own (out of memory, a lost device), which
    /// would otherwise abort the process.
    failure: Arc<Mutex<Option<String>>>,
}

impl Gpu {
    /// The first error the device reported, if any.
    pub fn failure(&self) -> Option<String> {
        self.failure.lock().ok().and_then(|failure| failure.clone())
    }
}

/// How to get an adapter, for a message that has none.
const NO_ADAPTER_HINT: &str = "install a Vulkan driver for your GPU (Linux: the vendor's driver, or Mesa's `mesa-vulkan-drivers`, whose lavapipe runs on the CPU), or use Metal on macOS, DX12 on Windows";

static SHARED: OnceLock<Result<Arc<Gpu>, String>> = OnceLock::new();

/// The process's device, made on first use.
pub fn shared() -> Result<Arc<Gpu>, Unavailable> {
    SHARED
        .get_or_init(|| open().map(Arc::new))
        .clone()
        .map_err(|reason| Unavailable::CannotStart {
            engine: EngineKind::Gpu.name(),
            reason,
        })
}

/// What `boids info` prints of the adapter: its name, backend, type and driver.
pub fn describe(info: &wgpu::AdapterInfo) -> String {
    let driver = [info.driver.as_str(), info.driver_info.as_str()]
        .into_iter()
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    format!(
        "{} ({:?}, {:?}{})",
        info.name,
        info.backend,
        info.device_type,
        if driver.is_empty() {
            String::new()
        } else {
            format!(", {driver}")
        }
    )
}

fn open() -> Result<Gpu, String> {
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor {
        backends: wgpu::Backends::VULKAN | wgpu::Backends::METAL | wgpu::Backends::DX12,
        ..wgpu::InstanceDescriptor::new_without_display_handle()
    });
    let options = wgpu::RequestAdapterOptions {
        power_preference: wgpu::PowerPreference::HighPerformance,
        ..Default::default()
    };
    let adapter = pollster::block_on(instance.request_adapter(&options))
        .map_err(|error| format!("no GPU adapter was found ({error}): {NO_ADAPTER_HINT}"))?;
    let limits = adapter.limits();
    let descriptor = wgpu::DeviceDescriptor {
        label: Some("boids"),
        required_limits: limits.clone(),
        ..Default::default()
    };
    let (device, queue) =
        pollster::block_on(adapter.request_device(&descriptor)).map_err(|error| {
            format!(
                "the adapter {} gave no device: {error}",
                adapter.get_info().name
            )
        })?;
    let failure = Arc::new(Mutex::new(None));
    let recorded = Arc::clone(&failure);
    device.on_uncaptured_error(Arc::new(move |error: wgpu::Error| {
        if let Ok(mut first) = recorded.lock() {
            first.get_or_insert_with(|| error.to_string());
        }
    }));
    Ok(Gpu {
        device,
        queue,
        info: adapter.get_info(),
        limits,
        failure,
    })
}
