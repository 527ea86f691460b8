//! Tests of reading rows from files: quoting, line numbers, refusals, byte-order marks, streaming.

use super::*;
use rqc::LoadRows;
use rqc_plan::Column;

/// The rows a file with `text` gives, as `rqc load` reads them.
fn read(table: &TableSchema, format: Format, text: &str) -> LoadRows {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rows");
    std::fs::write(&path, text).unwrap();
    let mut file = RowFile::new(&path, table.clone(), format);
    let rows = file.rows().unwrap().map(|row| row.unwrap()).collect();
    rows
}

fn parse_csv(table: &TableSchema, text: &str) -> LoadRows {
    read(table, Format::Csv, text)
}

fn parse_jsonl(table: &TableSchema, text: &str) -> LoadRows {
    read(table, Format::Jsonl, text)
}

fn table() -> TableSchema {
    let column = |name: &str, ty| Column {
        name: name.into(),
        ty,
        references: None,
        on_delete: None,
        default: None,
        max_len: None,
    };
    TableSchema {
        name: "T".into(),
        columns: vec![
            column("id", ColumnType::Int),
            column("name", ColumnType::String),
            column("note", ColumnType::Optional(Box::new(ColumnType::String))),
        ],
        key: vec![0],
        indexes: vec![],
        bounds: vec![],
        small_max: None,
        auto: false,
        aggregates: vec![],
        lookups: Default::default(),
    }
}

#[test]
fn csv_fields_quotes_and_optional_columns() {
    let rows = parse_csv(&table(), "name,id\n\"a, \"\"b\"\"\",1\nplain,2\n");
    let values: Vec<Vec<Value>> = rows.into_iter().map(|(_, r)| r.unwrap()).collect();
    assert_eq!(
        values[0],
        vec![Value::Int(1), Value::Str("a, \"b\"".into()), Value::Null]
    );
    assert_eq!(values[1][1], Value::Str("plain".into()));
}

#[test]
fn bad_lines_are_errors_with_their_line_numbers() {
    let rows = parse_csv(&table(), "id,name\n1,a\nx,b\n3\n");
    assert!(rows[0].1.is_ok());
    assert_eq!(rows[1].0, 3);
    // A number the one number parser refuses, with its own code.
    let error = rows[1].1.as_ref().unwrap_err();
    assert_eq!(error.code, "E0005");
    assert!(error.message.contains("`id`: `x` is not a number"));
    assert!(rows[2]
        .1
        .as_ref()
        .unwrap_err()
        .message
        .contains("1 fields, the header has 2"));
    let rows = parse_jsonl(
        &table(),
        "{\"id\": 1, \"name\": \"a\"}\n\n{\"id\": \"2\", \"name\": \"b\"}\nnot json\n",
    );
    assert!(rows[0].1.is_ok());
    assert_eq!(rows[1].0, 3);
    assert!(rows[1]
        .1
        .as_ref()
        .unwrap_err()
        .message
        .contains("`id` is `Int`"));
    assert_eq!(rows[2].0, 4);
}

#[test]
fn a_header_without_a_required_column_is_refused() {
    let rows = parse_csv(&table(), "id\n1\n");
    assert!(rows[0]
        .1
        .as_ref()
        .unwrap_err()
        .message
        .contains("lacks the column `name`"));
}

#[test]
fn duplicate_keys_missing_columns_infinite_floats_and_byte_order_marks() {
    let message = |rows: &LoadRows, at: usize| rows[at].1.as_ref().unwrap_err().message.clone();
    let rows = parse_jsonl(
        &table(),
        "\u{feff}{\"id\": 1, \"name\": \"a\"}\n{\"id\": 2, \"name\": \"a\", \"name\": \"b\"}\n{\"id\": 3}\n[1]\n",
    );
    assert!(rows[0].1.is_ok(), "a byte-order mark is skipped");
    assert!(message(&rows, 1).contains("the key `name` is given twice"));
    assert!(message(&rows, 2).contains("the column `name` is missing"));
    assert!(message(&rows, 3).contains("not a JSON object"));
    let floats = TableSchema {
        columns: vec![
            table().columns[0].clone(),
            Column {
                name: "x".into(),
                ty: ColumnType::Float,
                references: None,
                on_delete: None,
                default: None,
                max_len: None,
            },
        ],
        ..table()
    };
    let rows = parse_csv(&floats, "\u{feff}id,x\n1,1e999999\n2,2.5\n");
    assert!(message(&rows, 0).contains("`1e999999` is beyond the largest 64-bit float"));
    assert_eq!(rows[0].1.as_ref().unwrap_err().code, "E0006");
    assert_eq!(rows[1].1.as_ref().unwrap()[1], Value::Float(2.5));
}

#[test]
fn a_quoted_csv_field_may_hold_a_newline_and_rows_keep_their_first_line() {
    let rows = parse_csv(
        &table(),
        "id,name,note\n1,\"two\nlines\",\n2,b,\"x\"\"y\"\n",
    );
    assert_eq!(rows.len(), 2);
    assert_eq!(
        rows[0].1.as_ref().unwrap()[1],
        Value::Str("two\nlines".into())
    );
    assert_eq!(rows[1].0, 4, "the second row starts on line 4");
    assert_eq!(rows[1].1.as_ref().unwrap()[2], Value::Str("x\"y".into()));
}

