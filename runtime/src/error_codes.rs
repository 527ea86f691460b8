//! Every runtime error code in one registry, each with the kind of failure it is: what decides whether a run is tried again, whether a load stops whole, and the CLI's exit status.
//!
//! spec/errors.md says what each code means; `tests/tests/error_codes.rs`
//! holds this registry to it and to the codes the program emits, so a new
//! code is given its kind here or the tests fail.

/// The kind of failure an error is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// The data, the program's rules or the caller refuse what was asked:
    /// a write, an argument, a row, a plan, a request (most codes).
    Refused,
    /// Input this rqc cannot use: a directory that is no database, one of
    /// another version, no program to run, a write given to a command that
    /// only reads, a source file too large.
    Unusable,
    /// The database cannot be written by this process: opened read-only,
    /// or permission denied.
    Access,
    /// Another writer held the database past the wait.
    Busy,
    /// A concurrent transaction won: nothing was stored, and the run may be
    /// tried again.
    Conflict,
    /// The store's map or the disk is full.
    Full,
    /// The storage engine failed.
    Store,
    /// Stored data is damaged.
    Damage,
    /// A commit larger than the store takes in one request (etcd's limits).
    RequestLimit,
    /// A live subscription's last event: the program changed under it.
    Ended,
    /// Another process installed a program of another schema since this
    /// handle was opened: nothing was written or answered, and the same
    /// request on a handle opened again is planned for the new schema.
    Stale,
    /// A bug in rqc: a run past its proved bound, a plan it could not run.
    Bug,
}

impl ErrorKind {
    /// Whether the store failed, not the data or the program: such an
    /// error stops a run or a load whole, whatever row it met.
    pub fn is_store_failure(self) -> bool {
        matches!(
            self,
            ErrorKind::Store
                | ErrorKind::Busy
                | ErrorKind::Access
                | ErrorKind::Full
                | ErrorKind::Damage
                | ErrorKind::Conflict
        )
    }
}

