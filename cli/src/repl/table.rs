//! Rows as an aligned text table, as the REPL prints a result: records by column, other values alone.

use rqc::Value;

/// Rows as an aligned text table (records by column; other values alone).
pub(super) fn table(rows: &[Value]) -> String {
    let Some(Value::Record(first)) = rows.first() else {
        return rows
            .iter()
            .map(|v| v.to_json().to_string())
            .collect::<Vec<_>>()
            .join("\n");
    };
    let headers: Vec<String> = first.iter().map(|(n, _)| n.clone()).collect();
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|row| {
            headers
                .iter()
                .map(|h| match row.field(h) {
                    Some(Value::Str(s)) => s.clone(),
                    Some(v) => v.to_json().to_string(),
                    None => String::new(),
                })
                .collect()
        })
        .collect();
    let widths: Vec<usize> = headers
        .iter()
        .enumerate()
        .map(|(i, h)| {
            cells
                .iter()
                .map(|r| r[i].chars().count())
                .chain([h.chars().count()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |values: &[String]| {
        values
            .iter()
            .zip(&widths)
            .map(|(v, w)| format!("{v:<w$}"))
            .collect::<Vec<_>>()
            .join(" │ ")
            .trim_end()
            .to_string()
    };
    let mut out = vec![line(&headers)];
    out.push(
        widths
            .iter()
            .map(|w| "─".repeat(*w))
            .collect::<Vec<_>>()
            .join("─┼─"),
    );
    out.extend(cells.iter().map(|r| line(r)));
    out.join("\n")
}
