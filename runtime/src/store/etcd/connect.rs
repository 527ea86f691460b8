//! Reaching a database on etcd: its URL, the client's options, and the marker a new database gets.
//!
//! `etcd://host:port,host:port/prefix` names the cluster's members (the
//! client is given all of them, and fails over among them) and the key
//! prefix that holds the database: several databases share one cluster.
//! The prefix holds a marker, `PREFIX/store`, written when the database is
//! made, which records the cluster's operation limit measured then.

use super::errors::{from_etcd, unreachable, MAX_REQUEST_BYTES};
use crate::error::{Result, RuntimeError};
use etcd_client::{
    Certificate, Client, ConnectOptions, GetOptions, Identity, TlsOptions, Txn, TxnOp,
};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The environment variable the CLI reads the etcd password from (never a flag).
pub const PASSWORD_VARIABLE: &str = "RQC_ETCD_PASSWORD";

/// How to reach a cluster beyond its URL: TLS files and a user.
#[derive(Clone, Debug, Default)]
pub struct EtcdOptions {
    /// The CA certificate (PEM) that signed the members' certificates:
    /// given, the client speaks TLS.
    pub ca: Option<PathBuf>,
    /// A client certificate and its key (PEM), for a cluster that asks
    /// for one (`--client-cert-auth`).
    pub cert: Option<PathBuf>,
    pub key: Option<PathBuf>,
    /// A user of a cluster with auth enabled, and its password.
    pub user: Option<String>,
    pub password: Option<String>,
}

/// A parsed `etcd://` URL.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EtcdUrl {
    /// `host:port` of each member.
    pub members: Vec<String>,
    /// The database's key prefix, without its trailing `/`.
    pub prefix: String,
}

/// Whether `db` (a `--db` value) names a database on etcd.
pub fn is_etcd_url(db: &str) -> bool {
    db.starts_with("etcd://")
}

impl EtcdUrl {
    /// Parses `etcd://host:port[,host:port...]/prefix` (E0560 otherwise).
    pub fn parse(url: &str) -> Result<EtcdUrl> {
        let malformed = |why: &str| {
            RuntimeError::new(
                "E0560",
                format!("`{url}` is no etcd database URL: {why}"),
                "write it as etcd://HOST:PORT[,HOST:PORT...]/PREFIX, e.g. etcd://127.0.0.1:2379/app",
            )
        };
        let rest = url
            .strip_prefix("etcd://")
            .ok_or_else(|| malformed("it does not start with etcd://"))?;
        let (hosts, prefix) = rest
            .split_once('/')
            .ok_or_else(|| malformed("it names no prefix after the members"))?;
        let prefix = prefix.trim_end_matches('/');
        if prefix.is_empty() {
            return Err(malformed("its prefix is empty"));
        }
        if prefix.contains('\0') {
            return Err(malformed("its prefix holds a NUL character"));
        }
        let members: Vec<String> = hosts.split(',').map(str::to_string).collect();
        for member in &members {
            let port = member
                .rsplit_once(':')
                .map(|(host, port)| (host, port.parse::<u16>()));
            if !matches!(port, Some((host, Ok(_))) if !host.is_empty()) {
                return Err(malformed(&format!("`{member}` is not HOST:PORT")));
            }
        }
        Ok(EtcdUrl {
            members,
            prefix: prefix.to_string(),
        })
    }
}

