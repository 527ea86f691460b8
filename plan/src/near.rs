//! Near names: how far a misspelling may be from a name it is taken for, and a trie of a long list's names that finds the closest without comparing with each.
//!
//! A "did you mean" help compares a misspelt name with the names it could
//! have meant. Searching the list each time costs misspellings × names: a
//! module of 64,000 names with as many misspellings spent tens of seconds
//! there. A [`NearIndex`] holds a list's names in a trie, built once (its
//! edges compressed: a run of characters no other name branches from is one
//! node), and
//! walks only the branches that can still end within the allowed edits,
//! computing the edit distance row by row as it descends, in a band of
//! twice the allowed edits around the diagonal (so a long name costs its
//! length times that band, not its length squared).
//!
//! The walk is exact, and it is also bounded: past a budget of visited
//! nodes proportional to the name's length it answers with the closest name
//! found so far. It walks for no edit, then one, and so on, so a budget
//! spent among many names two edits away comes after the name one edit
//! away was found. Only names crafted to be many and all nearly alike reach
//! the budget; a checker that must answer every input in time cannot let
//! such a list make each misspelling cost the whole list.

/// The most edits a suggestion may be away (a name of 30 characters with 9
/// edits is another name, not a typo).
pub const MOST_EDITS: usize = 8;

/// How many edits a name of `chars` characters may be from the name it is
/// taken for: a third of its length, at least one and at most
/// [`MOST_EDITS`].
pub fn edit_limit(chars: usize) -> usize {
    (chars / 3).clamp(1, MOST_EDITS)
}

/// `name`'s characters in lower case, onto `out` (names are mostly ASCII,
/// which needs no table).
pub fn lower_chars(name: &str, out: &mut Vec<char>) {
    if name.is_ascii() {
        out.extend(name.bytes().map(|b| char::from(b.to_ascii_lowercase())));
    } else {
        out.extend(name.chars().flat_map(char::to_lowercase));
    }
}

/// The distance between `query` and `name` (lower-case characters) when it
/// is at most `bound` (at most [`MOST_EDITS`]): optimal string alignment,
/// as [`NearIndex::closest`] measures it. Only the band of cells within
/// `bound` of the diagonal is filled, so two long names that are nearly
/// alike cost their length, not its square.
pub fn distance_within(query: &[char], name: &[char], bound: usize) -> Option<usize> {
    let band = bound.min(MOST_EDITS);
    if query.len().abs_diff(name.len()) > band {
        return None;
    }
    let width = 2 * band + 1;
    // Rows two above, one above and this one, each `width` cells: cell
    // `offset` of row `d` is query position `d + offset - band`.
    let mut rows = [[FAR; 2 * MOST_EDITS + 1]; 3];
    for (offset, cell) in rows[1].iter_mut().enumerate().take(width) {
        if let Some(i) = offset.checked_sub(band).filter(|&i| i <= query.len()) {
            *cell = i as u32;
        }
    }
    for depth in 1..=name.len() {
        let ch = name[depth - 1];
        let mut left = FAR;
        let mut least = FAR;
        for offset in 0..width {
            let cell = match (depth + offset).checked_sub(band) {
                Some(0) => depth as u32,
                Some(i) if i <= query.len() => {
                    let up = if offset + 1 < width {
                        rows[1][offset + 1]
                    } else {
                        FAR
                    };
                    let mut cell = (rows[1][offset] + u32::from(ch != query[i - 1]))
                        .min(up + 1)
                        .min(left + 1);
                    if depth > 1 && i > 1 && ch == query[i - 2] && name[depth - 2] == query[i - 1] {
                        cell = cell.min(rows[0][offset] + 1);
                    }
                    cell.min(FAR)
                }
                _ => FAR,
            };
            rows[2][offset] = cell;
            left = cell;
            least = least.min(cell);
        }
        // Every later cell comes from this row or the one above, plus one.
        let above = rows[1][..width].iter().min().copied().unwrap_or(FAR);
        if least > band as u32 && above >= band as u32 {
            return None;
        }
        rows.rotate_left(1);
    }
    let last = query.len() + band - name.len();
    let distance = rows[1][last] as usize;
    (distance <= bound).then_some(distance)
}

