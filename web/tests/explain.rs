// SPDX-License-Identifier: MIT OR Apache-2.0
//! The explorer's sighash, GLV and signature functions run as wasm under Node.js, against
//! published vectors: BIP143's P2SH-P2WSH example (all six hash types), the BIP341 wallet
//! vectors' key-path spends (sigHash of each signed input), BIP340 test vector 0, and the
//! GLV identity k1 + λ·k2 ≡ k.
#![cfg(target_arch = "wasm32")]

use fullverify_web::glv::glv_split;
use fullverify_web::sig::{explain_bip340, explain_ecdsa};
use fullverify_web::sighash::explain_sighash;
use js_sys::Reflect;
use wasm_bindgen::JsValue;
use wasm_bindgen_test::wasm_bindgen_test;

fn get(v: &JsValue, path: &[&str]) -> JsValue {
    path.iter().fold(v.clone(), |o, k| Reflect::get(&o, &(*k).into()).unwrap())
}

fn s(v: &JsValue, path: &[&str]) -> String {
    get(v, path).as_string().unwrap_or_else(|| panic!("{path:?} is not a string"))
}

/// The `field` property of a thrown error.
fn err_field(e: JsValue) -> String {
    Reflect::get(&e, &"field".into()).unwrap().as_string().unwrap()
}

// BIP143, "P2SH-P2WSH": a 6-of-6 multisig whose signatures use ALL, NONE, SINGLE and their
// ANYONECANPAY forms. The spent output is P2SH of the witness program, 9.87654321 BTC.
const P2SH_P2WSH_TX: &str =
    "0100000000010136641869ca081e70f394c6948e8af409e18b619df2ed74aa106c1ca29787b96e0100000023220020a1\
     6b5755f7f6f96dbd65f5f0d6ab9418b89af4b1f14a1bb8a09062c35f0dcb54ffffffff0200e9a435000000001976a914\
     389ffce9cd9ae88dcc0631e88a821ffdbe9bfe2688acc0832f05000000001976a9147480a33f950689af511e6e84c138\
     dbbd3c3ee41588ac080047304402206ac44d672dac41f9b00e28f4df20c52eeb087207e8d758d76d92c6fab3b73e2b02\
     20367750dbbe19290069cba53d096f44530e4f98acaa594810388cf7409a1870ce01473044022068c7946a43232757cb\
     df9176f009a928e1cd9a1a8c212f15c1e11ac9f2925d9002205b75f937ff2f9f3c1246e547e54f62e027f64eefa26955\
     78cc6432cdabce271502473044022059ebf56d98010a932cf8ecfec54c48e6139ed6adb0728c09cbe1e4fa0915302e02\
     2007cd986c8fa870ff5d2b3a89139c9fe7e499259875357e20fcbb15571c76795403483045022100fbefd94bd0a488d5\
     0b79102b5dad4ab6ced30c4069f1eaa69a4b5a763414067e02203156c6a5c9cf88f91265f5a942e96213afae16d83321\
     c8b31bb342142a14d16381483045022100a5263ea0553ba89221984bd7f0b13613db16e7a70c549a86de0cc0444141a4\
     07022005c360ef0ae5a5d4f9f2f87a56c1546cc8268cab08c73501d6b3be2e1e1a8a08824730440220525406a1482936\
     d5a21888260dc165497a90a15669636d8edca6b9fe490d309c022032af0c646a34a44d1f4576bf6a4a74b67940f8faa8\
     4c7df9abe12a01a11e2b4783cf56210307b8ae49ac90a048e9b53357a2354b3334e9c8bee813ecb98e99a7e07e8c3ba3\
     2103b28f0c28bfab54554ae8c658ac5c3e0ce6e79ad336331f78c428dd43eea8449b21034b8113d703413d57761b8b97\
     81957b8c0ac1dfe69f492580ca4195f50376ba4a21033400f6afecb833092a9a21cfdf1ed1376e58c5d1f47de7468312\
     3987e967a8f42103a6d48b1131e94ba04d9737d61acdaa1322008af9602b3b14862c07a1789aac162102d8b661b0b330\
     2ee2f162b09e07a55ad5dfbe673a9f01d9f0c19617681024306b56ae00000000";
