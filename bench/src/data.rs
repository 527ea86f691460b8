//! The social data set at size N: every table read has N rows (users,
//! posts, follows), made row by row from its number so no side needs the
//! whole set in memory, and every side loads the very same rows.

use rqc::Value;

pub const COUNTRIES: [&str; 5] = ["NZ", "FR", "JP", "BR", "KE"];

/// Follows per follower: the island `Follow[u]` holds this many rows.
pub const FOLLOWS_EACH: i64 = 20;

/// Posts per author on average: `Post.by_author[a]` holds about this many.
pub const POSTS_EACH: i64 = 10;

#[derive(Clone, Copy, Debug)]
pub struct Social {
    /// Rows in each of User, Post and Follow.
    pub n: i64,
}

pub struct User {
    pub id: i64,
    pub handle: String,
    pub name: String,
    pub country: &'static str,
}

pub struct Post {
    pub id: i64,
    pub author: i64,
    pub at: i64,
    pub body: String,
}

pub struct Follow {
    pub follower: i64,
    pub followee: i64,
    pub since: i64,
}

impl Social {
    /// Users who write posts: 1..=authors (posts pick them uniformly).
    pub fn authors(self) -> i64 {
        (self.n / POSTS_EACH).max(FOLLOWS_EACH)
    }

    /// Users who follow: 1..=followers, each following FOLLOWS_EACH authors.
    pub fn followers(self) -> i64 {
        (self.n / FOLLOWS_EACH).max(1)
    }

    pub fn user(self, id: i64) -> User {
        User {
            id,
            handle: handle(id),
            name: format!("User {id}"),
            country: COUNTRIES[(id % 5) as usize],
        }
    }

    pub fn post(self, id: i64) -> Post {
        Post {
            id,
            author: 1 + (mix(id as u64 ^ 0xA5A5) % self.authors() as u64) as i64,
            // Distinct times (an odd multiplier permutes 0..2^40), so an
            // order by time has no ties and every side returns the same rows.
            at: unique(id as u64, 0x9E37_79B9_7F4A_7C15),
            body: format!("post {id}: about forty bytes of body text"),
        }
    }

    /// The island of follower `u`: FOLLOWS_EACH distinct authors.
    pub fn follows(self, u: i64) -> Vec<Follow> {
        let mut out: Vec<Follow> = Vec::with_capacity(FOLLOWS_EACH as usize);
        let mut state = mix(u as u64 ^ 0x5EED);
        while (out.len() as i64) < FOLLOWS_EACH {
            state = mix(state);
            let followee = 1 + (state % self.authors() as u64) as i64;
            if out.iter().all(|f| f.followee != followee) {
                let k = (u - 1) * FOLLOWS_EACH + out.len() as i64;
                out.push(Follow {
                    follower: u,
                    followee,
                    since: unique(k as u64, 0xC2B2_AE3D_27D4_EB4F),
                });
            }
        }
        out
    }
}

pub fn handle(id: i64) -> String {
    format!("h{id}")
}

impl User {
    pub fn values(&self) -> Vec<Value> {
        vec![
            self.id.into(),
            self.handle.clone().into(),
            self.name.clone().into(),
            self.country.into(),
        ]
    }
}

impl Post {
    pub fn values(&self) -> Vec<Value> {
        vec![
            self.id.into(),
            self.author.into(),
            self.at.into(),
            self.body.clone().into(),
        ]
    }
}

impl Follow {
    pub fn values(&self) -> Vec<Value> {
        vec![
            self.follower.into(),
            self.followee.into(),
            self.since.into(),
        ]
    }
}

/// splitmix64's finaliser: a well-spread hash of `x`.
pub fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A distinct value in 0..2^40 for each `k` below 2^40.
fn unique(k: u64, odd: u64) -> i64 {
    (k.wrapping_mul(odd | 1) & ((1 << 40) - 1)) as i64
}

/// `count` keys drawn uniformly from 1..=range.
pub fn uniform_keys(count: usize, range: i64, seed: u64) -> Vec<i64> {
    let mut rng = rqc_tests::Rng::new(seed);
    (0..count).map(|_| 1 + rng.below(range as u64)).collect()
}
