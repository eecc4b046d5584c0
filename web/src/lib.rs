// SPDX-License-Identifier: MIT OR Apache-2.0
//! fullverify in the browser: wasm-bindgen bindings over the core for the static explorer in
//! `www/`.
//!
//! Two layers, both over [`fullverify::hash`]:
//! - Free functions on bytes, for scripts and tests: `sha256`, `sha256d`, `taggedHash`,
//!   `merkleRoot`, and the text helpers `hexToBytes`, `bytesToHex`, `textToBytes`. Byte
//!   arguments are `Uint8Array`s and are type-checked: anything else is an error, never a
//!   silent coercion.
//! - [`Explorer`], the page's entry point: it takes what the user typed (text or hex) and
//!   returns plain view objects with hex strings, one per panel. It keeps the last tag's BIP340
//!   midstate, so retyping the message costs one SHA-256 of the message only.
//!
//! Every fallible function returns `Result<_, JsError>`, which JavaScript sees as a thrown
//! `Error` whose `message` says what was wrong with the input. Nothing here panics on input.
//!
//! Text is hashed as its UTF-8 encoding (JavaScript strings are re-encoded on the way in; a
//! lone surrogate becomes U+FFFD, as `TextEncoder` does).

mod batch;
pub mod glv;
pub mod hex;
pub mod sig;
pub mod sighash;
pub mod verify_many;
pub mod view;

use fullverify::hash::{self, state_to_bytes, TaggedHash};
use fullverify::Backend;
use js_sys::Uint8Array;
use serde::{Serialize, Serializer};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

#[wasm_bindgen(typescript_custom_section)]
const TS_VIEWS: &'static str = r#"
/** `merkleRoot`'s result. `root` is in internal byte order (as in a block header). */
export interface MerkleRootResult {
    root: Uint8Array;
    /** Some level held an equal adjacent pair (CVE-2012-2459); Core rejects such blocks. */
    mutated: boolean;
}

/** `Explorer.hashes`: the input's bytes and their hashes, all as lower-case hex. */
export interface HashesView {
    /** Input length in bytes. */
    bytes: number;
    inputHex: string;
    sha256: string;
    sha256d: string;
    /** SHA256(SHA256(tag) || SHA256(tag) || input). */
    tagged: string;
    /** SHA256(tag). */
    tagSha256: string;
    /** The SHA-256 state after the block SHA256(tag) || SHA256(tag): eight big-endian words. */
    tagMidstate: string;
}

/** `Explorer.merkle`: the root of the pasted leaves in both byte orders. */
export interface MerkleView {
    leaves: number;
    /** Internal byte order, as serialized in a block header. */
    root: string;
    /** Reversed, as RPC and block explorers display it. */
    rootDisplay: string;
    mutated: boolean;
}
"#;

/// The JavaScript type of `v`, for error messages.
fn js_type(v: &JsValue) -> String {
    if v.is_null() {
        "null".into()
    } else if js_sys::Array::is_array(v) {
        "Array".into()
    } else if let Some(obj) = v.dyn_ref::<js_sys::Object>() {
        obj.constructor().name().into()
    } else {
        v.js_typeof().as_string().unwrap_or_else(|| "unknown".into())
    }
}

/// `value` as bytes, if it is a `Uint8Array` (a Node `Buffer` is one).
fn bytes_arg(value: &JsValue, name: &str) -> Result<Vec<u8>, JsError> {
    match value.dyn_ref::<Uint8Array>() {
        Some(a) => Ok(a.to_vec()),
        None => Err(JsError::new(&format!("{name} must be a Uint8Array, got {}", js_type(value)))),
    }
}

/// A tag given as a string (hashed as UTF-8) or as bytes.
fn tag_arg(value: &JsValue) -> Result<Vec<u8>, JsError> {
    match value.as_string() {
        Some(s) => Ok(s.into_bytes()),
        None => bytes_arg(value, "tag").map_err(|_| {
            JsError::new(&format!("tag must be a string or a Uint8Array, got {}", js_type(value)))
        }),
    }
}

/// SHA-256 of `data`.
#[wasm_bindgen]
pub fn sha256(
    #[wasm_bindgen(unchecked_param_type = "Uint8Array")] data: JsValue,
) -> Result<Vec<u8>, JsError> {
    Ok(hash::sha256(&bytes_arg(&data, "data")?).to_vec())
}