const P2SH_P2WSH_PREVOUT: &str = "987654321:a9149993a429037b5d912407a71c252019287b8d27a587";
const P2SH_P2WSH_SIGHASHES: [(u32, &str); 6] = [
    (1, "185c0be5263dce5b4bb50a047973c1b6272bfbd0103a89444597dc40b248ee7c"),
    (2, "e9733bc60ea13c95c6527066bb975a2ff29a925e80aa14c213f686cbae5d2f36"),
    (3, "1e1f1c303dc025bd664acb72e583e933fae4cff9148bf78c157d1e8f78530aea"),
    (129, "2a67f03e63a6a422125878b40b82da593be8d4efaafe88ee528af6e5a9955c6e"),
    (130, "781ba15f3779d5542ce8ecb5c18716733a5ee42a6f51488ec96154934e2c890a"),
    (131, "511e8e52ed574121fc1b654970395502128263f62662e076dc6baf05c2e6a99b"),
];

#[wasm_bindgen_test]
fn bip143_p2sh_p2wsh_every_hash_type() {
    for (ht, want) in P2SH_P2WSH_SIGHASHES {
        let v = explain_sighash(P2SH_P2WSH_TX, P2SH_P2WSH_PREVOUT, "0", "", Some(ht)).unwrap();
        assert_eq!(s(&v, &["algorithm"]), "bip143");
        assert_eq!(s(&v, &["sighash"]), want, "hash type {ht:#x}");
        assert_eq!(s(&v, &["verdict"]), "valid");
    }
    // Without the WITNESS flag the redeem script (a witness program) is hashed the legacy way.
    let v = explain_sighash(P2SH_P2WSH_TX, P2SH_P2WSH_PREVOUT, "0", "P2SH", None).unwrap();
    assert_eq!(s(&v, &["algorithm"]), "legacy");
}

// BIP341 wallet vectors, keyPathSpending: the unsigned transaction with each signed input's
// witness inserted (inputs 2 and 5 are not signed there).
const TAPROOT_TX: &str =
    "020000000001097de20cbff686da83a54981d2b9bab3586f4ca7e48f57f5b55963115f3b334e9c010000000000000000\
     d7b7cab57b1393ace2d064f4d4a2cb8af6def61273e127517d44759b6dafdd990000000000fffffffff8e1f583384333\
     689228c5d28eac13366be082dc57441760d957275419a418420000000000fffffffff0689180aa63b30cb162a73c6d2a\
     38b7eeda2a83ece74310fda0843ad604853b0100000000feffffffaa5202bdf6d8ccd2ee0f0202afbbb7461d9264a25e\
     5bfd3c5a52ee1239e0ba6c0000000000feffffff956149bdc66faa968eb2be2d2faa29718acbfe3941215893a2a3446d\
     32acd050000000000000000000e664b9773b88c09c32cb70a2a3e4da0ced63b7ba3b22f848531bbb1d5d5f4c94010000\
     000000000000e9aa6b8e6c9de67619e6a3924ae25696bb7b694bb677a632a74ef7eadfd4eabf0000000000ffffffffa7\
     78eb6a263dc090464cd125c466b5a99667720b1c110468831d058aa1b82af10100000000ffffffff0200ca9a3b000000\
     001976a91406afd46bcdfd22ef94ac122aa11f241244a37ecc88ac807840cb0000000020ac9a87f5594be208f8532db3\
     8cff670c450ed2fea8fcdefcc9a663f78bab962b0141ed7c1647cb97379e76892be0cacff57ec4a7102aa24296ca39af\
     7541246d8ff14d38958d4cc1e2e478e4d4a764bbfd835b16d4e314b72937b29833060b87276c030141052aedffc554b4\
     1f52b521071793a6b88d6dbca9dba94cf34c83696de0c1ec35ca9c5ed4ab28059bd606a4f3a657eec0bb96661d42921b\
     5f50a95ad33675b54f83000141ff45f742a876139946a149ab4d9185574b98dc919d2eb6754f8abaa59d18b025637a3a\
     a043b91817739554f4ed2026cf8022dbd83e351ce1fabc272841d2510a010140b4010dd48a617db09926f729e79c33ae\
     0b4e94b79f04a1ae93ede6315eb3669de185a17d2b0ac9ee09fd4c64b678a0b61a0a86fa888a273c8511be83bfd6810f\
     000141a3785919a2ce3c4ce26f298c3d51619bc474ae24014bcdd31328cd8cfbab2eff3395fa0a16fe5f486d12f22a9c\
     edded5ae74feb4bbe5351346508c5405bcfee0020141ea0c6ba90763c2d3a296ad82ba45881abb4f426b3f87af162dd2\
     4d5109edc1cdd11915095ba47c3a9963dc1e6c432939872bc49212fe34c632cd3ab9fed429c4820141bbc9584a11074e\
     83bc8c6759ec55401f0ae7b03ef290c3139814f545b58a9f8127258000874f44bc46db7646322107d4d86aec8e73b871\
     9a61fff761d75b5dd9810065cd1d";
