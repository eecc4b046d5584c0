// SPDX-License-Identifier: MIT OR Apache-2.0
//! The wasm bindings run as wasm: `wasm-bindgen-test` under Node.js.
//!
//! Expected values come from outside this code: FIPS 180-4 examples, Bitcoin block 100000's
//! header, and tagged hashes / merkle roots computed with Python's `hashlib` from the
//! definitions. Errors are checked by their `Error.message`, since that is what the page shows.
#![cfg(target_arch = "wasm32")]

use fullverify_web::{
    bytes_to_hex, hex_to_bytes, merkle_root, sha256, sha256d, tagged_hash, text_to_bytes, Explorer,
};
use js_sys::{Reflect, Uint8Array};
use wasm_bindgen::{JsCast, JsError, JsValue};
use wasm_bindgen_test::wasm_bindgen_test;

fn u8a(b: &[u8]) -> JsValue {
    Uint8Array::from(b).into()
}

fn hex(b: &[u8]) -> String {
    bytes_to_hex(u8a(b)).unwrap()
}

fn unhex(s: &str) -> Vec<u8> {
    hex_to_bytes(s).unwrap()
}

/// The message of the `Error` JavaScript would see.
fn message(e: JsError) -> String {
    let v: JsValue = e.into();
    let err = v.dyn_into::<js_sys::Error>().expect("a JsError is a JS Error");
    err.message().into()
}

fn field(v: &JsValue, name: &str) -> JsValue {
    Reflect::get(v, &name.into()).unwrap()
}

fn str_field(v: &JsValue, name: &str) -> String {
    field(v, name).as_string().unwrap_or_else(|| panic!("{name} is not a string"))
}

// Block 100000's transactions (RPC display order) and its header's merkle root.
const BLOCK_100000_TXIDS: [&str; 4] = [
    "8c14f0db3df150123e6f3dbbf30f8b955a8249b62ac1d1ff16284aefa3d06d87",
    "fff2525b8931402dd09222c50775608f75787bd2b87e56995a7bdd30f79702c4",
    "6359f0868171b1d194cbee1af2f16ea598ae8fad666d9b012c8ed2b79a236ec4",
    "e9a66845e05d5abc0ad04ec80f774a7e585c6e8db975962d069a522137b80c1d",
];
const BLOCK_100000_MERKLE: &str = "f3e94742aca4b5ef85488dc37c06c3282295ffec960994b2c0d5ac2a25a95766";

