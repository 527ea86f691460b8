//! The near-name index answers as a plain search of the list does: the closest name within the bound, the least ranked of equally close ones.

use rqc_plan::near::{distance_within, edit_limit, lower_chars, NearIndex, MOST_EDITS};

/// Optimal string alignment distance of lower-case names, the whole table.
fn plain_distance(a: &[char], b: &[char]) -> usize {
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

fn lower(name: &str) -> Vec<char> {
    let mut chars = Vec::new();
    lower_chars(name, &mut chars);
    chars
}

/// The plain search: every name compared, ties to the least rank.
fn plain_closest(names: &[(String, u32)], query: &str, bound: usize) -> Option<(usize, usize)> {
    let query = lower(query);
    names
        .iter()
        .enumerate()
        .map(|(item, (name, rank))| (plain_distance(&query, &lower(name)), *rank, item))
        .filter(|(distance, _, _)| *distance <= bound)
        .min()
        .map(|(distance, _, item)| (distance, item))
}

/// A small deterministic generator (xorshift), so that a failure repeats.
struct Random(u64);

impl Random {
    fn next(&mut self, below: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % below as u64) as usize
    }

    /// A name over a few letters (so that names are near one another),
    /// upper case and non-ASCII among them.
    fn name(&mut self, longest: usize) -> String {
        const LETTERS: [char; 7] = ['a', 'b', 'c', 'A', 'é', 'É', '1'];
        let len = self.next(longest + 1);
        (0..len)
            .map(|_| LETTERS[self.next(LETTERS.len())])
            .collect()
    }

    /// `name` with a few random edits.
    fn misspelt(&mut self, name: &str) -> String {
        let mut chars: Vec<char> = name.chars().collect();
        for _ in 0..self.next(4) {
            let at = self.next(chars.len() + 1);
            match self.next(4) {
                0 if at < chars.len() => {
                    chars.remove(at);
                }
                1 if at + 1 < chars.len() => chars.swap(at, at + 1),
                2 if at < chars.len() => chars[at] = 'b',
                _ => chars.insert(at, 'c'),
            }
        }
        chars.into_iter().collect()
    }
}

#[test]
fn the_index_finds_what_the_plain_search_finds() {
    let mut random = Random(0x9e37_79b9_7f4a_7c15);
    for round in 0..200 {
        let count = 1 + random.next(60);
        let longest = if round % 3 == 0 { 14 } else { 6 };
        // Distinct ranks, in no order.
        let names: Vec<(String, u32)> = (0..count)
            .map(|i| (random.name(longest), ((i * 37) % 101) as u32))
            .collect();
        let index = NearIndex::build(names.iter().map(|(n, r)| (n.as_str(), *r)));
        for _ in 0..20 {
            let query = match random.next(3) {
                0 => random.name(longest),
                _ => {
                    let name = names[random.next(count)].0.clone();
                    random.misspelt(&name)
                }
            };
            for bound in [0, 1, 2, edit_limit(query.chars().count()), MOST_EDITS] {
                let expected = plain_closest(&names, &query, bound);
                let found = index.closest(&lower(&query), bound);
                // Names equal but for case are one: either item answers.
                assert_eq!(
                    found.map(|(d, name)| (d, lower(name))),
                    expected.map(|(d, item)| (d, lower(&names[item].0))),
                    "{query:?} ≤ {bound} among {names:?}"
                );
            }
        }
    }
}

#[test]
fn the_banded_distance_is_the_plain_one_within_its_bound() {
    let mut random = Random(0x2545_f491_4f6c_dd1d);
    for _ in 0..3_000 {
        let a = random.name(12);
        let b = match random.next(2) {
            0 => random.name(12),
            _ => random.misspelt(&a),
        };
        let (a, b) = (lower(&a), lower(&b));
        let plain = plain_distance(&a, &b);
        for bound in 0..=MOST_EDITS {
            let expected = (plain <= bound).then_some(plain);
            assert_eq!(
                distance_within(&a, &b, bound),
                expected,
                "{a:?} {b:?} ≤ {bound}"
            );
        }
    }
    // Two long names nearly alike: the band, not the whole table.
    let long: Vec<char> = "a".repeat(50_000).chars().collect();
    let mut near = long.clone();
    near[10] = 'b';
    near[40_000] = 'c';
    assert_eq!(distance_within(&long, &near, 2), Some(2));
    assert_eq!(distance_within(&long, &near, 1), None);
}

/// A name one edit away is found though many names two edits away come
/// first in the walk and would spend its budget (a helper's case).
#[test]
fn the_closest_name_is_found_before_the_budget_is_spent_on_farther_ones() {
    let query = "a".repeat(24);
    let close = format!("b{}", "a".repeat(23));
    let mut names = vec![close.clone()];
    let letters: Vec<char> = ('b'..='z').chain('0'..='9').collect();
    for x in &letters {
        for y in &letters {
            names.push(format!("aa{x}{y}{}", "a".repeat(20)));
        }
    }
    let index = NearIndex::build(names.iter().map(|n| n.as_str()).zip(0..));
    assert_eq!(
        index.closest(&lower(&query), edit_limit(24)),
        Some((1, close.as_str()))
    );
}

#[test]
fn ties_go_to_the_least_rank_and_swaps_are_one_edit() {
    let names = [("cat", 2), ("bat", 1), ("hta", 0), ("at", 3)];
    let index = NearIndex::build(names);
    assert_eq!(
        index.closest(&lower("hat"), 1),
        Some((1, "hta")),
        "one swap"
    );
    let index = NearIndex::build([("cat", 2), ("bat", 1), ("at", 3)]);
    assert_eq!(
        index.closest(&lower("hat"), 1),
        Some((1, "bat")),
        "bat ranks first"
    );
    assert_eq!(index.closest(&lower("HAT"), 0), None);
    assert_eq!(
        index.closest(&lower("BAT"), 0),
        Some((0, "bat")),
        "case is ignored"
    );
}

#[test]
fn a_name_far_longer_than_the_bound_costs_its_length() {
    // 20,000 characters: the band keeps each row to a few cells, and the
    // search answers (a whole table would be 400 million cells).
    let long: String = "ab".repeat(10_000);
    let mut near = long.clone();
    near.replace_range(5_000..5_001, "z");
    let names = [(long.as_str(), 0), ("short", 1)];
    let index = NearIndex::build(names);
    assert_eq!(
        index.closest(&lower(&near), MOST_EDITS),
        Some((1, long.as_str()))
    );
}

#[test]
fn many_names_all_alike_stop_at_the_budget_with_an_answer() {
    // Every name is within the bound of the query: the walk stops at its
    // budget and still answers with one of them.
    let names: Vec<String> = (0..20_000).map(|i| format!("n{i:05}")).collect();
    let index = NearIndex::build(names.iter().map(|n| (n.as_str(), 0)));
    let query = lower("n1234x");
    let (distance, name) = index.closest(&query, 2).expect("a near name");
    assert_eq!(distance, plain_distance(&query, &lower(name)));
    assert!(distance <= 2);
}