/// Nodes a search may visit: a fixed allowance, and more for a longer name
/// (the walk along the name itself visits one node per character).
fn budget(query_chars: usize) -> usize {
    4_096 + 64 * query_chars
}

/// No item, no node.
const NONE: u32 = u32::MAX;

/// Distances past any bound (cells outside the band).
const FAR: u32 = u32::MAX / 2;

/// One edge of the trie and the node it ends at: the edge's characters
/// are `text[start .. start + len]` (a run of characters no other name
/// branches from, so a node costs the same whatever the names' length);
/// its children are listed in character order through `first_child` and
/// their `next_sibling`.
#[derive(Clone, Debug)]
struct Node {
    start: u32,
    len: u32,
    first_child: u32,
    next_sibling: u32,
    /// The item whose name ends here (of names equal but for case, the
    /// one of least rank), or [`NONE`].
    item: u32,
    /// The least rank of an item in this node's subtree.
    least_rank: u32,
    /// The lengths of the shortest and the longest name in this node's
    /// subtree.
    shortest: u32,
    longest: u32,
}

impl Node {
    /// A node of no characters, children or item (the root, and a node
    /// before it is filled in).
    const EMPTY: Node = Node {
        start: 0,
        len: 0,
        first_child: NONE,
        next_sibling: NONE,
        item: NONE,
        least_rank: NONE,
        shortest: u32::MAX,
        longest: 0,
    };
}

/// A list's names in a path-compressed trie of their lower-case
/// characters, each with a rank that breaks ties between equally close
/// names (the least wins; ranks are distinct). It costs a few bytes per
/// character and a few dozen per name.
#[derive(Clone, Debug)]
pub struct NearIndex {
    nodes: Vec<Node>,
    /// The edges' characters.
    text: Vec<char>,
    /// Each item's name and rank.
    items: Vec<(Box<str>, u32)>,
}

