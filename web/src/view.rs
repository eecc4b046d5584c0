// SPDX-License-Identifier: MIT OR Apache-2.0
//! What the explorer's panels share: input errors that name the field they belong to, and the
//! conversion of view structs to JavaScript objects.

use serde::Serialize;
use std::fmt;
use wasm_bindgen::prelude::*;

/// An input the page cannot use: `field` is the key of the form field that caused it (`tx`,
/// `prevouts`, `input`, `flags`, `hashType`, `k`, `pubkey`, `msg`, `sig`, ...), so the page can
/// show `message` next to it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldError {
    /// The form field's key.
    pub field: &'static str,
    /// What is wrong, in words.
    pub message: String,
}

impl FieldError {
    /// An error about `field`.
    pub fn new(field: &'static str, message: impl Into<String>) -> FieldError {
        FieldError { field, message: message.into() }
    }
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.message)
    }
}

impl From<FieldError> for JsValue {
    /// A JavaScript `Error` with the message and an extra `field` property.
    fn from(e: FieldError) -> JsValue {
        let err = js_sys::Error::new(&e.message);
        // Setting a property on a fresh Error object cannot fail.
        let _ = js_sys::Reflect::set(&err, &"field".into(), &e.field.into());
        err.into()
    }
}

/// `view` as a plain JavaScript object (structs become objects, sequences arrays).
pub(crate) fn to_js<T: Serialize>(view: &T) -> Result<JsValue, JsValue> {
    let ser = serde_wasm_bindgen::Serializer::new().serialize_maps_as_objects(true);
    view.serialize(&ser).map_err(|e| js_sys::Error::new(&e.to_string()).into())
}

/// Hex digits to bytes for the field `field` (whitespace ignored).
pub(crate) fn hex_field(field: &'static str, text: &str) -> Result<Vec<u8>, FieldError> {
    crate::hex::decode(text).map_err(|e| FieldError::new(field, e.to_string()))
}

/// An error for a disagreement between the explorer's layout or intermediates and the core
/// (a bug, never an input problem): reported on `field` rather than aborting the module.
pub(crate) fn consistent(ok: bool, field: &'static str, what: &str) -> Result<(), FieldError> {
    if ok {
        Ok(())
    } else {
        Err(FieldError::new(field, format!("internal inconsistency: {what}; please report this input")))
    }
}
