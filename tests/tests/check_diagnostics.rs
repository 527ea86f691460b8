//! Rendered checker diagnostics, as snapshots a person reviews: the design's
//! rejections and a selection of the corpus's. Improving a message is a
//! visible diff here.

use rqc_tests::{relative, rendered_diagnostics, rq_files};

fn rendered(files: &[std::path::PathBuf]) -> String {
    let sources: Vec<(String, String)> = files
        .iter()
        .map(|p| (relative(p), std::fs::read_to_string(p).unwrap()))
        .collect();
    rendered_diagnostics(&sources).concat()
}

#[test]
fn the_design_rejections_read_well() {
    insta::assert_snapshot!("design_rejections", rendered(&rq_files("tests/design")));
}

#[test]
fn selected_corpus_diagnostics_read_well() {
    let mut common = rq_files("tests/corpus/common");
    for case in [
        "stream_take_unbounded_arithmetic",
        "list_flat_map_inner_stream",
        "fn_stream_into_list_param",
        "fn_generic_take_unbounded",
        "fn_mutual_recursion",
        "type_unknown_field",
        "write_update_key_column",
        "shop_review_count",
        "access_unknown_index",
        "schema_bound_not_prefix",
        "write_update_from_row_rejected",
        "write_upsert_rejected",
        "steps_in_memory",
        "help_sort_reads_index",
        "order_name_shadowed",
        "strings_case_mapping_length",
        "access_range_ends_as_two_values",
        "fn_value_arity",
        "fn_returned_stream_unlimited",
        "fn_stream_parameter_given_a_list_adversary",
        "fn_returned_stream_function_given_a_list",
        "fn_returned_stream_function_through_generics",
        "fn_returned_lambda_costs_by_its_argument",
        "help_min_of_two_numbers",
        "help_function_made_from_an_unbounded_value",
        "fn_count_as_a_sum_of_parameters",
        "help_repeated_call_in_a_clamp",
        "type_result_longer_than_declared",
    ] {
        let path = rqc_tests::repo_root().join(format!("tests/corpus/{case}.rq"));
        common.push(path);
        let files = common.clone();
        common.pop();
        insta::assert_snapshot!(format!("corpus_{case}"), rendered(&files));
    }
}
