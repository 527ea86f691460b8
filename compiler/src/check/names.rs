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
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut current = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let substitution = previous[j] + usize::from(ca != cb);
            current.push(substitution.min(previous[j + 1] + 1).min(current[j] + 1));
        }
        previous = current;
    }
    previous[b.len()]
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
    }
}
