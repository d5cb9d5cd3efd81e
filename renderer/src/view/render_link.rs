//! The UI side of the render thread ([`super::worker`]): what was sent to it (the
//! scene, the view), what came back (the latest frame and its egui texture, the
//! device, a note, an error), so the rest of the editor reads the render's state
//! without touching channels.

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use eframe::egui;

use super::worker::{Command, Event, Frame, ViewParams, Worker};
use crate::backend::select::BackendChoice;
use crate::load::CompiledScene;

/// The render thread's handle and what it last reported.
pub struct RenderLink {
    worker: Worker,
    /// The context the render thread wakes; set on the first frame.
    repaint: Arc<OnceLock<egui::Context>>,
    /// The content hash of the scene the render thread has (or is sent). Not the scene
    /// itself: a live `Arc` here would keep the session from moving instances in place.
    sent_scene: Option<u64>,
    sent_params: Option<ViewParams>,
    frame: Option<Box<Frame>>,
    texture: Option<egui::TextureHandle>,
    /// The backend's device name ("" until the first report).
    pub device: String,
    /// A fallback or kernel-reload note from the render thread.
    pub note: Option<String>,
    /// Why rendering paused, until the next frame.
    pub error: Option<String>,
}

impl RenderLink {
    /// Starts the render thread.
    pub fn spawn(backend: BackendChoice, kernels: Option<PathBuf>) -> RenderLink {
        let repaint = Arc::new(OnceLock::new());
        let worker = Worker::spawn(backend, kernels, Arc::clone(&repaint));
        RenderLink {
            worker,
            repaint,
            sent_scene: None,
            sent_params: None,
            frame: None,
            texture: None,
            device: String::new(),
            note: None,
            error: None,
        }
    }

    /// Lets the render thread wake `ctx` when a frame arrives.
    pub fn set_context(&self, ctx: &egui::Context) {
        let _ = self.repaint.get_or_init(|| ctx.clone());
    }

    /// The latest image.
    pub fn frame(&self) -> Option<&Frame> {
        self.frame.as_deref()
    }

    /// The latest image as an egui texture.
    pub fn texture(&self) -> Option<&egui::TextureHandle> {
        self.texture.as_ref()
    }

    /// The view last sent.
    pub fn params(&self) -> Option<ViewParams> {
        self.sent_params
    }

    /// Whether the latest image is of the current view's size with all of its samples.
    pub fn finished(&self) -> bool {
        match (&self.frame, self.sent_params) {
            (Some(frame), Some(params)) => {
                (frame.width, frame.height, frame.samples)
                    == (params.settings.width, params.settings.height, params.settings.spp)
            }
            _ => false,
        }
    }

    /// Whether the render thread is alive (the UI says so when it is not).
    pub fn is_running(&self) -> bool {
        self.worker.is_running()
    }

    /// Whether the render thread has `scene`'s content (a save or a no-op reload yields
    /// a new `Arc` with the same blob: nothing to upload; instances moved in place keep
    /// the `Arc` and change the content).
    pub fn has_scene(&self, scene: &CompiledScene) -> bool {
        self.sent_scene == Some(scene.content_hash)
    }

    /// Hands `scene` to the render thread, unless it has that content already.
    pub fn send_scene(&mut self, scene: &Arc<CompiledScene>) {
        if !self.has_scene(scene) {
            self.worker.send(Command::Scene(Arc::clone(scene)));
            self.sent_scene = Some(scene.content_hash);
        }
    }

    /// Records that the render thread's scene is now `scene` without sending it: an
    /// edit of the display alone, which `send_view` carries.
    pub fn adopt_scene(&mut self, scene: &CompiledScene) {
        self.sent_scene = Some(scene.content_hash);
    }

    /// Sends `params` when they differ from the last sent.
    pub fn send_view(&mut self, params: ViewParams) {
        if self.sent_params != Some(params) {
            self.worker.send(Command::View(params));
            self.sent_params = Some(params);
        }
    }

    pub fn send(&self, command: Command) {
        self.worker.send(command);
    }

    /// Takes what the render thread reported since the last call.
    pub fn take_events(&mut self, ctx: &egui::Context) {
        for event in self.worker.events() {
            match event {
                Event::Frame(frame) => {
                    let image = egui::ColorImage::from_rgba_unmultiplied(
                        [frame.width as usize, frame.height as usize],
                        &frame.rgba,
                    );
                    match &mut self.texture {
                        Some(texture) => texture.set(image, egui::TextureOptions::LINEAR),
                        None => {
                            self.texture =
                                Some(ctx.load_texture("render", image, egui::TextureOptions::LINEAR))
                        }
                    }
                    self.error = None;
                    self.device.clone_from(&frame.device);
                    self.frame = Some(frame);
                }
                Event::Error(message) => self.error = Some(message),
                Event::Backend { device, note } => {
                    self.device = device;
                    self.note = note;
                }
                Event::NeedsScene => self.sent_scene = None,
            }
        }
    }
}
