//! Name suggestions for "did you mean" help lines.

/// The known name closest to `name` by edit distance, if close enough to be
/// a likely typo (at most a third of the name's length, and at least one).
pub fn closest<'a>(name: &str, known: &[&'a str]) -> Option<&'a str> {
    let limit = (name.chars().count() / 3).max(1);
    known
        .iter()
        .map(|candidate| (edit_distance(name, candidate), *candidate))
        .filter(|(distance, _)| *distance <= limit)
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, candidate)| candidate)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.to_lowercase().chars().collect();
    let b: Vec<char> = b.to_lowercase().chars().collect();
    // Optimal string alignment: edits, plus swapping two neighbours.
    let mut rows = vec![(0..=b.len()).collect::<Vec<usize>>()];
    for i in 1..=a.len() {
        let mut row = vec![i; b.len() + 1];
        for j in 1..=b.len() {
            let substitution = rows[i - 1][j - 1] + usize::from(a[i - 1] != b[j - 1]);
            row[j] = substitution.min(rows[i - 1][j] + 1).min(row[j - 1] + 1);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                row[j] = row[j].min(rows[i - 2][j - 2] + 1);
            }
        }
        rows.push(row);
    }
    rows[a.len()][b.len()]
}

#[cfg(test)]
mod tests {
    use super::closest;

    #[test]
    fn suggests_only_near_names() {
        assert_eq!(closest("Usr", &["User", "Post"]), Some("User"));
        assert_eq!(
            closest("follwer", &["follower", "followee"]),
            Some("follower")
        );
        assert_eq!(closest("zzz", &["User", "Post"]), None);
        assert_eq!(
            closest("nmae", &["id", "name"]),
            Some("name"),
            "a swap is one edit"
        );
    }
}
