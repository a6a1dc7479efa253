//! Operators named as users write them, on a Chat2Graph fixture loaded through `load`.

/// An operator is found by its name, its anchor written as the navigator shows it
/// (`&retrieval_operator`) or bare, and its whole label.
#[test]
fn an_operator_is_named_by_name_anchor_or_label() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/chat2graph-flat.yml");
    let tk = crate::load::load_paths(&[path], None)
        .expect("fixture loads")
        .toolkit;
    let want = tk.operator("Q&A Expert/1").expect("by name");
    assert_eq!(want.anchor.as_deref(), Some("retrieval_operator"));
    for name in [
        "&retrieval_operator",
        "retrieval_operator",
        " &retrieval_operator ",
        "Q&A Expert/1 (&retrieval_operator)",
    ] {
        let got = tk.operators_named(name);
        assert_eq!(got.len(), 1, "{name}");
        assert_eq!(got[0].name, want.name, "{name}");
    }
    assert!(tk.operators_named("&nope").is_empty());
}
