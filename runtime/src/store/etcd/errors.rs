//! What an etcd client error means to rqc: each cause its own code (E0560–E0579) and a fix.
//!
//! etcd reports most refusals as a gRPC status with a fixed message
//! (`etcdserver: ...`); the code and the message together name the cause.

use crate::error::RuntimeError;
use etcd_client::Error;

/// The few gRPC status codes told apart here.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Code {
    Unauthenticated,
    PermissionDenied,
    Unavailable,
    DeadlineExceeded,
    Other,
}

/// The gRPC status of `error`, with its message, when it is one.
fn status(error: &Error) -> Option<(Code, String)> {
    let Error::GRpcStatus(status) = error else {
        return None;
    };
    let code = match status.code() {
        tonic::Code::Unauthenticated => Code::Unauthenticated,
        tonic::Code::PermissionDenied => Code::PermissionDenied,
        tonic::Code::Unavailable => Code::Unavailable,
        tonic::Code::DeadlineExceeded => Code::DeadlineExceeded,
        _ => Code::Other,
    };
    Some((code, status.message().to_string()))
}

/// Whether `error` says the cluster could not be reached or could not
/// answer in time (no member, no leader): a read can be tried again.
pub(crate) fn unreachable(error: &Error) -> bool {
    match error {
        Error::TransportError(_) | Error::IoError(_) => true,
        _ => {
            matches!(
                status(error),
                Some((Code::Unavailable | Code::DeadlineExceeded, _))
            ) || status(error).is_some_and(|(_, m)| {
                // A connection reset or cut (a member killed), a request that
                // timed out on the client, an election under way.
                m == "transport error"
                    || m.contains("Timeout expired")
                    || m.contains("leader changed")
                    || m.contains("no leader")
                    || m.contains("request timed out")
            })
        }
    }
}

/// Whether `error` says the request never reached a member (the
/// connection was refused): a commit can then be sent again safely.
pub(crate) fn never_sent(error: &Error) -> bool {
    let text = format!("{error:?}");
    text.contains("Connection refused") || text.contains("tcp connect error")
}

/// The error `error` is for rqc, from a request to the cluster at `url`.
pub(crate) fn from_etcd(url: &str, error: Error) -> RuntimeError {
    if let Some((code, message)) = status(&error) {
        if code == Code::Unauthenticated || message.contains("authentication failed") {
            return RuntimeError::new(
                "E0562",
                format!("the etcd cluster at `{url}` refused the user name or password: {message}"),
                "give the right user with --user and its password in the environment variable RQC_ETCD_PASSWORD",
            );
        }
        if code == Code::PermissionDenied || message.contains("permission denied") {
            return RuntimeError::new(
                "E0563",
                format!("the etcd user has no right to read and write the database's prefix at `{url}`: {message}; nothing was written"),
                "grant the user's role readwrite on the prefix (`etcdctl role grant-permission ROLE readwrite --prefix=true PREFIX/`), or use another prefix",
            );
        }
        if message.contains("too many operations in txn request") {
            return too_many_ops(url, None);
        }
        if message.contains("request is too large") {
            return too_large(url, None);
        }
        if message.contains("required revision has been compacted") {
            return RuntimeError::new(
                "E0569",
                format!("the etcd cluster at `{url}` compacted away the revision this run reads: {message}; nothing was committed"),
                "run it again (a run reads one revision; compact the cluster less often if this recurs)",
            );
        }
        if message.contains("database space exceeded") {
            return RuntimeError::new(
                "E0573",
                format!("the etcd cluster at `{url}` is out of space: {message}; nothing was committed"),
                "compact and defragment the cluster and disarm its NOSPACE alarm (`etcdctl alarm disarm`), or start it with a larger --quota-backend-bytes",
            );
        }
    }
    if unreachable(&error) {
        return RuntimeError::new(
            "E0561",
            format!("no member of the etcd cluster at `{url}` answered: {}", cause(&error)),
            "start the cluster, or give --db the endpoints of its members (etcd://host:port,host:port/prefix); a cluster that speaks TLS needs --ca, and --cert and --key when it asks for a client certificate. Nothing was written",
        );
    }
    RuntimeError::new(
        "E0572",
        format!(
            "the etcd cluster at `{url}` failed the request: {}",
            cause(&error)
        ),
        "check the cluster's health with `etcdctl endpoint health`; nothing was written",
    )
}

/// What went wrong, in a few words: a status's message and the innermost
/// error under it (the operating system's, most often), not the layers of
/// the client's debug output.
fn cause(error: &Error) -> String {
    let mut innermost: Option<&dyn std::error::Error> = None;
    // etcd-client's errors name no source; the status under them does.
    let mut next: Option<&dyn std::error::Error> = match error {
        Error::GRpcStatus(status) => std::error::Error::source(status),
        Error::TransportError(transport) => std::error::Error::source(transport),
        _ => None,
    };
    while let Some(source) = next {
        innermost = Some(source);
        next = source.source();
    }
    let head = match error {
        Error::GRpcStatus(status) => status.message().to_string(),
        other => other.to_string(),
    };
    match innermost.map(|e| e.to_string()) {
        Some(root) if !head.contains(&root) => format!("{head} ({root})"),
        _ => head,
    }
}

/// E0564: a transaction of more operations than the cluster allows.
pub(crate) fn too_many_ops(url: &str, counts: Option<(usize, usize)>) -> RuntimeError {
    let what = match counts {
        Some((ops, limit)) => format!(
            "this commit needs {ops} operations in one etcd transaction, and the cluster at `{url}` allows {limit} (its --max-txn-ops)"
        ),
        None => format!(
            "the etcd cluster at `{url}` refused a transaction of more operations than its --max-txn-ops allows"
        ),
    };
    RuntimeError::new(
        "E0564",
        format!("{what}; nothing was committed"),
        "start every etcd member with a larger --max-txn-ops (e.g. --max-txn-ops 4096) and make a new database, or write fewer rows in one mutation",
    )
}

/// E0565: a request larger than the cluster takes.
pub(crate) fn too_large(url: &str, bytes: Option<(usize, usize)>) -> RuntimeError {
    let what = match bytes {
        Some((bytes, limit)) => format!("this commit is a request of about {bytes} bytes, more than the {limit} bytes the etcd cluster at `{url}` took when the database was made"),
        None => format!("the etcd cluster at `{url}` refused a request larger than its --max-request-bytes"),
    };
    RuntimeError::new(
        "E0565",
        format!("{what}; nothing was committed"),
        "start every etcd member with a larger --max-request-bytes, or write less in one mutation",
    )
}

/// etcd's default limit on one request (--max-request-bytes), 1.5 MiB.
pub(crate) const MAX_REQUEST_BYTES: usize = 1536 * 1024;