#[wasm_bindgen_test]
fn sha256_vs_nist_vectors() {
    let cases: [(&[u8], &str); 4] = [
        (b"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        (b"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (
            b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
        ),
        (
            b"abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
            "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1",
        ),
    ];
    for (msg, want) in cases {
        assert_eq!(hex(&sha256(u8a(msg)).unwrap()), want);
    }
    let million_a = vec![b'a'; 1_000_000];
    assert_eq!(
        hex(&sha256(u8a(&million_a)).unwrap()),
        "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"
    );
}

#[wasm_bindgen_test]
fn sha256d_vs_known_values() {
    assert_eq!(
        hex(&sha256d(u8a(b"abc")).unwrap()),
        "4f8b42c22dd3729b519ba6f68d2da7cc5b2d606d05daed5ad5128cc03e6c6358"
    );
    assert_eq!(
        hex(&sha256d(u8a(b"hello")).unwrap()),
        "9595c9df90075148eb06860365df33584b75bff782a510c6cd4883a419833d50"
    );
}

#[wasm_bindgen_test]
fn tagged_hash_vs_hashlib() {
    // hashlib: t = sha256(tag); sha256(t + t + msg)
    let challenge_abc = "770a5b7e7c304bbcc3ea107343ff951dd404312ef418db0c3b94e2ebfbb50087";
    assert_eq!(hex(&tagged_hash("BIP0340/challenge".into(), u8a(b"abc")).unwrap()), challenge_abc);
    assert_eq!(
        hex(&tagged_hash(u8a(b"BIP0340/challenge"), u8a(b"abc")).unwrap()),
        challenge_abc,
        "a byte tag hashes like the same string tag"
    );
    assert_eq!(
        hex(&tagged_hash("BIP0340/challenge".into(), u8a(b"")).unwrap()),
        "c216d352f5818b7b4beacd4ae0a26fe888080823d2a598856661bcd54f1b3713"
    );
    // TapLeaf hash of the script OP_TRUE: leaf version 0xc0, compact size 1, 0x51.
    assert_eq!(
        hex(&tagged_hash("TapLeaf".into(), u8a(&[0xc0, 0x01, 0x51])).unwrap()),
        "a85b2107f791b26a84e7586c28cec7cb61202ed3d01944d832500f363782d675"
    );
}

#[wasm_bindgen_test]
fn merkle_root_vs_block_100000() {
    let mut leaves = Vec::new();
    for txid in BLOCK_100000_TXIDS {
        leaves.extend(unhex(txid).into_iter().rev());
    }
    let r = merkle_root(u8a(&leaves)).unwrap();
    let root = field(&r, "root").dyn_into::<Uint8Array>().expect("root is a Uint8Array").to_vec();
    let display: Vec<u8> = root.iter().rev().copied().collect();
    assert_eq!(hex(&display), BLOCK_100000_MERKLE);
    assert_eq!(field(&r, "mutated").as_bool(), Some(false));

    let view = Explorer::new().merkle(&BLOCK_100000_TXIDS.join("\n"), "display").unwrap();
    assert_eq!(str_field(&view, "rootDisplay"), BLOCK_100000_MERKLE);
    assert_eq!(str_field(&view, "root"), hex(&root));
    assert_eq!(field(&view, "leaves").as_f64(), Some(4.0));
}

#[wasm_bindgen_test]
fn merkle_mutated_flag_vs_duplicate_leaves() {
    let (a, b, c) = ([1u8; 32], [2u8; 32], [3u8; 32]);
    // hashlib: dd(dd(a+b) + dd(c+c)) with dd = double SHA-256.
    let want = "223e023fadf1f053df26988871f893c821c28edf77d64a955e6c2a02d547bdac";
    let odd = merkle_root(u8a(&[a, b, c].concat())).unwrap();
    let dup = merkle_root(u8a(&[a, b, c, c].concat())).unwrap();
    for (r, mutated) in [(&odd, false), (&dup, true)] {
        let root = field(r, "root").dyn_into::<Uint8Array>().unwrap().to_vec();
        assert_eq!(hex(&root), want, "CVE-2012-2459: both lists share a root");
        assert_eq!(field(r, "mutated").as_bool(), Some(mutated));
    }
    // The Explorer view agrees, in internal order.
    let lines = [a, b, c, c].map(|h| hex(&h)).join("\n");
    let view = Explorer::new().merkle(&format!("\n{lines}\n\n"), "internal").unwrap();
    assert_eq!(str_field(&view, "root"), want);
    assert_eq!(field(&view, "mutated").as_bool(), Some(true));
    // No leaves: the all-zero root, not mutated.
    let empty = merkle_root(u8a(&[])).unwrap();
    assert_eq!(field(&empty, "root").dyn_into::<Uint8Array>().unwrap().to_vec(), vec![0u8; 32]);
    assert_eq!(field(&empty, "mutated").as_bool(), Some(false));
}

#[wasm_bindgen_test]
fn bad_hex_raises_errors_that_say_why() {
    assert_eq!(hex_to_bytes(" DE ad\nbeef ").unwrap(), vec![0xde, 0xad, 0xbe, 0xef]);
    assert_eq!(
        message(hex_to_bytes("abc").unwrap_err()),
        "odd number of hex digits (3); each byte needs two"
    );
    assert_eq!(message(hex_to_bytes("00 1g").unwrap_err()), "invalid hex digit 'g' at position 4");
    assert_eq!(message(text_to_bytes("0x00", "hex").unwrap_err()), "invalid hex digit 'x' at position 1");
    let mut ex = Explorer::new();
    assert_eq!(
        message(ex.hashes("abc", "hex", "TapLeaf").unwrap_err()),
        "odd number of hex digits (3); each byte needs two"
    );
    let line3 = format!("{}\n\n{}zz", "00".repeat(32), "11".repeat(31));
    assert_eq!(
        message(ex.merkle(&line3, "internal").unwrap_err()),
        "line 3: invalid hex digit 'z' at position 62"
    );
    let short = format!("{}\n{}", "00".repeat(32), "11".repeat(31));
    assert_eq!(
        message(ex.merkle(&short, "internal").unwrap_err()),
        "line 2: expected 32 bytes (64 hex digits), got 31 bytes"
    );
}

#[wasm_bindgen_test]
fn wrong_types_and_lengths_raise() {
    assert_eq!(message(sha256("abc".into()).unwrap_err()), "data must be a Uint8Array, got string");
    assert_eq!(message(sha256d(JsValue::NULL).unwrap_err()), "data must be a Uint8Array, got null");
    assert_eq!(
        message(sha256(js_sys::Array::of1(&1.into()).into()).unwrap_err()),
        "data must be a Uint8Array, got Array"
    );
    assert_eq!(
        message(tagged_hash(7.into(), u8a(b"")).unwrap_err()),
        "tag must be a string or a Uint8Array, got number"
    );
    assert_eq!(
        message(tagged_hash("t".into(), JsValue::UNDEFINED).unwrap_err()),
        "msg must be a Uint8Array, got undefined"
    );
    assert_eq!(
        message(merkle_root(u8a(&[0; 33])).unwrap_err()),
        "hashes must be whole 32-byte hashes, got 33 bytes (1 left over)"
    );
    assert_eq!(
        message(text_to_bytes("x", "base64").unwrap_err()),
        "unknown input encoding \"base64\" (expected \"text\" or \"hex\")"
    );
    assert_eq!(
        message(Explorer::new().merkle("", "little").unwrap_err()),
        "unknown byte order \"little\" (expected \"internal\" or \"display\")"
    );
}

#[wasm_bindgen_test]
fn explorer_hashes_text_vs_hex_and_tag_changes() {
    let mut ex = Explorer::new();
    assert_eq!(ex.backend(), "portable");
    let text = ex.hashes("héllo", "text", "BIP0340/challenge").unwrap();
    let utf8 = "héllo".as_bytes();
    assert_eq!(field(&text, "bytes").as_f64(), Some(utf8.len() as f64));
    assert_eq!(str_field(&text, "inputHex"), hex(utf8));
    let from_hex = ex.hashes(&hex(utf8).to_uppercase(), "hex", "BIP0340/challenge").unwrap();
    assert_eq!(field(&from_hex, "bytes").as_f64(), Some(utf8.len() as f64));
    for name in ["inputHex", "sha256", "sha256d", "tagged", "tagSha256", "tagMidstate"] {
        assert_eq!(str_field(&text, name), str_field(&from_hex, name), "{name}");
    }
    assert_eq!(str_field(&text, "sha256"), hex(&sha256(u8a(utf8)).unwrap()));
    assert_eq!(str_field(&text, "sha256d"), hex(&sha256d(u8a(utf8)).unwrap()));
    // hashlib: sha256(b"BIP0340/challenge")
    assert_eq!(
        str_field(&text, "tagSha256"),
        "7bb52d7a9fef58323eb1bf7a407db382d2f3f2d81bb1224f49fe518f6d48d37c"
    );
    // The cached midstate follows the tag: A, then B, then A again.
    for tag in ["BIP0340/challenge", "TapLeaf", "", "BIP0340/challenge"] {
        let v = ex.hashes("abc", "text", tag).unwrap();
        assert_eq!(str_field(&v, "tagged"), hex(&tagged_hash(tag.into(), u8a(b"abc")).unwrap()), "{tag:?}");
        assert_eq!(str_field(&v, "tagSha256"), hex(&sha256(u8a(tag.as_bytes())).unwrap()));
    }
}
