// SPDX-License-Identifier: MIT OR Apache-2.0
//! MuHash3072 against the Python oracle's sequences (`core/tests/data/oracle_muhash.json`,
//! written by `fullverify.oracle.tools.gen_vectors`): serialization before finalize and digest.
use fullverify::muhash::MuHash3072;
use serde_json::Value;

fn unhex(s: &str) -> Vec<u8> {
    hex::decode(s).expect("hex")
}

#[test]
fn muhash_vs_oracle_sequences() {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/oracle_muhash.json"))
        .expect("oracle_muhash.json is committed");
    let v: Value = serde_json::from_str(&text).unwrap();
    let seqs = v["sequences"].as_array().unwrap();
    assert!(!seqs.is_empty());
    for (i, s) in seqs.iter().enumerate() {
        let mut m = MuHash3072::new();
        for op in s["ops"].as_array().unwrap() {
            let data = unhex(op[1].as_str().unwrap());
            match op[0].as_str().unwrap() {
                "insert" => m.insert(&data),
                "remove" => m.remove(&data),
                other => panic!("unknown op {other}"),
            };
        }
        assert_eq!(hex::encode(m.serialize()), s["serialized"].as_str().unwrap(), "sequence {i} state");
        assert_eq!(hex::encode(m.finalize()), s["digest"].as_str().unwrap(), "sequence {i} digest");
    }
}
