//! Loads arbitrary bytes as a chat2graph toolkit, then lints and exports it: none may panic.
#![no_main]

#[path = "load_common.rs"]
mod common;

use libfuzzer_sys::fuzz_target;
use toolscope_core::source::Format;

fuzz_target!(|data: &[u8]| common::exercise(data, Format::Chat2Graph));