/// Every code a runtime error carries, in order, with its kind.
pub const REGISTRY: &[(&str, ErrorKind)] = &[
    ("E0009", ErrorKind::Unusable),
    ("E0450", ErrorKind::Refused),
    ("E0451", ErrorKind::Refused),
    ("E0452", ErrorKind::Refused),
    ("E0501", ErrorKind::Refused),
    ("E0502", ErrorKind::Refused),
    ("E0503", ErrorKind::Refused),
    ("E0504", ErrorKind::Refused),
    ("E0505", ErrorKind::Refused),
    ("E0506", ErrorKind::Refused),
    ("E0510", ErrorKind::Refused),
    ("E0511", ErrorKind::Unusable),
    ("E0512", ErrorKind::Unusable),
    ("E0513", ErrorKind::Unusable),
    ("E0514", ErrorKind::Unusable),
    ("E0515", ErrorKind::Refused),
    ("E0516", ErrorKind::Unusable),
    ("E0517", ErrorKind::Unusable),
    ("E0518", ErrorKind::Unusable),
    ("E0519", ErrorKind::Refused),
    ("E0520", ErrorKind::Refused),
    ("E0521", ErrorKind::Refused),
    ("E0522", ErrorKind::Refused),
    ("E0523", ErrorKind::Refused),
    ("E0524", ErrorKind::Refused),
    ("E0525", ErrorKind::Refused),
    ("E0526", ErrorKind::Refused),
    ("E0527", ErrorKind::Refused),
    ("E0528", ErrorKind::Refused),
    ("E0529", ErrorKind::Refused),
    ("E0530", ErrorKind::Refused),
    ("E0531", ErrorKind::Refused),
    ("E0532", ErrorKind::Refused),
    ("E0533", ErrorKind::Refused),
    ("E0534", ErrorKind::Refused),
    ("E0535", ErrorKind::Refused),
    ("E0538", ErrorKind::Refused),
    ("E0539", ErrorKind::Refused),
    ("E0540", ErrorKind::Busy),
    ("E0541", ErrorKind::Access),
    ("E0542", ErrorKind::Full),
    ("E0543", ErrorKind::Access),
    ("E0544", ErrorKind::Refused),
    ("E0545", ErrorKind::Full),
    ("E0546", ErrorKind::Bug),
    ("E0550", ErrorKind::Stale),
    ("E0551", ErrorKind::Refused),
    ("E0552", ErrorKind::Refused),
    ("E0553", ErrorKind::Refused),
    ("E0554", ErrorKind::Refused),
    ("E0555", ErrorKind::Refused),
    ("E0560", ErrorKind::Refused),
    ("E0561", ErrorKind::Refused),
    ("E0562", ErrorKind::Refused),
    ("E0563", ErrorKind::Refused),
    ("E0564", ErrorKind::RequestLimit),
    ("E0565", ErrorKind::RequestLimit),
    ("E0566", ErrorKind::Refused),
    ("E0567", ErrorKind::Refused),
    ("E0568", ErrorKind::Refused),
    ("E0569", ErrorKind::Refused),
    ("E0570", ErrorKind::Refused),
    ("E0572", ErrorKind::Refused),
    ("E0573", ErrorKind::Refused),
    ("E0574", ErrorKind::Refused),
    ("E0575", ErrorKind::Refused),
    ("E0576", ErrorKind::Refused),
    ("E0577", ErrorKind::Refused),
    ("E0578", ErrorKind::Bug),
    ("E0579", ErrorKind::Bug),
    ("E0580", ErrorKind::Refused),
    ("E0581", ErrorKind::Refused),
    ("E0582", ErrorKind::Bug),
    ("E0583", ErrorKind::Refused),
    ("E0584", ErrorKind::Refused),
    ("E0585", ErrorKind::Refused),
    ("E0586", ErrorKind::Refused),
    ("E0587", ErrorKind::Ended),
    ("E0588", ErrorKind::Ended),
    ("E0589", ErrorKind::Ended),
    ("E0590", ErrorKind::Store),
    ("E0591", ErrorKind::Damage),
    ("E0592", ErrorKind::Refused),
    ("E0593", ErrorKind::Refused),
    ("E0594", ErrorKind::Bug),
    ("E0595", ErrorKind::Conflict),
    ("E0596", ErrorKind::Refused),
    ("E0597", ErrorKind::Refused),
    ("E0599", ErrorKind::Bug),
    ("E0600", ErrorKind::Refused),
    ("E0607", ErrorKind::Refused),
    ("E0608", ErrorKind::Unusable),
    ("E0610", ErrorKind::Refused),
    ("E0611", ErrorKind::Refused),
    ("E0612", ErrorKind::Refused),
    ("E0613", ErrorKind::Refused),
    ("E0614", ErrorKind::Refused),
    ("E0615", ErrorKind::Refused),
    ("E0616", ErrorKind::Refused),
    ("E0620", ErrorKind::Refused),
    ("E0621", ErrorKind::Refused),
    ("E0622", ErrorKind::Refused),
    ("E0623", ErrorKind::Refused),
    ("E0624", ErrorKind::Refused),
    ("E0625", ErrorKind::Refused),
    ("E0626", ErrorKind::Refused),
    ("E0627", ErrorKind::Refused),
    ("E0630", ErrorKind::Refused),
    ("E0631", ErrorKind::Refused),
    ("E0632", ErrorKind::Refused),
    ("E0633", ErrorKind::Refused),
    ("E0634", ErrorKind::Refused),
    ("E0635", ErrorKind::Refused),
    ("E0640", ErrorKind::Refused),
    ("E0641", ErrorKind::Refused),
    ("E0660", ErrorKind::Refused),
    ("E0661", ErrorKind::Refused),
    ("E0662", ErrorKind::Refused),
    ("E0663", ErrorKind::Refused),
    ("E0664", ErrorKind::Refused),
    ("E0665", ErrorKind::Refused),
    ("E0666", ErrorKind::Refused),
    ("E0667", ErrorKind::Refused),
    ("E0668", ErrorKind::Refused),
    ("E0681", ErrorKind::Refused),
    ("E0682", ErrorKind::Unusable),
];

/// The kind of `code`; a code missing from the registry (the tests keep
/// none) is taken as a refusal.
pub fn kind_of(code: &str) -> ErrorKind {
    REGISTRY
        .binary_search_by(|(c, _)| (*c).cmp(code))
        .map(|i| REGISTRY[i].1)
        .unwrap_or(ErrorKind::Refused)
}