impl NearIndex {
    /// The index of `names`, each with its rank.
    pub fn build<'a>(names: impl IntoIterator<Item = (&'a str, u32)>) -> NearIndex {
        let named: Vec<(Box<str>, u32)> = names
            .into_iter()
            .map(|(name, rank)| (Box::from(name), rank))
            .collect();
        let mut items: Vec<(Vec<char>, u32, u32)> = Vec::with_capacity(named.len());
        for (item, (name, rank)) in named.iter().enumerate() {
            let mut chars = Vec::with_capacity(name.len());
            lower_chars(name, &mut chars);
            items.push((chars, *rank, item as u32));
        }
        // Sorted, each name shares a prefix with the one before it and
        // branches after that prefix as the last child so far.
        items.sort_unstable();
        let mut nodes = vec![Node::EMPTY];
        let mut text: Vec<char> = Vec::new();
        // The previous name's nodes, root first, each with the depth at
        // which its edge ends.
        let mut path: Vec<(u32, usize)> = vec![(0, 0)];
        let mut previous: &[char] = &[];
        for (chars, _, item) in &items {
            let shared = previous
                .iter()
                .zip(chars)
                .take_while(|(a, b)| a == b)
                .count();
            // The node whose edge holds depth `shared`, split there if its
            // edge goes on.
            let k = path.partition_point(|&(_, end)| end < shared);
            let (id, end) = path[k];
            if end > shared {
                let split = nodes.len() as u32;
                let cut = (shared - path[k - 1].1) as u32;
                let upper = &mut nodes[id as usize];
                let lower = Node {
                    start: upper.start + cut,
                    len: upper.len - cut,
                    first_child: upper.first_child,
                    next_sibling: NONE,
                    item: upper.item,
                    least_rank: NONE,
                    shortest: upper.shortest,
                    longest: upper.longest,
                };
                *upper = Node {
                    start: upper.start,
                    len: cut,
                    first_child: split,
                    next_sibling: upper.next_sibling,
                    ..Node::EMPTY
                };
                nodes.push(lower);
                path.truncate(k);
                path.extend([(id, shared), (split, end)]);
            }
            if chars.len() == shared {
                // The same name again (names are sorted, so a shorter one
                // came first): the first, of least rank, stands.
                let node = &mut nodes[id as usize];
                if node.item == NONE {
                    node.item = *item;
                    node.shortest = chars.len() as u32;
                    node.longest = chars.len() as u32;
                }
                previous = chars;
                continue;
            }
            let leaf = nodes.len() as u32;
            match path.get(k + 1) {
                // The previous name went on from here: this is its
                // branch's next sibling.
                Some(&(sibling, _)) => nodes[sibling as usize].next_sibling = leaf,
                None => nodes[id as usize].first_child = leaf,
            }
            nodes.push(Node {
                start: text.len() as u32,
                len: (chars.len() - shared) as u32,
                item: *item,
                shortest: chars.len() as u32,
                longest: chars.len() as u32,
                ..Node::EMPTY
            });
            text.extend_from_slice(&chars[shared..]);
            path.truncate(k + 1);
            path.push((leaf, chars.len()));
            previous = chars;
        }
        drop(items);
        fold_subtrees(&mut nodes, &named);
        NearIndex {
            nodes,
            text,
            items: named,
        }
    }

    /// The index of `names`, ranked alphabetically.
    pub fn alphabetical<'a>(names: impl IntoIterator<Item = &'a str>) -> NearIndex {
        let mut sorted: Vec<&str> = names.into_iter().collect();
        sorted.sort_unstable();
        NearIndex::build(sorted.into_iter().zip(0..))
    }

    /// How many names the index holds.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The name closest to `query` (lower-case characters) within `bound`
    /// edits (optimal string alignment: insertions, deletions,
    /// substitutions and swaps of neighbours), the least ranked of equally
    /// close ones, with its distance. `bound` is at most [`MOST_EDITS`].
    pub fn closest(&self, query: &[char], bound: usize) -> Option<(usize, &str)> {
        // Walked again for each number of edits, fewest first, on one
        // budget: a walk at a small bound prunes nearly everything, and
        // the first that finds a name has found the closest. (One walk at
        // the whole bound could spend the budget in a subtree of names two
        // edits away before it reached the name one edit away.)
        let mut budget = budget(query.len());
        for edits in 0..=bound.min(MOST_EDITS) {
            let found = Search::new(self, query, edits).run(&mut budget);
            if let Some((distance, item)) = found {
                return Some((distance, &self.items[item].0));
            }
            if budget == 0 {
                break;
            }
        }
        None
    }
}

/// Gives each node the least rank and the shortest and longest name of its
/// subtree (children, once edges are split, may precede their parents).
fn fold_subtrees(nodes: &mut [Node], items: &[(Box<str>, u32)]) {
    let mut parents = vec![NONE; nodes.len()];
    let mut order: Vec<u32> = Vec::with_capacity(nodes.len());
    let mut stack = vec![0u32];
    while let Some(id) = stack.pop() {
        order.push(id);
        let mut child = nodes[id as usize].first_child;
        while child != NONE {
            parents[child as usize] = id;
            stack.push(child);
            child = nodes[child as usize].next_sibling;
        }
    }
    // Every node comes after its parent in `order`.
    for &id in order.iter().rev() {
        let node = &mut nodes[id as usize];
        if node.item != NONE {
            node.least_rank = node.least_rank.min(items[node.item as usize].1);
        }
        let (least, shortest, longest) = (node.least_rank, node.shortest, node.longest);
        if let Some(&parent) = parents.get(id as usize).filter(|&&p| p != NONE) {
            let up = &mut nodes[parent as usize];
            up.least_rank = up.least_rank.min(least);
            up.shortest = up.shortest.min(shortest);
            up.longest = up.longest.max(longest);
        }
    }
}

