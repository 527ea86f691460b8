//! Name suggestions for "did you mean" help lines.

use rqc_plan::near::{distance_within, edit_limit, lower_chars, NearIndex};

/// The known name closest to `name` by edit distance, if close enough to be
/// a likely typo ([`edit_limit`]: a third of the name's length, at least
/// one and at most eight); of equally close names, the first.
pub fn closest<'a>(name: &str, known: &[&'a str]) -> Option<&'a str> {
    closest_of(name, known.iter().copied(), None)
}

/// [`closest`] among `known`, offered in order, or through their `index`
/// when the list has one (a list of thousands of names, and as many
/// misspellings: each would compare with every name).
pub fn closest_of<'a>(
    name: &str,
    known: impl IntoIterator<Item = &'a str>,
    index: Option<&'a NearIndex>,
) -> Option<&'a str> {
    let mut nearest = Nearest::new(name);
    match index {
        Some(index) => nearest.indexed(index),
        None => nearest.in_order(known),
    }
    nearest.best()
}

/// The index of `table` closest to `name`; of equally close ones, the
/// first alphabetically.
pub fn closest_index<'a>(name: &str, table: &'a rqc_plan::TableSchema) -> Option<&'a str> {
    if let Some(index) = table.near_indexes() {
        return closest_of(name, [], Some(index));
    }
    let mut names: Vec<&str> = table.indexes.iter().map(|i| i.name.as_str()).collect();
    names.sort_unstable();
    closest(name, &names)
}

/// The help for a column `name` that `table` lacks: the closest of its
/// columns (`names` in order, or `near` when they are indexed), else the
/// columns.
pub fn unknown_column_help<'a>(
    table: &str,
    name: &str,
    names: impl ExactSizeIterator<Item = &'a str> + Clone,
    near: Option<&'a NearIndex>,
) -> String {
    match closest_of(name, names.clone(), near) {
        Some(close) => format!("did you mean `{close}`?"),
        None => format!("the columns of `{table}` are: {}", listed_from(names)),
    }
}

/// A list of names kept for many near-name searches: searched whole when
/// short, through a [`NearIndex`] when long (every misspelt import of a
/// module of thousands of names searches that module's names).
pub struct NearList {
    names: Vec<String>,
    index: Option<NearIndex>,
}

impl NearList {
    /// The list of `names`, in order (equally close names: the first).
    pub fn new(names: Vec<String>) -> NearList {
        let index = (names.len() > rqc_plan::near::INDEXED)
            .then(|| NearIndex::build(names.iter().map(String::as_str).zip(0..)));
        NearList { names, index }
    }

    /// The name closest to `name`, if close enough ([`closest`]).
    pub fn closest(&self, name: &str) -> Option<&str> {
        closest_of(
            name,
            self.names.iter().map(String::as_str),
            self.index.as_ref(),
        )
    }

    /// The names for a help line ([`listed`]).
    pub fn listed(&self) -> String {
        listed_from(self.names.iter().map(String::as_str))
    }
}

/// Names for a help line: all of them when few, else the first
/// [`LISTED`] and how many more (a program of thousands of modules, or a
/// table of thousands of columns, printed them all in every such help).
pub fn listed(names: &[&str]) -> String {
    listed_from(names.iter().copied())
}

/// [`listed`], from names read one by one: only those listed are read.
pub fn listed_from<'a>(names: impl ExactSizeIterator<Item = &'a str>) -> String {
    let more = names.len().saturating_sub(LISTED);
    let shown: Vec<&str> = names.take(LISTED).collect();
    match more {
        0 => shown.join(", "),
        more => format!("{}, and {more} more", shown.join(", ")),
    }
}

/// How many names a help line lists.
const LISTED: usize = 12;

/// What a name's distance to another can be bounded by without the table:
/// its length in (lower-case) characters and the set of its characters,
/// hashed to 64 bits. An edit changes the length by at most one and the
/// set by at most two members (a substitution takes one out and puts one
/// in), so two names are at least `max(length difference, changed
/// members / 2)` apart.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Signature {
    length: u32,
    set: u64,
}

impl Signature {
    pub fn of(name: &str) -> Signature {
        let mut signature = Signature::default();
        if name.is_ascii() {
            // Most names: a byte is a character, without a case table.
            for b in name.bytes() {
                signature.set |= 1 << (u32::from(b.to_ascii_lowercase()) % 64);
            }
            signature.length = name.len() as u32;
            return signature;
        }
        for c in name.chars().flat_map(char::to_lowercase) {
            signature.length += 1;
            signature.set |= 1 << (c as u32 % 64);
        }
        signature
    }

    /// The least distance between names of these signatures.
    fn least_distance(self, other: Signature) -> usize {
        let lengths = self.length.abs_diff(other.length) as usize;
        let members = (self.set ^ other.set).count_ones().div_ceil(2) as usize;
        lengths.max(members)
    }
}

/// The search behind [`closest`], over names offered in groups. Each
/// name costs no allocation, and one whose length alone puts it too far is
/// skipped: a module of thousands of names and as many misspellings asks
/// once per misspelling.
pub struct Nearest<'a> {
    name: Vec<char>,
    signature: Signature,
    limit: usize,
    best: Option<(usize, &'a str)>,
    /// The candidate's characters, kept from one candidate to the next.
    candidate: Vec<char>,
}

