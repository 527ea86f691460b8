//! etcd with auth and with TLS: a wrong password, a user without rights on the prefix and a user without its password are refused with their codes and nothing is written; over TLS (certificates made by openssl here) rqc connects with --ca and a client certificate, and without them it is refused.

use super::etcd::etcd_cluster::{ClusterOptions, EtcdCluster};
use super::{repo, write};
use std::path::Path;
use std::process::{Command, Output};

const APP: &str = "
table Team { id: Int key  name: String <= 40 }
mutation add_team(id: Int, name: String) = insert Team { id, name }
query team(id: Int) = Team[id]
";

/// `rqc` with `args`, and the password (if any) in its environment.
fn rqc(args: &[&str], password: Option<&str>) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_rqc"));
    command
        .args(args)
        .current_dir(repo())
        .env("NO_COLOR", "1")
        .env_remove("RQC_ETCD_PASSWORD");
    if let Some(password) = password {
        command.env("RQC_ETCD_PASSWORD", password);
    }
    command.output().expect("rqc runs")
}

fn refused_with(out: &Output, code: &str) {
    let text = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains(&format!("[{code}] Error")), "{text}");
    assert!(text.contains("Help:"), "{text}");
}

#[test]
fn auth_refuses_a_wrong_password_and_a_user_without_rights_and_writes_nothing() {
    let cluster = EtcdCluster::start(1);
    let ctl = |args: &[&str]| cluster.etcdctl(args);
    ctl(&["user", "add", "root:rootpw", "--interactive=false"]);
    ctl(&["role", "add", "app"]);
    ctl(&[
        "role",
        "grant-permission",
        "app",
        "readwrite",
        "--prefix=true",
        "app/",
    ]);
    ctl(&["user", "add", "alice:alicepw", "--interactive=false"]);
    ctl(&["user", "grant-role", "alice", "app"]);
    ctl(&["user", "add", "bob:bobpw", "--interactive=false"]);
    ctl(&["auth", "enable"]);
    let dir = tempfile::tempdir().unwrap();
    let app = write(dir.path(), "app.rq", APP);
    let add = |db: &str, user: &str, password: Option<&str>| {
        let args = [
            "--user", user, "run", "--db", db, &app, "add_team", "--arg", "id=1", "--arg",
            "name=red",
        ];
        rqc(&args, password)
    };
    let (ours, theirs) = (cluster.url("app"), cluster.url("other"));
    refused_with(&add(&ours, "alice", Some("wrong")), "E0562");
    refused_with(&add(&ours, "bob", Some("bobpw")), "E0563");
    refused_with(&add(&theirs, "alice", Some("alicepw")), "E0563");
    refused_with(&add(&ours, "alice", None), "E0574");
    let keys = || {
        let out = cluster
            .etcdctl_command()
            .args([
                "--user",
                "root:rootpw",
                "get",
                "",
                "--prefix",
                "--keys-only",
            ])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter(|k| !k.is_empty() && *k != "rqc-ready")
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    assert_eq!(
        keys(),
        Vec::<String>::new(),
        "nothing is written by a refused user"
    );
    let added = add(&ours, "alice", Some("alicepw"));
    assert!(
        added.status.success(),
        "{}",
        String::from_utf8_lossy(&added.stderr)
    );
    let read = rqc(
        &[
            "--user", "alice", "run", "--db", &ours, "team", "--arg", "id=1",
        ],
        Some("alicepw"),
    );
    assert!(String::from_utf8_lossy(&read.stdout).contains("red"));
    assert!(keys().iter().all(|k| k.starts_with("app/")), "{:?}", keys());
}

/// A CA, and a certificate it signed for `name` valid for 127.0.0.1.
fn certificates(dir: &Path) {
    let openssl = |args: &[&str]| {
        let out = Command::new("openssl")
            .args(args)
            .current_dir(dir)
            .output()
            .expect("openssl runs");
        assert!(
            out.status.success(),
            "openssl {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    openssl(&[
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        "ca.key",
        "-out",
        "ca.pem",
        "-days",
        "2",
        "-subj",
        "/CN=rqc-test-ca",
    ]);
    std::fs::write(
        dir.join("ext"),
        "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth,clientAuth\nbasicConstraints=CA:FALSE\n",
    )
    .unwrap();
    for name in ["server", "client"] {
        let (key, csr, pem) = (
            format!("{name}.key"),
            format!("{name}.csr"),
            format!("{name}.pem"),
        );
        openssl(&[
            "req",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            &key,
            "-out",
            &csr,
            "-subj",
            &format!("/CN={name}"),
        ]);
        openssl(&[
            "x509",
            "-req",
            "-in",
            &csr,
            "-CA",
            "ca.pem",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-out",
            &pem,
            "-days",
            "2",
            "-extfile",
            "ext",
        ]);
    }
}

#[test]
fn tls_connects_with_the_ca_and_a_client_certificate_and_is_refused_without_them() {
    let dir = tempfile::tempdir().unwrap();
    certificates(dir.path());
    let file = |name: &str| dir.path().join(name).display().to_string();
    let cluster = EtcdCluster::start_with(
        1,
        ClusterOptions {
            tls: Some((
                file("ca.pem").into(),
                file("server.pem").into(),
                file("server.key").into(),
            )),
            client: Some((file("client.pem").into(), file("client.key").into())),
            ..ClusterOptions::default()
        },
    );
    let app = write(dir.path(), "app.rq", APP);
    let db = cluster.url("tls");
    let (ca, cert, key) = (file("ca.pem"), file("client.pem"), file("client.key"));
    let add = [
        "run", "--db", &db, &app, "add_team", "--arg", "id=1", "--arg", "name=red",
    ];
    // Without TLS, or without the client certificate the cluster asks for.
    refused_with(&rqc(&add, None), "E0561");
    refused_with(&rqc(&[&["--ca", &ca][..], &add].concat(), None), "E0561");
    refused_with(
        &rqc(&[&["--cert", &cert][..], &add].concat(), None),
        "E0567",
    );
    let keys = cluster.etcdctl(&["get", "", "--prefix", "--keys-only"]);
    assert!(!keys.contains("tls/"), "nothing was written: {keys}");
    let with_client = [&["--ca", &ca, "--cert", &cert, "--key", &key][..], &add].concat();
    let added = rqc(&with_client, None);
    assert!(
        added.status.success(),
        "{}",
        String::from_utf8_lossy(&added.stderr)
    );
    let read = rqc(
        &[
            &with_client[..6],
            &["run", "--db", &db, "team", "--arg", "id=1"][..],
        ]
        .concat(),
        None,
    );
    assert!(
        String::from_utf8_lossy(&read.stdout).contains("red"),
        "{}",
        String::from_utf8_lossy(&read.stderr)
    );
}