/// One walk of the trie for one name.
struct Search<'a> {
    index: &'a NearIndex,
    query: &'a [char],
    /// The band's half width: cells further from the diagonal are past
    /// the bound.
    band: usize,
    /// The distance table's rows along the current path, `2 × band + 1`
    /// cells each: row `d` holds the cells of query positions
    /// `d - band ..= d + band`.
    rows: Vec<u32>,
    /// The path's characters, by depth.
    path: Vec<char>,
    best: (u32, u32, u32),
}

impl<'a> Search<'a> {
    fn new(index: &'a NearIndex, query: &'a [char], bound: usize) -> Search<'a> {
        Search {
            index,
            query,
            band: bound,
            rows: Vec::new(),
            path: vec!['\0'],
            // (distance, rank, item): anything within the bound beats it.
            best: (bound as u32, NONE, NONE),
        }
    }

    fn width(&self) -> usize {
        2 * self.band + 1
    }

    /// The cell of row `depth`, query position `i`.
    fn cell(&self, depth: usize, i: usize) -> u32 {
        if i > self.query.len() || i + self.band < depth || i > depth + self.band {
            return FAR;
        }
        self.rows[depth * self.width() + i + self.band - depth]
    }

    /// Fills row `depth` (whose character is the path's last). In the band's coordinates a cell's neighbours above
    /// sit at the same offset (diagonal) and the next one (straight up),
    /// and two rows above at the same offset (a swap).
    fn fill(&mut self, depth: usize) {
        let width = self.width();
        let band = self.band;
        let query = self.query;
        self.rows.resize((depth + 1) * width, FAR);
        let (above, row) = self.rows.split_at_mut(depth * width);
        let ch = self.path[depth];
        let before = self.path[depth.saturating_sub(1)];
        let mut left = FAR;
        for (offset, out) in row.iter_mut().enumerate() {
            let cell = match (depth + offset).checked_sub(band) {
                Some(i) if i <= query.len() => match (depth, i) {
                    (0, i) => i as u32,
                    (depth, 0) => depth as u32,
                    (depth, i) => {
                        let previous = &above[(depth - 1) * width..];
                        let up = previous.get(offset + 1);
                        let mut cell = (previous[offset] + u32::from(ch != query[i - 1]))
                            .min(up.map_or(FAR, |&c| c + 1))
                            .min(left + 1);
                        if depth > 1 && i > 1 && ch == query[i - 2] && before == query[i - 1] {
                            cell = cell.min(above[(depth - 2) * width + offset] + 1);
                        }
                        cell.min(FAR)
                    }
                },
                _ => FAR,
            };
            *out = cell;
            left = cell;
        }
    }

    /// The least distance of a name below the node at `depth`, whose
    /// names are `shortest ..= longest` characters long. The name's
    /// alignment with the query passes through a cell of this row, or
    /// jumps over the row by a swap from a cell of the row above; and from
    /// query position `i` at depth `d`, a name of length `n` is at least
    /// `|(query length - i) - (n - d)|` edits from its end.
    fn floor(&self, depth: usize, shortest: u32, longest: u32) -> u32 {
        let width = self.width();
        let query = self.query.len();
        let mut floor = FAR;
        for (row, swap) in [(Some(depth), 0), (depth.checked_sub(1), 1)] {
            let Some(row) = row else { continue };
            for offset in 0..width {
                let cell = self.rows[row * width + offset];
                let Some(i) = (row + offset).checked_sub(self.band) else {
                    continue;
                };
                if cell >= FAR || i > query {
                    continue;
                }
                // The name's length at which no edit is left over.
                let even = (query - i + row) as u32;
                let left = shortest
                    .saturating_sub(even)
                    .max(even.saturating_sub(longest));
                floor = floor.min(cell + swap + left);
            }
        }
        floor
    }

    /// The walk, filling at most `budget` rows (one per character of an
    /// edge, and the root's); what it leaves is left.
    fn run(mut self, budget: &mut usize) -> Option<(usize, usize)> {
        let index = self.index;
        let nodes = &index.nodes;
        // (node, the depth its edge starts at)
        let mut stack: Vec<(u32, usize)> = vec![(0, 0)];
        'nodes: while let Some((id, start)) = stack.pop() {
            let node = &nodes[id as usize];
            let label = &index.text[node.start as usize..(node.start + node.len) as usize];
            let end = start + label.len();
            // The root's row is depth 0; an edge's, one per character.
            let first = if id == 0 { 0 } else { start + 1 };
            for depth in first..=end {
                if *budget == 0 {
                    break 'nodes;
                }
                *budget -= 1;
                if depth > 0 {
                    self.path.truncate(depth);
                    self.path.push(label[depth - start - 1]);
                }
                self.fill(depth);
                if depth == end
                    && node.item != NONE
                    && self.query.len().abs_diff(depth) <= self.band
                {
                    let distance = self.cell(depth, self.query.len());
                    let rank = index.items[node.item as usize].1;
                    if (distance, rank) < (self.best.0, self.best.1) {
                        self.best = (distance, rank, node.item);
                    }
                }
                let floor = self.floor(depth, node.shortest, node.longest);
                // Nothing below can be closer, or as close and of less rank.
                if floor > self.best.0 || (floor == self.best.0 && node.least_rank >= self.best.1) {
                    continue 'nodes;
                }
            }
            // Children in reverse, the one on the diagonal last, so that
            // the likeliest branch is walked first.
            let next = self.query.get(end).copied();
            let mut on_diagonal = None;
            let mut child = node.first_child;
            let mark = stack.len();
            while child != NONE {
                let c = &nodes[child as usize];
                if Some(index.text[c.start as usize]) == next {
                    on_diagonal = Some(child);
                } else {
                    stack.push((child, end));
                }
                child = c.next_sibling;
            }
            stack[mark..].reverse();
            if let Some(child) = on_diagonal {
                stack.push((child, end));
            }
        }
        let (distance, _, item) = self.best;
        (item != NONE).then_some((distance as usize, item as usize))
    }
}

