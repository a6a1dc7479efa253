//! Generated runs (toolscope-edit's `generate::runs`) read back by the evidence's trace
//! reader, on a generated kit loaded through `load`.

use crate::generate::runs::write_runs;
use crate::generate::{GenOptions, generate};

#[test]
fn runs_add_up_to_the_steps_asked_and_name_the_toolkits_tools() {
    let text = generate(GenOptions {
        actions: 300,
        tools: None,
        seed: 3,
    });
    let tk = crate::load::load_text(
        std::path::Path::new("g.yaml"),
        text,
        None,
        &Default::default(),
    )
    .expect("loads")
    .toolkit;
    let mut out = Vec::new();
    write_runs(&tk, 1003, 3, &mut out).expect("write");
    let (records, diags) =
        crate::evidence::traces::parse_jsonl("r", &String::from_utf8(out).expect("utf8"));
    assert!(diags.is_empty());
    let steps: usize = records
        .iter()
        .map(|r| r.calls.as_ref().map_or(0, |c| c.len() - 1))
        .sum();
    assert_eq!(steps, 1003);
    assert!(
        records
            .iter()
            .flat_map(|r| r.called.iter())
            .all(|c| crate::evidence::eval::tool_named(&tk, c).is_some())
    );
}
