//! The bench drivers' command lines: `--name value` options, numbers, flags and the durability level, read the same way by each driver.

use rqc::Durability;

/// A driver's arguments, after the program's name.
pub struct Args(Vec<String>);

impl Args {
    pub fn from_env() -> Args {
        Args(std::env::args().skip(1).collect())
    }

    /// The value after `name`, when given.
    pub fn value(&self, name: &str) -> Option<String> {
        self.0
            .iter()
            .position(|a| a == name)
            .and_then(|i| self.0.get(i + 1))
            .cloned()
    }

    /// The number after `name` (`1_000_000` as well), or `default`; a
    /// value that is no number stops the driver with the option's name.
    pub fn number(&self, name: &str, default: u64) -> u64 {
        self.value(name).map_or(default, |v| {
            v.replace('_', "")
                .parse()
                .unwrap_or_else(|_| panic!("{name} takes a number"))
        })
    }

    /// Whether `name` is given.
    pub fn flag(&self, name: &str) -> bool {
        self.0.iter().any(|a| a == name)
    }

    /// `--durability full|normal|none`, or `default`.
    pub fn durability(&self, default: Durability) -> Durability {
        self.value("--durability").map_or(default, |d| {
            Durability::named(&d)
                .unwrap_or_else(|| panic!("--durability takes full, normal or none"))
        })
    }
}