const TAPROOT_PREVOUTS: &str =
    "420000000:512053a1f6e454df1aa2776a2814a721372d6258050de330b3c6d10ee8f4e0dda343,462000000:5120147\
     c9c57132f6e7ecddba9800bb0c4449251c92a1e60371ee77557b6620f3ea3,294000000:76a914751e76e8199196d454\
     941c45d1b3a323f1433bd688ac,504000000:5120e4d810fd50586274face62b8a807eb9719cef49c04177cc6b76a9a4\
     251d5450e,630000000:512091b64d5324723a985170e4dc5a0f84c041804f2cd12660fa5dec09fc21783605,3780000\
     00:00147dd65592d0ab2fe0d0257d571abf032cd9db93dc,672000000:512075169f4001aa68f15bbed28b218df1d0a6\
     2cbbcf1188c6665110c293c907b831,546000000:5120712447206d7a5238acc7ff53fbe94a3b64539ad291c7cdbc490\
     b7577e4b17df5,588000000:512077e30a5522dd9f894c3f8b8bd4c4b2cf82ca7da8a3ea6a239655c39c050ab220";
const TAPROOT_SIGHASHES: [(usize, &str); 7] = [
    (0, "2514a6272f85cfa0f45eb907fcb0d121b808ed37c6ea160a5a9046ed5526d555"),
    (1, "325a644af47e8a5a2591cda0ab0723978537318f10e6a63d4eed783b96a71a4d"),
    (3, "bf013ea93474aa67815b1b6cc441d23b64fa310911d991e713cd34c7f5d46669"),
    (4, "4f900a0bae3f1446fd48490c2958b5a023228f01661cda3496a11da502a7f7ef"),
    (6, "15f25c298eb5cdc7eb1d638dd2d45c97c4c59dcaec6679cfc16ad84f30876b85"),
    (7, "cd292de50313804dabe4685e83f923d2969577191a3e1d2882220dca88cbeb10"),
    (8, "cccb739eca6c13a8a89e6e5cd317ffe55669bbda23f2fd37b0f18755e008edd2"),
];

#[wasm_bindgen_test]
fn bip341_wallet_vectors_key_path() {
    for (i, want) in TAPROOT_SIGHASHES {
        let v = explain_sighash(TAPROOT_TX, TAPROOT_PREVOUTS, &i.to_string(), "", None).unwrap();
        assert_eq!(s(&v, &["algorithm"]), "bip341-key");
        assert_eq!(s(&v, &["sighash"]), want, "input {i}");
        assert_eq!(s(&v, &["verdict"]), "valid", "input {i}");
    }
    // A wrong amount of input 0 breaks input 4's signature (sha_amounts covers every amount).
    let bad = TAPROOT_PREVOUTS.replacen("420000000:", "420000001:", 1);
    assert_ne!(bad, TAPROOT_PREVOUTS);
    let v = explain_sighash(TAPROOT_TX, &bad, "4", "", None).unwrap();
    assert_eq!(s(&v, &["verdict"]), "invalid: SCHNORR_SIG");
}

