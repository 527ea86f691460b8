//! A real etcd cluster for a test: members on free loopback ports, data in a temporary directory, killed on drop.
//!
//! Shared by the runtime's store tests (included by path) and this crate's
//! suites, so it uses the standard library and libc only. The tests need
//! `etcd` and `etcdctl` on PATH (`scripts/test` installs them).

#![allow(dead_code)]

use std::net::TcpListener;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

/// The operation limit test clusters start with: the installed programs'
/// largest mutations fit (decisions.md).
pub const TEST_MAX_TXN_OPS: usize = 1024;

/// One member: its process (None once killed) and its ports.
pub struct Member {
    pub name: String,
    pub client_port: u16,
    pub peer_port: u16,
    child: Option<Child>,
    args: Vec<String>,
}

pub struct EtcdCluster {
    pub members: Vec<Member>,
    dir: PathBuf,
    /// Whether the members speak TLS (their client URLs are https).
    pub tls: bool,
    /// What `etcdctl` is given to reach them over TLS.
    ctl_tls: Vec<String>,
}

/// Settings of a cluster beyond its size.
#[derive(Clone, Debug, Default)]
pub struct ClusterOptions {
    /// TLS on the client port: (CA, member certificate, member key) files.
    /// etcd 3.4 then asks every client for a certificate the CA signed.
    pub tls: Option<(PathBuf, PathBuf, PathBuf)>,
    /// The client certificate and key `etcdctl` shows a TLS cluster.
    pub client: Option<(PathBuf, PathBuf)>,
    /// `--max-txn-ops` (TEST_MAX_TXN_OPS when None).
    pub max_txn_ops: Option<usize>,
    /// `--max-request-bytes` (etcd's default, 1.5 MiB, when None).
    pub max_request_bytes: Option<usize>,
}