impl<'a> Nearest<'a> {
    pub fn new(name: &str) -> Nearest<'a> {
        let mut lower = Vec::with_capacity(name.len());
        lower_chars(name, &mut lower);
        Nearest {
            name: lower,
            signature: Signature::of(name),
            limit: edit_limit(name.chars().count()),
            best: None,
            candidate: Vec::new(),
        }
    }

    /// Offers names in order: of equally close ones, the first offered. A
    /// name its [`Signature`] puts too far costs that signature, not the
    /// table (a table of 8,000 columns and as many misspellings of them).
    pub fn in_order(&mut self, names: impl IntoIterator<Item = &'a str>) {
        for candidate in names {
            let bound = match self.best {
                Some((0, _)) => return,
                Some((distance, _)) => distance - 1,
                None => self.limit,
            };
            if self.signature.least_distance(Signature::of(candidate)) > bound {
                continue;
            }
            if let Some(distance) = self.distance(candidate, bound) {
                self.best = Some((distance, candidate));
            }
        }
    }

    /// Offers names in no particular order (a hash map's), each with its
    /// [`Signature`]: of equally close ones, the first alphabetically, as
    /// if they were offered sorted; one offered before them stays ahead of
    /// them. A name its signature puts too far costs no more than that
    /// comparison.
    pub fn any_order(&mut self, names: impl IntoIterator<Item = (&'a str, Signature)>) {
        let mut from_these = false;
        for (candidate, signature) in names {
            let bound = match self.best {
                Some((distance, _)) if from_these => distance,
                Some((0, _)) => return,
                Some((distance, _)) => distance - 1,
                None => self.limit,
            };
            if self.signature.least_distance(signature) > bound {
                continue;
            }
            if let Some(distance) = self.distance(candidate, bound) {
                let better = match self.best {
                    Some((best, name)) if from_these && best == distance => candidate < name,
                    _ => true,
                };
                if better {
                    self.best = Some((distance, candidate));
                    from_these = true;
                }
            }
        }
    }

    /// Offers the names of `index`, as [`Nearest::in_order`] or
    /// [`Nearest::any_order`] offers them, by their ranks in the index;
    /// without comparing with each (a list of thousands of names).
    pub fn indexed(&mut self, index: &'a NearIndex) {
        let bound = match self.best {
            Some((0, _)) => return,
            Some((distance, _)) => distance - 1,
            None => self.limit,
        };
        if let Some(found) = index.closest(&self.name, bound) {
            self.best = Some(found);
        }
    }

    pub fn best(&self) -> Option<&'a str> {
        self.best.map(|(_, name)| name)
    }

    /// The distance from the name to `candidate` when it is at most
    /// `bound`: optimal string alignment (edits, and swaps of neighbours),
    /// ignoring case.
    fn distance(&mut self, candidate: &str, bound: usize) -> Option<usize> {
        self.candidate.clear();
        lower_chars(candidate, &mut self.candidate);
        distance_within(&self.name, &self.candidate, bound)
    }
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

    /// The distance of the search, against the full table computed plainly.
    fn plain_distance(a: &str, b: &str) -> usize {
        let a: Vec<char> = a.to_lowercase().chars().collect();
        let b: Vec<char> = b.to_lowercase().chars().collect();
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

    /// Names of every kind the search meets: empty, one letter, swapped
    /// neighbours, case, digits, non-ASCII (one and two bytes, and
    /// letters whose lower case differs), and characters that share a
    /// signature bit.
    const WORDS: [&str; 21] = [
        "",
        "a",
        "ab",
        "ba",
        "abc",
        "acb",
        "name",
        "nmae",
        "Name",
        "follower",
        "followee",
        "follwer",
        "timeline",
        "q12345",
        "nope12345",
        "≤é",
        "ÉTÉ",
        "été",
        "abcdefghij",
        "a@",
        "a\u{80}",
    ];

    #[test]
    fn the_bounded_distance_is_the_plain_one_within_its_bound() {
        for a in WORDS {
            for b in WORDS {
                let plain = plain_distance(a, b);
                for bound in 0..=rqc_plan::near::MOST_EDITS {
                    let mut nearest = super::Nearest::new(a);
                    let expected = (plain <= bound).then_some(plain);
                    assert_eq!(
                        nearest.distance(b, bound),
                        expected,
                        "{a:?} {b:?} ≤ {bound}"
                    );
                }
            }
        }
    }

    fn signed<'a>(names: &[&'a str]) -> Vec<(&'a str, super::Signature)> {
        names
            .iter()
            .map(|n| (*n, super::Signature::of(n)))
            .collect()
    }

    #[test]
    fn a_signature_never_bounds_above_the_distance() {
        for a in WORDS {
            for b in WORDS {
                let least = super::Signature::of(a).least_distance(super::Signature::of(b));
                assert!(least <= plain_distance(a, b), "{a:?} {b:?}");
            }
        }
    }

    #[test]
    fn names_in_no_order_tie_as_if_sorted_after_those_in_order() {
        // `cat` and `bat` are both one edit from `hat`.
        let mut nearest = super::Nearest::new("hat");
        nearest.any_order(signed(&["cat", "bat"]));
        assert_eq!(nearest.best(), Some("bat"));
        let mut nearest = super::Nearest::new("hat");
        nearest.in_order(["cat"]);
        nearest.any_order(signed(&["bat", "ha"]));
        assert_eq!(nearest.best(), Some("cat"), "the earlier group keeps a tie");
        let mut nearest = super::Nearest::new("hat");
        nearest.in_order(["cats"]);
        nearest.any_order(signed(&["bat", "at"]));
        assert_eq!(nearest.best(), Some("at"), "a closer name still wins");
    }
}