/// A client of the cluster, with every member as an endpoint.
pub(crate) async fn connect(url: &str, parsed: &EtcdUrl, options: &EtcdOptions) -> Result<Client> {
    let scheme = if options.ca.is_some() {
        "https"
    } else {
        "http"
    };
    let endpoints: Vec<String> = parsed
        .members
        .iter()
        .map(|member| format!("{scheme}://{member}"))
        .collect();
    let mut connect = ConnectOptions::new()
        .with_connect_timeout(Duration::from_secs(2))
        .with_timeout(Duration::from_secs(5))
        // A member that died is noticed within seconds, not at the OS's TCP timeout.
        .with_keep_alive(Duration::from_secs(2), Duration::from_secs(2));
    if let Some(tls) = tls(options)? {
        connect = connect.with_tls(tls);
    }
    match (&options.user, &options.password) {
        (Some(user), Some(password)) => connect = connect.with_user(user, password),
        (Some(user), None) => {
            return Err(RuntimeError::new(
                "E0574",
                format!("the etcd user `{user}` is given without a password"),
                format!("put its password in the environment variable {PASSWORD_VARIABLE}"),
            ))
        }
        (None, Some(_)) => {
            return Err(RuntimeError::new(
                "E0574",
                "an etcd password is given without a user".to_string(),
                "name the user with --user",
            ))
        }
        (None, None) => {}
    }
    // With a user, connecting authenticates: a request to one member.
    retrying_for(CONNECT_RETRIED, || {
        Client::connect(endpoints.clone(), Some(connect.clone()))
    })
    .await
    .map_err(|e| from_etcd(url, e))
}

/// The TLS configuration `options` ask for, reading its files (E0567).
fn tls(options: &EtcdOptions) -> Result<Option<TlsOptions>> {
    let read = |path: &Path| {
        std::fs::read(path).map_err(|e| {
            RuntimeError::new(
                "E0567",
                format!("cannot read the TLS file `{}`: {e}", path.display()),
                "give --ca, --cert and --key readable PEM files",
            )
        })
    };
    let Some(ca) = &options.ca else {
        if options.cert.is_some() || options.key.is_some() {
            return Err(RuntimeError::new(
                "E0567",
                "a client certificate is given without the CA certificate".to_string(),
                "give --ca with the CA that signed the cluster's certificates",
            ));
        }
        return Ok(None);
    };
    let mut tls = TlsOptions::new().ca_certificate(Certificate::from_pem(read(ca)?));
    match (&options.cert, &options.key) {
        (Some(cert), Some(key)) => tls = tls.identity(Identity::from_pem(read(cert)?, read(key)?)),
        (None, None) => {}
        _ => {
            return Err(RuntimeError::new(
                "E0567",
                "a client certificate needs both --cert and --key".to_string(),
                "give both, or neither",
            ))
        }
    }
    Ok(Some(tls))
}

/// A KV client that takes responses of any size etcd sends (its gRPC
/// server sends up to 2 GiB): tonic's default 4 MiB would refuse a range of
/// rows the proof allows.
pub(crate) fn kv(client: &Client) -> etcd_client::KvClient {
    client
        .kv_client()
        .max_decoding_message_size(i32::MAX as usize)
}

/// What the marker of a database records.
#[derive(serde::Serialize, serde::Deserialize)]
pub(crate) struct Marker {
    pub(crate) backend: String,
    /// The cluster's --max-txn-ops when the database was made.
    pub(crate) max_txn_ops: usize,
    /// The largest request the cluster took when the database was made
    /// (measured: `request_limit`). Absent (0) in a database made before
    /// rqc recorded it: then measured when connecting.
    #[serde(default)]
    pub(crate) max_request_bytes: usize,
}

/// The marker's key under a database's prefix (`prefix` ends with `/`).
pub(crate) fn marker_key(prefix: &[u8]) -> Vec<u8> {
    [prefix, b"store"].concat()
}