/// Shorter lists are searched whole: building a trie costs more than a
/// few comparisons.
pub const INDEXED: usize = 64;

/// A [`NearIndex`] kept beside a list, built on its first use for a list
/// longer than [`INDEXED`]. Like a [`crate::by_name::ByName`], it is not
/// trusted for a list that has grown since it was built.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NearBeside {
    built: crate::by_name::Lazy<(usize, NearIndex)>,
}

impl NearBeside {
    /// The index of a list of `len` names, ranked by place, or `None` when
    /// the list is short or has grown (search it whole).
    pub fn in_order<'a, I>(&self, len: usize, names: impl FnOnce() -> I) -> Option<&NearIndex>
    where
        I: IntoIterator<Item = &'a str>,
    {
        self.get(len, || NearIndex::build(names().into_iter().zip(0..)))
    }

    /// [`NearBeside::in_order`], the names ranked alphabetically.
    pub fn alphabetical<'a, I>(&self, len: usize, names: impl FnOnce() -> I) -> Option<&NearIndex>
    where
        I: IntoIterator<Item = &'a str>,
    {
        self.get(len, || NearIndex::alphabetical(names()))
    }

    fn get(&self, len: usize, build: impl FnOnce() -> NearIndex) -> Option<&NearIndex> {
        if len <= INDEXED {
            return None;
        }
        let (built_len, index) = self.built.get_or_init(|| (len, build()));
        (*built_len == len).then_some(index)
    }
}
