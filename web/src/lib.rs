// SPDX-License-Identifier: MIT OR Apache-2.0
//! fullverify in the browser.