/// The database's marker, made with the cluster's measured operation limit
/// when the prefix holds none; refuses a prefix that holds keys but no
/// marker (E0568): it is not an rqc database.
pub(crate) async fn marker(url: &str, client: &Client, prefix: &[u8]) -> Result<Marker> {
    let key = marker_key(prefix);
    let mut kv = client.kv_client();
    loop {
        let found = retrying_for(CONNECT_RETRIED, || {
            let (mut kv, key) = (kv.clone(), key.clone());
            async move { kv.get(key, None).await }
        })
        .await
        .map_err(|e| from_etcd(url, e))?;
        if let Some(stored) = found.kvs().first() {
            let mut marker = serde_json::from_slice::<Marker>(stored.value())
                .ok()
                .filter(|m| m.backend == "etcd" && m.max_txn_ops > 0)
                .ok_or_else(|| {
                    RuntimeError::new(
                        "E0568",
                        format!("the marker `{}` at `{url}` is not one rqc wrote", String::from_utf8_lossy(&key)),
                        "it was made by a newer rqc, or another program uses the prefix: give --db another prefix",
                    )
                })?;
            if marker.max_request_bytes == 0 {
                // Made before rqc recorded it: measured on each connection.
                marker.max_request_bytes = request_limit(url, client, &key).await?;
            }
            return Ok(marker);
        }
        let end = crate::store::prefix_end(prefix).unwrap_or_default();
        let others = retrying_for(CONNECT_RETRIED, || {
            let (mut kv, end) = (kv.clone(), end.clone());
            let options = GetOptions::new()
                .with_range(end)
                .with_limit(1)
                .with_keys_only();
            async move { kv.get(prefix.to_vec(), Some(options)).await }
        })
        .await
        .map_err(|e| from_etcd(url, e))?;
        if !others.kvs().is_empty() {
            return Err(RuntimeError::new(
                "E0568",
                format!(
                    "the prefix `{}` at `{url}` holds keys, and is not an rqc database",
                    String::from_utf8_lossy(prefix)
                ),
                "give --db a prefix no other program uses",
            ));
        }
        let marker = Marker {
            backend: "etcd".to_string(),
            max_txn_ops: op_limit(url, client, &key).await?,
            max_request_bytes: request_limit(url, client, &key).await?,
        };
        let value = serde_json::to_vec(&marker).expect("a marker serializes");
        // Made once: of two processes making it at once, one writes it and
        // the other reads it on its next turn.
        let made = kv
            .txn(
                Txn::new()
                    .when([etcd_client::Compare::version(
                        key.clone(),
                        etcd_client::CompareOp::Equal,
                        0,
                    )])
                    .and_then([TxnOp::put(key.clone(), value, None)]),
            )
            .await
            .map_err(|e| from_etcd(url, e))?;
        if made.succeeded() {
            return Ok(marker);
        }
    }
}

/// The cluster's --max-txn-ops, measured: the most reads of one key that
/// one transaction may hold (etcd refuses more, and counts compares and
/// operations alike). The key read is `key`, under the database's prefix,
/// which a user with rights on the prefix only may read.
async fn op_limit(url: &str, client: &Client, key: &[u8]) -> Result<usize> {
    let fits = |n: usize| {
        let mut kv = client.kv_client();
        async move {
            let ops: Vec<TxnOp> = (0..n).map(|_| TxnOp::get(key.to_vec(), None)).collect();
            match kv.txn(Txn::new().and_then(ops)).await {
                Ok(_) => Ok(true),
                Err(e) if format!("{e}").contains("too many operations") => Ok(false),
                Err(e) => Err(from_etcd(url, e)),
            }
        }
    };
    // Doubling from etcd's default, then halving the gap.
    let (mut good, mut bad) = (0usize, None::<usize>);
    let mut n = 128;
    while bad.is_none() && n <= 1 << 16 {
        if fits(n).await? {
            good = n;
            n *= 2;
        } else {
            bad = Some(n);
        }
    }
    let Some(mut bad) = bad else { return Ok(good) };
    while bad - good > 1 {
        let mid = good + (bad - good) / 2;
        if fits(mid).await? {
            good = mid;
        } else {
            bad = mid;
        }
    }
    if good == 0 {
        return Err(RuntimeError::new(
            "E0572",
            format!("the etcd cluster at `{url}` refused a transaction of one operation"),
            "check the cluster's --max-txn-ops",
        ));
    }
    Ok(good)
}

/// What the recorded request limit leaves below the size of the largest
/// request measured to fit: the envelope etcd wraps around a request
/// (its header) and the framing of the measuring request itself.
const PROBE_HEADROOM: usize = 4096;

