//! What a scene's checks report through: the [`Checker`] that collects [`Issue`]s, and
//! its checks of single values (finite, in range, a colour, a point, a count), which
//! every part of the model's checks uses (`validate.rs` walks the scene, `list.rs` its
//! shapes, `material.rs` its material kinds).

use glam::Vec3;
use rayon::prelude::*;

use crate::ranges;

/// Shapes checked by one task when a list is checked on all threads.
const PAR_CHUNK: usize = 1 << 14;

use super::model::text::Written;
use super::model::{Material, Scene};
use super::spans::ValuePath;

/// One semantic problem, located by the path of the offending value.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Issue {
    pub path: ValuePath,
    pub message: String,
    /// Short text under the caret.
    pub label: String,
    pub hint: Option<String>,
    /// A second place worth showing, e.g. the first definition of a duplicate.
    pub also: Option<(ValuePath, String)>,
}

impl Issue {
    /// Adds what the user can do about it.
    pub(crate) fn set_hint(&mut self, hint: impl Into<String>) {
        self.hint = Some(hint.into());
    }
}

/// The path of the value being checked, built only if an issue needs it: paths
/// allocate, and a large scene has millions of values that are fine.
pub(crate) type At<'a> = &'a dyn Fn() -> ValuePath;

/// Collects issues while walking the scene.
pub(crate) struct Checker<'s> {
    issues: Vec<Issue>,
    /// What the scene's file said that the model cannot hold (`None`: built in memory).
    pub(super) text: Option<&'s Written>,
    /// The scene's materials, which references index.
    pub(super) materials: &'s [Material],
    /// A scene that passed the checks and that this one is an edit of (`validate::check`).
    pub(super) before: Option<&'s Scene>,
}

impl<'s> Checker<'s> {
    pub(super) fn new(
        text: Option<&'s Written>,
        materials: &'s [Material],
        before: Option<&'s Scene>,
    ) -> Checker<'s> {
        Checker { issues: Vec::new(), text, materials, before }
    }

    /// Everything reported, in order.
    pub(super) fn into_issues(self) -> Vec<Issue> {
        self.issues
    }

    /// Whether anything was reported so far.
    pub(super) fn is_clean(&self) -> bool {
        self.issues.is_empty()
    }

    pub(crate) fn report(&mut self, at: At, message: impl Into<String>, label: &str) -> &mut Issue {
        let message = message.into();
        let issue = Issue { path: at(), message, label: label.to_owned(), hint: None, also: None };
        self.issues.push(issue);
        let last = self.issues.len() - 1;
        &mut self.issues[last]
    }

    /// Reports NaN and infinities; true when `v` is a usable number.
    pub(super) fn finite(&mut self, v: f32, what: &str, at: At) -> bool {
        if !v.is_finite() {
            self.report(at, format!("{what} must be a finite number, found {v}"), "not a finite number")
                .set_hint("NaN and infinities are not allowed in a scene");
        }
        v.is_finite()
    }

    /// Checks each component of a vector; true when all are finite.
    pub(crate) fn finite3(&mut self, v: Vec3, what: &str, at: At) -> bool {
        // Not `all`: every bad component gets its own message.
        let mut ok = true;
        for (k, x) in v.to_array().into_iter().enumerate() {
            ok &= self.finite(x, what, &|| at().index(k));
        }
        ok
    }

    /// A finite number that `ok` accepts, described by `expect` ("between 0 and 1");
    /// returns the issue when it is out of range, so the caller can add a hint.
    pub(crate) fn check(
        &mut self,
        v: f32,
        what: &str,
        at: At,
        ok: impl Fn(f32) -> bool,
        expect: &str,
    ) -> Option<&mut Issue> {
        if self.finite(v, what, at) && !ok(v) {
            return Some(self.report(at, format!("{what} must be {expect}, found {v}"), "out of range"));
        }
        None
    }

    /// A colour channel, strength or other quantity: finite, not negative and at most
    /// `ranges::MAX_RADIANCE`, so products of them stay finite.
    pub(super) fn non_negative(&mut self, v: f32, what: &str, at: At) {
        if self.check(v, what, at, |x| x >= 0.0, "non-negative").is_none() {
            self.at_most(v, ranges::MAX_RADIANCE, what, at);
        }
    }

    /// Reports a finite `v` above `max` (its range's upper end, after the check of its
    /// lower end): "must be at most 1e9".
    pub(crate) fn at_most(&mut self, v: f32, max: f32, what: &str, at: At) {
        if v.is_finite() && v > max {
            self.report(at, format!("{what} must be at most {max:e}, found {v}"), "too large")
                .set_hint("values this large overflow 32-bit floats in the renderers' products");
        }
    }

    /// A point: each coordinate finite and within `ranges::MAX_COORDINATE` of 0; true
    /// when usable.
    pub(crate) fn coordinate3(&mut self, v: Vec3, what: &str, at: At) -> bool {
        if !self.finite3(v, what, at) {
            return false;
        }
        let mut ok = true;
        for (k, x) in v.to_array().into_iter().enumerate() {
            if x.abs() > ranges::MAX_COORDINATE {
                self.report(
                    &|| at().index(k),
                    format!("{what} must be between -1e9 and 1e9, found {x}"),
                    "out of range",
                )
                .set_hint("coordinates beyond 1e9 lose all precision in 32-bit floats; scale the scene down");
                ok = false;
            }
        }
        ok
    }

    /// A colour times a strength (an emitter's or light's radiance, an image's texel
    /// times its strength) within `ranges::MAX_RADIANCE`, reported at `at`.
    pub(super) fn radiance_product(&mut self, color: Vec3, strength: f32, what: &str, at: At) {
        let color = color.to_array();
        let product = color.map(|c| c * strength);
        // Factors out of range have their own message: one mistake, one message.
        if ranges::radiance_ok(&color) && ranges::radiance_ok(&[strength]) && !ranges::radiance_ok(&product) {
            let max = product.iter().copied().fold(0.0, f32::max);
            self.report(at, format!("{what} is {max}, more than the 1e9 a radiance may be"), "too bright");
        }
    }

    /// A colour or other per-channel quantity: each channel finite and not negative.
    pub(super) fn non_negative3(&mut self, v: Vec3, what: &str, at: At) {
        for (k, x) in v.to_array().into_iter().enumerate() {
            self.non_negative(x, what, &|| at().index(k));
        }
    }

    pub(crate) fn count(&mut self, at: &ValuePath, what: &str, n: usize, max: usize) {
        if n > max {
            self.report(
                &|| at.clone(),
                format!("too many {what}: {n}, at most {max} are supported"),
                "too many",
            );
        }
    }

    /// Checks a list of shapes with `check`, which reports into the checker it is given.
    /// A long list is checked in chunks on all threads; the issues still come out in
    /// list order, as one walk would report them.
    pub(crate) fn each<T: Sync>(&mut self, items: &[T], check: impl Fn(&mut Checker, usize, &T) + Sync) {
        if items.len() < 2 * PAR_CHUNK {
            for (i, item) in items.iter().enumerate() {
                check(self, i, item);
            }
            return;
        }
        let (text, materials) = (self.text, self.materials);
        let parts: Vec<Vec<Issue>> = items
            .par_chunks(PAR_CHUNK)
            .enumerate()
            .map(|(k, chunk)| {
                let mut c = Checker { issues: Vec::new(), text, materials, before: None };
                for (j, item) in chunk.iter().enumerate() {
                    check(&mut c, k * PAR_CHUNK + j, item);
                }
                c.issues
            })
            .collect();
        self.issues.extend(parts.into_iter().flatten());
    }
}