/// The KV requests the member at `port` (plain http) has received.
fn kv_requests_of(port: u16) -> u64 {
    use std::io::{Read, Write};
    let mut stream =
        std::net::TcpStream::connect(("127.0.0.1", port)).expect("the member's client port");
    stream
        .write_all(b"GET /metrics HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
        .expect("a request for the member's metrics");
    let mut text = String::new();
    stream
        .read_to_string(&mut text)
        .expect("the member's metrics");
    let counted: Vec<u64> = text
        .lines()
        .filter(|line| {
            line.starts_with("grpc_server_started_total{")
                && line.contains("grpc_service=\"etcdserverpb.KV\"")
                && ["Range", "Txn", "Put", "DeleteRange"]
                    .iter()
                    .any(|m| line.contains(&format!("grpc_method=\"{m}\"")))
        })
        .filter_map(|line| line.rsplit(' ').next()?.parse::<f64>().ok())
        .map(|n| n as u64)
        .collect();
    assert_eq!(
        counted.len(),
        4,
        "the member's metrics name the four KV calls"
    );
    counted.iter().sum()
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free loopback port")
}

/// Panics with the fix when etcd is not installed.
pub fn require_etcd() {
    let found = Command::new("etcd")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    assert!(
        found,
        "etcd is not installed: run scripts/test (it installs etcd-server), or `apt-get install -y etcd-server`"
    );
}

impl EtcdCluster {
    /// Starts `size` members and waits until the cluster has a leader.
    pub fn start(size: usize) -> EtcdCluster {
        EtcdCluster::start_with(size, ClusterOptions::default())
    }

    pub fn start_with(size: usize, options: ClusterOptions) -> EtcdCluster {
        require_etcd();
        static SEQUENCE: AtomicU32 = AtomicU32::new(0);
        let dir = std::env::temp_dir().join(format!(
            "rqc-etcd-{}-{}",
            std::process::id(),
            SEQUENCE.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir).expect("a temporary directory");
        let scheme = if options.tls.is_some() {
            "https"
        } else {
            "http"
        };
        let mut members: Vec<Member> = (0..size)
            .map(|i| Member {
                name: format!("m{i}"),
                client_port: free_port(),
                peer_port: free_port(),
                child: None,
                args: Vec::new(),
            })
            .collect();
        let initial: Vec<String> = members
            .iter()
            .map(|m| format!("{}=http://127.0.0.1:{}", m.name, m.peer_port))
            .collect();
        let initial = initial.join(",");
        let max_txn_ops = options.max_txn_ops.unwrap_or(TEST_MAX_TXN_OPS);
        for member in &mut members {
            let client = format!("{scheme}://127.0.0.1:{}", member.client_port);
            let peer = format!("http://127.0.0.1:{}", member.peer_port);
            let mut args = vec![
                format!("--name={}", member.name),
                format!("--data-dir={}", dir.join(&member.name).display()),
                format!("--listen-client-urls={client}"),
                format!("--advertise-client-urls={client}"),
                format!("--listen-peer-urls={peer}"),
                format!("--initial-advertise-peer-urls={peer}"),
                format!("--initial-cluster={initial}"),
                "--initial-cluster-state=new".to_string(),
                format!("--initial-cluster-token=rqc-{}", dir.display()),
                format!("--max-txn-ops={max_txn_ops}"),
                // Short elections, so a test that kills the leader is quick.
                "--heartbeat-interval=50".to_string(),
                "--election-timeout=500".to_string(),
                "--logger=zap".to_string(),
                "--log-level=error".to_string(),
            ];
            if let Some(bytes) = options.max_request_bytes {
                args.push(format!("--max-request-bytes={bytes}"));
            }
            if let Some((ca, cert, key)) = &options.tls {
                args.push(format!("--trusted-ca-file={}", ca.display()));
                args.push(format!("--cert-file={}", cert.display()));
                args.push(format!("--key-file={}", key.display()));
            }
            member.args = args;
        }
        let mut ctl_tls = Vec::new();
        if let Some((ca, _, _)) = &options.tls {
            ctl_tls.push(format!("--cacert={}", ca.display()));
        }
        if let Some((cert, key)) = &options.client {
            ctl_tls.push(format!("--cert={}", cert.display()));
            ctl_tls.push(format!("--key={}", key.display()));
        }
        let mut cluster = EtcdCluster {
            members,
            dir,
            tls: options.tls.is_some(),
            ctl_tls,
        };
        for i in 0..size {
            cluster.restart(i);
        }
        cluster.wait_ready();
        cluster
    }

    /// The KV requests (Range, Txn, Put, DeleteRange) every member has
    /// received, read from their metrics: what the round-trip tests diff
    /// around a run (spec/cost.md §11).
    pub fn kv_requests(&self) -> u64 {
        self.members
            .iter()
            .filter(|m| m.child.is_some())
            .map(|m| kv_requests_of(m.client_port))
            .sum()
    }

    /// Starts member `i` again (with its data) after [`EtcdCluster::kill`].
    pub fn restart(&mut self, i: usize) {
        let log = std::fs::File::create(self.dir.join(format!("{}.log", self.members[i].name)))
            .expect("a log file");
        let mut command = Command::new("etcd");
        command
            .args(&self.members[i].args)
            .stdin(Stdio::null())
            .stdout(log.try_clone().expect("a log file"))
            .stderr(log);
        // The member dies with the thread that started it, should the test
        // process end without dropping the cluster.
        unsafe {
            command.pre_exec(|| {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                Ok(())
            });
        }
        self.members[i].child = Some(command.spawn().expect("etcd starts"));
    }

    fn wait_ready(&self) {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let ok = self
                .etcdctl_command()
                .args(["put", "rqc-ready", "1"])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|s| s.success());
            if ok {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "the etcd cluster did not start within 30 s; its logs are in {}",
                self.dir.display()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// `host:port` of each member's client URL.
    pub fn endpoints(&self) -> Vec<String> {
        self.members
            .iter()
            .map(|m| format!("127.0.0.1:{}", m.client_port))
            .collect()
    }

    /// The URL of a database under `prefix` on this cluster.
    pub fn url(&self, prefix: &str) -> String {
        format!("etcd://{}/{prefix}", self.endpoints().join(","))
    }

    /// An `etcdctl` (API v3) aimed at every member.
    pub fn etcdctl_command(&self) -> Command {
        let scheme = if self.tls { "https" } else { "http" };
        let endpoints: Vec<String> = self
            .endpoints()
            .iter()
            .map(|e| format!("{scheme}://{e}"))
            .collect();
        let mut command = Command::new("etcdctl");
        command
            .env("ETCDCTL_API", "3")
            .arg(format!("--endpoints={}", endpoints.join(",")))
            .arg("--command-timeout=10s")
            .args(&self.ctl_tls);
        command
    }

    /// Runs `etcdctl` with `args`; panics with its output when it fails.
    pub fn etcdctl(&self, args: &[&str]) -> String {
        let out = self
            .etcdctl_command()
            .args(args)
            .output()
            .expect("etcdctl runs");
        assert!(
            out.status.success(),
            "etcdctl {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// The index of the member that leads, from `etcdctl endpoint status`.
    pub fn leader(&self) -> Option<usize> {
        let deadline = Instant::now() + Duration::from_secs(20);
        while Instant::now() < deadline {
            for (i, member) in self.members.iter().enumerate() {
                if member.child.is_none() {
                    continue;
                }
                let out = Command::new("etcdctl")
                    .env("ETCDCTL_API", "3")
                    .arg(format!(
                        "--endpoints=http://127.0.0.1:{}",
                        member.client_port
                    ))
                    .args(["endpoint", "status", "-w", "json"])
                    .output();
                let Ok(out) = out else { continue };
                let text = String::from_utf8_lossy(&out.stdout);
                // One status: "member_id":A ... "leader":B; the member leads when A == B.
                let field = |name: &str| {
                    text.split(&format!("\"{name}\":"))
                        .nth(1)
                        .and_then(|rest| rest.split(|c: char| !c.is_ascii_digit()).next())
                        .map(str::to_string)
                };
                if let (Some(id), Some(leader)) = (field("member_id"), field("leader")) {
                    if id == leader && leader != "0" {
                        return Some(i);
                    }
                }
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        None
    }

    /// Kills member `i` at once (SIGKILL), as a crash would.
    pub fn kill(&mut self, i: usize) {
        if let Some(mut child) = self.members[i].child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

impl Drop for EtcdCluster {
    fn drop(&mut self) {
        for i in 0..self.members.len() {
            self.kill(i);
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