/// The largest request the cluster takes, measured with a transaction
/// whose compare never holds (a key's create revision below 0), so the
/// put it carries is never applied: etcd refuses a request over its
/// --max-request-bytes before anything else. etcd's default is tried
/// first, then twice as much up to [`REQUEST_CAP`] while it fits (a
/// default cluster refuses the first doubling at once); between what fits
/// and what does not, the gap is halved until it is small beside what
/// fits.
async fn request_limit(url: &str, client: &Client, key: &[u8]) -> Result<usize> {
    // Past etcd's default, a request the cluster will not take may also
    // end in a cut connection rather than a refusal: once the default has
    // fitted (the cluster answers), a larger one that fails three times
    // does not fit, which can only make the recorded limit smaller. (Once
    // was not enough: a busy member sometimes drops a large request it
    // takes when sent again, and a database then recorded half its limit;
    // three tries 100 ms apart were not enough on a loaded two-core
    // machine either, so up to six, waiting twice as long each time.)
    let fits = |n: usize| {
        let mut kv = client.kv_client();
        async move {
            let never = etcd_client::Compare::create_revision(
                key.to_vec(),
                etcd_client::CompareOp::Less,
                0,
            );
            let txn =
                Txn::new()
                    .when([never])
                    .and_then([TxnOp::put(key.to_vec(), vec![0u8; n], None)]);
            let mut tries = 0;
            loop {
                tries += 1;
                match kv.txn(txn.clone()).await {
                    Ok(_) => return Ok(true),
                    Err(e) if too_big(&e) => return Ok(false),
                    Err(_) if n > MAX_REQUEST_BYTES && tries < 6 => {
                        tokio::time::sleep(Duration::from_millis(100 << tries)).await;
                    }
                    Err(_) if n > MAX_REQUEST_BYTES => return Ok(false),
                    Err(e) => return Err(from_etcd(url, e)),
                }
            }
        }
    };
    let (mut good, mut bad) = (0, MAX_REQUEST_BYTES);
    if fits(MAX_REQUEST_BYTES).await? {
        // Doubling: a default cluster refuses the first try at once.
        good = MAX_REQUEST_BYTES;
        loop {
            let next = (good * 2).min(REQUEST_CAP);
            if !fits(next).await? {
                bad = next;
                break;
            }
            good = next;
            if good == REQUEST_CAP {
                return Ok(REQUEST_CAP - PROBE_HEADROOM);
            }
        }
    }
    while bad - good > (good / 16).max(64) {
        let mid = good + (bad - good) / 2;
        if fits(mid).await? {
            good = mid;
        } else {
            bad = mid;
        }
    }
    Ok(good.saturating_sub(PROBE_HEADROOM).max(1))
}

/// The largest request limit measured: a cluster that takes more is
/// recorded as taking this (etcd itself warns above 10 MiB).
const REQUEST_CAP: usize = 64 << 20;

/// A refusal for size: etcd's own, or gRPC's past its message limit.
fn too_big(error: &etcd_client::Error) -> bool {
    let message = error.to_string();
    message.contains("request is too large") || message.contains("larger than max")
}

/// Runs `attempt` again while the cluster cannot answer, for a few
/// seconds: a member that died leaves the others to answer (the client
/// holds them all), and an election ends within seconds.
pub(crate) async fn retrying_reads<T, F, Fut>(
    attempt: F,
) -> std::result::Result<T, etcd_client::Error>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = std::result::Result<T, etcd_client::Error>>,
{
    retrying_for(READS_RETRIED, attempt).await
}

/// How long a run's read is tried again while no member answers.
const READS_RETRIED: Duration = Duration::from_secs(15);

/// How long connecting is tried again: shorter, so that a cluster that is
/// down is reported soon, yet longer than an election.
const CONNECT_RETRIED: Duration = Duration::from_secs(5);

/// Runs `attempt` again while no member answers, for at most `retried`.
async fn retrying_for<T, F, Fut>(
    retried: Duration,
    mut attempt: F,
) -> std::result::Result<T, etcd_client::Error>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = std::result::Result<T, etcd_client::Error>>,
{
    let deadline = tokio::time::Instant::now() + retried;
    loop {
        match attempt().await {
            Err(e) if unreachable(&e) && tokio::time::Instant::now() < deadline => {
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            done => return done,
        }
    }
}