#[test]
fn bytes_that_are_not_utf8_refuse_their_row_only() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rows.jsonl");
    std::fs::write(&path, b"{\"id\": 1, \"name\": \"a\"}\n{\"id\": 2, \"name\": \"\xff\"}\n{\"id\": 3, \"name\": \"c\"}\n").unwrap();
    let mut file = RowFile::new(&path, table(), Format::Jsonl);
    let rows: Vec<_> = file.rows().unwrap().map(|r| r.unwrap()).collect();
    assert!(rows[0].1.is_ok() && rows[2].1.is_ok());
    assert!(rows[1]
        .1
        .as_ref()
        .unwrap_err()
        .message
        .contains("not UTF-8"));
    let path = dir.path().join("rows.csv");
    std::fs::write(&path, b"id,name\n1,a\n2,\xff\n3,c\n").unwrap();
    let mut file = RowFile::new(&path, table(), Format::Csv);
    let rows: Vec<_> = file.rows().unwrap().map(|r| r.unwrap()).collect();
    assert_eq!(rows.len(), 3);
    assert!(rows[0].1.is_ok() && rows[2].1.is_ok());
    assert_eq!(rows[1].0, 3);
    assert!(rows[1]
        .1
        .as_ref()
        .unwrap_err()
        .message
        .contains("not UTF-8"));
}

#[test]
fn the_rows_are_read_again_from_the_start_and_the_bytes_counted() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rows.csv");
    let text = "id,name\n1,a\n2,b\n";
    std::fs::write(&path, text).unwrap();
    let mut file = RowFile::new(&path, table(), Format::Csv);
    let read = file.bytes_read();
    for _ in 0..2 {
        assert_eq!(file.rows().unwrap().count(), 2);
        assert_eq!(read.load(Ordering::Relaxed), text.len() as u64);
    }
    std::fs::remove_file(&path).unwrap();
    let gone = file
        .rows()
        .err()
        .expect("a file gone is an error of the load");
    assert_eq!(gone.code, "E0600");
}

#[test]
fn an_unclosed_csv_quote_is_refused_at_the_line_it_opened() {
    // The quote on line 3 is never closed: the reader takes the rest of
    // the file as the note, a row that would load.
    let rows = parse_csv(&table(), "id,name,note\n1,a,x\n2,b,\"oops\n3,c,y\n4,d,z\n");
    let (line, refused) = rows.last().unwrap();
    assert_eq!(*line, 3, "{rows:?}");
    let message = &refused.as_ref().unwrap_err().message;
    assert!(message.contains("never closed"), "{message}");
    // Quotes that close, doubled quotes, a quote inside an unquoted field
    // and a quote closing the file: nothing refused.
    for text in [
        "id,name,note\n1,\"a\"\"b\",\"c\nd\"\n",
        "id,name,note\n1,ab\"c,\n",
        "id,name,note\n1,a,\"x\"",
        "id,name,note\r\n1,\"a,\r\nb\",\r\n",
    ] {
        let rows = parse_csv(&table(), text);
        assert!(rows.iter().all(|(_, r)| r.is_ok()), "{text:?}: {rows:?}");
    }
}

#[test]
fn a_csv_header_naming_a_column_twice_is_refused() {
    let rows = parse_csv(&table(), "id,name,name\n1,a,b\n");
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].0, 1, "the header's line");
    let message = &rows[0].1.as_ref().unwrap_err().message;
    assert_eq!(message, "the header names the column `name` twice");
}

/// `T` with `score: Int = 7` and `tag: String? = "x"`: both defaulted.
fn defaulted() -> TableSchema {
    let mut table = table();
    table.columns.push(Column {
        name: "score".into(),
        ty: ColumnType::Int,
        references: None,
        on_delete: None,
        default: Some(rqc_plan::Literal::Int(7)),
        max_len: None,
    });
    table.columns.push(Column {
        name: "tag".into(),
        ty: ColumnType::Optional(Box::new(ColumnType::String)),
        references: None,
        on_delete: None,
        default: Some(rqc_plan::Literal::String("x".into())),
        max_len: None,
    });
    table
}

#[test]
fn columns_left_out_take_their_defaults_in_csv_and_jsonl() {
    let ok =
        |rows: LoadRows| -> Vec<Vec<Value>> { rows.into_iter().map(|(_, r)| r.unwrap()).collect() };
    // A header without the defaulted and optional columns.
    let csv = ok(parse_csv(&defaulted(), "name,id\na,1\n"));
    let left_out = vec![
        Value::Int(1),
        Value::Str("a".into()),
        Value::Null,
        Value::Int(7),
        Value::Str("x".into()),
    ];
    assert_eq!(csv, vec![left_out.clone()]);
    // A header that names them: the fields given win, an empty optional
    // field is none (not the default).
    let csv = ok(parse_csv(&defaulted(), "id,name,score,tag\n2,b,-9,\n"));
    assert_eq!(csv[0][3], Value::Int(-9));
    assert_eq!(csv[0][4], Value::Null);
    // JSONL: absent takes the default, null is none.
    let jsonl = ok(parse_jsonl(
        &defaulted(),
        "{\"id\": 1, \"name\": \"a\"}\n{\"id\": 2, \"name\": \"b\", \"tag\": null, \"score\": 0}\n",
    ));
    assert_eq!(jsonl[0], left_out);
    assert_eq!(jsonl[1][3], Value::Int(0));
    assert_eq!(jsonl[1][4], Value::Null);
    // A column with neither is still required.
    let rows = parse_csv(&defaulted(), "id,score\n1,2\n");
    assert!(rows[0]
        .1
        .as_ref()
        .unwrap_err()
        .message
        .contains("lacks the column `name`"));
}