/// SHA-256(SHA-256(`data`)).
#[wasm_bindgen]
pub fn sha256d(
    #[wasm_bindgen(unchecked_param_type = "Uint8Array")] data: JsValue,
) -> Result<Vec<u8>, JsError> {
    Ok(hash::sha256d(&bytes_arg(&data, "data")?).to_vec())
}

/// The BIP340 tagged hash `SHA256(SHA256(tag) || SHA256(tag) || msg)`; a string tag is
/// hashed as its UTF-8 bytes.
#[wasm_bindgen(js_name = taggedHash)]
pub fn tagged_hash(
    #[wasm_bindgen(unchecked_param_type = "string | Uint8Array")] tag: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Uint8Array")] msg: JsValue,
) -> Result<Vec<u8>, JsError> {
    let tag = tag_arg(&tag)?;
    Ok(hash::tagged_hash(&tag, &bytes_arg(&msg, "msg")?).to_vec())
}

/// Splits concatenated 32-byte hashes into leaves.
fn leaves_of(bytes: &[u8]) -> Result<Vec<[u8; 32]>, JsError> {
    let (leaves, rest) = bytes.as_chunks::<32>();
    if !rest.is_empty() {
        return Err(JsError::new(&format!(
            "hashes must be whole 32-byte hashes, got {} bytes ({} left over)",
            bytes.len(),
            rest.len()
        )));
    }
    Ok(leaves.to_vec())
}

fn serialize_as_bytes<S: Serializer>(b: &[u8; 32], s: S) -> Result<S::Ok, S::Error> {
    s.serialize_bytes(b)
}

#[derive(Serialize)]
struct MerkleRootResult {
    #[serde(serialize_with = "serialize_as_bytes")]
    root: [u8; 32],
    mutated: bool,
}

fn to_js<T: Serialize>(view: &T) -> Result<JsValue, JsError> {
    // The default serializer turns `serialize_bytes` into a `Uint8Array` and structs into
    // plain objects. A struct of numbers, strings and bytes always serializes; the error path
    // exists only because the serializer's signature has one.
    serde_wasm_bindgen::to_value(view).map_err(|e| JsError::new(&e.to_string()))
}

/// Bitcoin's merkle root of `hashes`, the leaves concatenated (32 bytes each, internal byte
/// order), with Core's CVE-2012-2459 `mutated` flag. No leaves give the all-zero root.
#[wasm_bindgen(js_name = merkleRoot, unchecked_return_type = "MerkleRootResult")]
pub fn merkle_root(
    #[wasm_bindgen(unchecked_param_type = "Uint8Array")] hashes: JsValue,
) -> Result<JsValue, JsError> {
    let leaves = leaves_of(&bytes_arg(&hashes, "hashes")?)?;
    let m = hash::merkle_root(&leaves);
    to_js(&MerkleRootResult { root: m.root, mutated: m.mutated })
}

/// Decodes hex text (whitespace ignored, either case). Throws on an odd number of digits or
/// a character that is not a hex digit, naming it and its position.
#[wasm_bindgen(js_name = hexToBytes)]
pub fn hex_to_bytes(text: &str) -> Result<Vec<u8>, JsError> {
    hex::decode(text).map_err(|e| JsError::new(&e.to_string()))
}

/// Lower-case hex of `bytes`.
#[wasm_bindgen(js_name = bytesToHex)]
pub fn bytes_to_hex(
    #[wasm_bindgen(unchecked_param_type = "Uint8Array")] bytes: JsValue,
) -> Result<String, JsError> {
    Ok(hex::encode(&bytes_arg(&bytes, "bytes")?))
}

/// How the page's input field is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Encoding {
    /// The text's UTF-8 bytes.
    Text,
    /// Hex digits, whitespace ignored.
    Hex,
}

impl Encoding {
    fn parse(name: &str) -> Result<Encoding, JsError> {
        match name {
            "text" => Ok(Encoding::Text),
            "hex" => Ok(Encoding::Hex),
            _ => {
                Err(JsError::new(&format!("unknown input encoding {name:?} (expected \"text\" or \"hex\")")))
            }
        }
    }

