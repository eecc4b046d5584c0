// SPDX-License-Identifier: MIT OR Apache-2.0
//! Shared pieces of the experiment drivers: result packets and timing.
