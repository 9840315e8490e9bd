//! The adapter and device the engine runs on, found once per process and shared by every
//! flock: wgpu's default high-performance adapter on Vulkan, Metal or DX12 (a CPU adapter such
//! as Mesa's lavapipe when it is the only one), with the adapter's own limits, since a flock of
//! millions needs storage buffers far beyond WebGPU's defaults.
//!
//! A device can fail: out of memory, or lost (a driver reset, a GPU removed). wgpu's default
//! answer to an error nobody catches is to abort the process, which would take a long run
//! with it. Here every batch runs inside error scopes ([`Gpu::guarded`]), so its failure is
//! the batch's alone and the engine refuses the step with the device's message; a lost device
//! is replaced by a new one at the next [`shared`], with its own compiled step.

use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use boids_core::EngineKind;
use boids_core::engine::Unavailable;

use crate::pipelines::Pipelines;

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
    /// Why the device was lost, once it is.
    lost: Arc<Mutex<Option<String>>>,
    /// An error no scope caught (none should escape [`Gpu::guarded`]; kept, not aborted on).
    uncaught: Arc<Mutex<Option<String>>>,
    /// The step compiled for this device, for 2 and 3 dimensions, made on first use.
    compiled: [OnceLock<Arc<Pipelines>>; 2],
}

impl Gpu {
    /// Why the device was lost, if it was: it takes no more work, and [`shared`] replaces it.
    pub fn lost(&self) -> Option<String> {
        self.lost
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// The step for a flock of `dimensions`, compiled for this device.
    pub fn pipelines(&self, dimensions: usize) -> Arc<Pipelines> {
        let slot = &self.compiled[usize::from(dimensions == 3)];
        Arc::clone(slot.get_or_init(|| Arc::new(Pipelines::new(&self.device, dimensions))))
    }

    /// Runs `work` (everything it asks of the device, and a wait for it) inside error scopes
    /// for running out of memory, a mistake of the engine and an internal error, and returns
    /// its result, or the first error the device reported for it, or why the device was lost.
    pub fn guarded<T>(&self, work: impl FnOnce() -> T) -> Result<T, String> {
        let scopes = [
            wgpu::ErrorFilter::OutOfMemory,
            wgpu::ErrorFilter::Validation,
            wgpu::ErrorFilter::Internal,
        ]
        .map(|filter| self.device.push_error_scope(filter));
        let done = work();
        let mut first = None;
        // Popped innermost first, as scopes must be.
        for scope in scopes.into_iter().rev() {
            if let Some(error) = pollster::block_on(scope.pop()) {
                first.get_or_insert_with(|| error.to_string());
            }
        }
        let uncaught = self
            .uncaught
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        match first.or(uncaught).or_else(|| self.lost()) {
            None => Ok(done),
            Some(failure) => Err(failure),
        }
    }
}

/// How to get an adapter, for a message that has none.
const NO_ADAPTER_HINT: &str = "install a Vulkan driver for your GPU (Linux: the vendor's driver, or Mesa's `mesa-vulkan-drivers`, whose lavapipe runs on the CPU), or use Metal on macOS, DX12 on Windows";

static SHARED: Mutex<Option<Result<Arc<Gpu>, String>>> = Mutex::new(None);

/// The process's device, made on first use, and made anew when the last one was lost.
pub fn shared() -> Result<Arc<Gpu>, Unavailable> {
    let mut shared = SHARED.lock().unwrap_or_else(PoisonError::into_inner);
    if matches!(&*shared, Some(Ok(gpu)) if gpu.lost().is_some()) {
        *shared = None;
    }
    shared
        .get_or_insert_with(|| open().map(Arc::new))
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
    let uncaught = Arc::new(Mutex::new(None));
    let kept = Arc::clone(&uncaught);
    device.on_uncaptured_error(Arc::new(move |error: wgpu::Error| {
        let mut kept = kept.lock().unwrap_or_else(PoisonError::into_inner);
        kept.get_or_insert_with(|| error.to_string());
    }));
    let lost = Arc::new(Mutex::new(None));
    let kept = Arc::clone(&lost);
    device.set_device_lost_callback(move |reason, message| {
        let mut kept = kept.lock().unwrap_or_else(PoisonError::into_inner);
        let said = if message.is_empty() {
            String::new()
        } else {
            format!(": {message}")
        };
        kept.get_or_insert_with(|| format!("the device was lost ({reason:?}){said}"));
    });
    Ok(Gpu {
        device,
        queue,
        info: adapter.get_info(),
        limits,
        lost,
        uncaught,
        compiled: Default::default(),
    })
}