    fn decode(self, input: &str) -> Result<Vec<u8>, JsError> {
        match self {
            Encoding::Text => Ok(input.as_bytes().to_vec()),
            Encoding::Hex => hex_to_bytes(input),
        }
    }
}

/// The bytes of `text` in the given encoding (`"text"`: UTF-8; `"hex"`: hex digits).
#[wasm_bindgen(js_name = textToBytes)]
pub fn text_to_bytes(text: &str, encoding: &str) -> Result<Vec<u8>, JsError> {
    Encoding::parse(encoding)?.decode(text)
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct HashesView {
    bytes: usize,
    input_hex: String,
    sha256: String,
    sha256d: String,
    tagged: String,
    tag_sha256: String,
    tag_midstate: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct MerkleView {
    leaves: usize,
    root: String,
    root_display: String,
    mutated: bool,
}

/// The explorer page's entry point: one per page, one method per panel.
#[wasm_bindgen]
pub struct Explorer {
    /// The last tag seen, and its midstate.
    tag: Vec<u8>,
    tagged: TaggedHash,
}

impl Default for Explorer {
    fn default() -> Self {
        Explorer::new()
    }
}

#[wasm_bindgen]
impl Explorer {
    /// An explorer primed with the `BIP0340/challenge` tag.
    #[wasm_bindgen(constructor)]
    pub fn new() -> Explorer {
        const TAG: &[u8] = b"BIP0340/challenge";
        Explorer { tag: TAG.to_vec(), tagged: TaggedHash::new(TAG) }
    }

    /// The core backend compiled in (on wasm32 always `portable`).
    #[wasm_bindgen(getter)]
    pub fn backend(&self) -> String {
        Backend::detect().name().to_string()
    }

    /// The Hashes panel: `input` read as `encoding` (`"text"` or `"hex"`), its SHA-256,
    /// SHA-256d and the BIP340 tagged hash under `tag` (UTF-8). Throws on bad hex.
    #[wasm_bindgen(unchecked_return_type = "HashesView")]
    pub fn hashes(&mut self, input: &str, encoding: &str, tag: &str) -> Result<JsValue, JsError> {
        let bytes = Encoding::parse(encoding)?.decode(input)?;
        if self.tag != tag.as_bytes() {
            self.tag = tag.as_bytes().to_vec();
            self.tagged = TaggedHash::new(&self.tag);
        }
        let first = hash::sha256(&bytes);
        to_js(&HashesView {
            bytes: bytes.len(),
            input_hex: hex::encode(&bytes),
            sha256: hex::encode(&first),
            sha256d: hex::encode(&hash::sha256(&first)),
            tagged: hex::encode(&self.tagged.hash(&bytes)),
            tag_sha256: hex::encode(&hash::sha256(&self.tag)),
            tag_midstate: hex::encode(&state_to_bytes(&self.tagged.midstate())),
        })
    }

    /// The Merkle panel: one 32-byte hash (64 hex digits) per non-blank line. `order` says how
    /// the lines are written: `"internal"` (as serialized) or `"display"` (byte-reversed, as
    /// RPC and block explorers show txids). Throws naming the first bad line (counted from 1).
    #[wasm_bindgen(unchecked_return_type = "MerkleView")]
    pub fn merkle(&self, lines: &str, order: &str) -> Result<JsValue, JsError> {
        let reversed = match order {
            "internal" => false,
            "display" => true,
            _ => {
                return Err(JsError::new(&format!(
                    "unknown byte order {order:?} (expected \"internal\" or \"display\")"
                )))
            }
        };
        let mut leaves = Vec::new();
        for (i, line) in lines.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() {
                continue;
            }
            let bytes = hex::decode(line).map_err(|e| JsError::new(&format!("line {}: {e}", i + 1)))?;
            let mut leaf: [u8; 32] = bytes.as_slice().try_into().map_err(|_| {
                JsError::new(&format!(
                    "line {}: expected 32 bytes (64 hex digits), got {} bytes",
                    i + 1,
                    bytes.len()
                ))
            })?;
            if reversed {
                leaf.reverse();
            }
            leaves.push(leaf);
        }
        let m = hash::merkle_root(&leaves);
        let mut display = m.root;
        display.reverse();
        to_js(&MerkleView {
            leaves: leaves.len(),
            root: hex::encode(&m.root),
            root_display: hex::encode(&display),
            mutated: m.mutated,
        })
    }
}