#[wasm_bindgen_test]
fn errors_carry_the_field() {
    assert_eq!(err_field(explain_sighash("00", "", "0", "", None).unwrap_err()), "tx");
    assert_eq!(err_field(explain_sighash(TAPROOT_TX, "1:51", "0", "", None).unwrap_err()), "prevouts");
    assert_eq!(err_field(explain_sighash(TAPROOT_TX, TAPROOT_PREVOUTS, "9", "", None).unwrap_err()), "input");
    assert_eq!(
        err_field(explain_sighash(TAPROOT_TX, TAPROOT_PREVOUTS, "0", "", Some(4)).unwrap_err()),
        "hashType"
    );
    assert_eq!(err_field(glv_split("0x", 9, false).unwrap_err()), "w");
    assert_eq!(err_field(glv_split("-1", 5, false).unwrap_err()), "k");
}

#[wasm_bindgen_test]
fn glv_identity() {
    // k = 2^255 − 19 (a fixed value with no structure), n − 1, and λ itself (k1 = 0, k2 = 1).
    for k in [
        "57896044618658097711785492504343953926634992332820282019728792003956564819949",
        "0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364140",
        "0x5363ad4cc05c30e0a5261c028812645a122e22ea20816678df02967c1b23bd72",
    ] {
        let v = glv_split(k, 5, true).unwrap();
        assert_eq!(get(&v, &["identityHolds"]), JsValue::TRUE, "{k}");
        assert_eq!(s(&v, &["recombined"]), s(&v, &["kHex"]));
        assert_eq!(get(&v, &["point", "holds"]), JsValue::TRUE, "{k}");
        assert!(get(&v, &["k1", "bits"]).as_f64().unwrap() <= 128.0);
        assert!(get(&v, &["k2", "bits"]).as_f64().unwrap() <= 128.0);
    }
    let v =
        glv_split("0x5363ad4cc05c30e0a5261c028812645a122e22ea20816678df02967c1b23bd72", 5, false).unwrap();
    assert_eq!(s(&v, &["k1", "decimal"]), "0");
    assert_eq!(s(&v, &["k2", "decimal"]), "1");
}

#[wasm_bindgen_test]
fn signatures_with_intermediates() {
    // BIP143 native P2WPKH example, input 1: key, sighash, DER signature.
    let pk = "025476c2e83188368da1ff3e292e7acafcdb3566bb0ad253f62fc70f07aeee6357";
    let msg = "c37af31116d1b27caf68aae9e3ac82f1477929014d5b917657d0eb49478cb670";
    let sig = "304402203609e17b84f6a7d30c80bfa610b5b4542f32a8a0d5447a12fb1366d7f01cc44a\
               0220573a954c4518331561406f90300e8f3358f51928d43c212a8caed02de67eebee";
    let v = explain_ecdsa(pk, msg, sig, "strict").unwrap();
    assert_eq!(get(&v, &["valid"]), JsValue::TRUE);
    assert_eq!(
        s(&v, &["steps", "0", "hex"]),
        "3609e17b84f6a7d30c80bfa610b5b4542f32a8a0d5447a12fb1366d7f01cc44a"
    );
    let v = explain_ecdsa(pk, &msg.replace("c37a", "c37b"), sig, "strict").unwrap();
    assert_eq!(get(&v, &["valid"]), JsValue::FALSE);
    // BIP340 test vector 0.
    let v = explain_bip340(
        "F9308A019258C31049344F85F89D5229B531C845836F99B08601F113BCE036F9",
        "0000000000000000000000000000000000000000000000000000000000000000",
        "E907831F80848D1069A5371B402410364BDF1C5F8307B0084C55F1CE2DCA8215\
         25F66A4A85EA8B71E482A74F382D2CE5EBEEE8FDB2172F477DF4900D310536C0",
    )
    .unwrap();
    assert_eq!(get(&v, &["valid"]), JsValue::TRUE);
}
