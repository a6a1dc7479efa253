//! Builds the BPE rank tables `tokens` counts with, at build time, so the binary starts
//! without parsing a vocabulary: each table is the encoding's token byte strings sorted,
//! with their ranks, in one blob the program reads in place (`include_bytes!`).
//!
//! The vocabularies come from `tiktoken-rs` (a build dependency only: it does not reach
//! the program). Blob layout, little-endian: `TSBPE1\0\0`, `n: u32`, `offsets: [u32; n + 1]`
//! into the bytes, `ranks: [u32; n]`, then the token bytes concatenated in sorted order.

use std::io::Write;
use std::path::PathBuf;

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    write_table(&out, "o200k_base", tiktoken_rs::o200k_base());
    write_table(&out, "cl100k_base", tiktoken_rs::cl100k_base());
}

fn write_table(dir: &std::path::Path, name: &str, bpe: anyhow::Result<tiktoken_rs::CoreBPE>) {
    let bpe = bpe.unwrap_or_else(|e| panic!("{name}: {e}"));
    // The mergeable ranks are 0..n without gaps; the first rank that does not decode ends
    // them (the special tokens sit above a gap).
    let mut tokens: Vec<(Vec<u8>, u32)> = Vec::new();
    let mut rank = 0u32;
    while let Ok(bytes) = bpe.decode_bytes(&[rank]) {
        tokens.push((bytes, rank));
        rank += 1;
    }
    assert!(tokens.len() > 50_000, "{name}: only {} ranks", tokens.len());
    tokens.sort();
    let mut blob = Vec::with_capacity(tokens.len() * 16);
    blob.extend_from_slice(b"TSBPE1\0\0");
    blob.extend_from_slice(&(tokens.len() as u32).to_le_bytes());
    let mut offset = 0u32;
    for (bytes, _) in &tokens {
        blob.extend_from_slice(&offset.to_le_bytes());
        offset += bytes.len() as u32;
    }
    blob.extend_from_slice(&offset.to_le_bytes());
    for (_, rank) in &tokens {
        blob.extend_from_slice(&rank.to_le_bytes());
    }
    for (bytes, _) in &tokens {
        blob.extend_from_slice(bytes);
    }
    let mut f = std::fs::File::create(dir.join(format!("{name}.bpe")))
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    f.write_all(&blob).unwrap_or_else(|e| panic!("{name}: {e}"));
}
