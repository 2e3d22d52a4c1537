"""The Python client on a server that needs a bearer token, and on one that needs mutual TLS."""
import hashlib
import os
import pathlib
import subprocess

import pytest

import resched
from conftest import Server


@pytest.fixture(scope="module")
def token_server(tmp_path_factory):
    token = "python-client-token"
    tokens = tmp_path_factory.mktemp("tokens") / "tokens.yaml"
    digest = hashlib.sha256(token.encode()).hexdigest()
    tokens.write_text(f'tokens:\n  - {{sha256: "{digest}", tenant: py, role: admin}}\n')
    running = Server("--tokens-file", str(tokens))
    yield running, token
    running.stop()


def test_calls_carry_the_token_given_from_a_file_or_the_environment(token_server, tmp_path,
                                                                    monkeypatch):
    server, token = token_server
    with resched.Client(server.address) as anonymous:
        with pytest.raises(resched.Unauthenticated):
            anonymous.clusters()
    token_file = tmp_path / "token"
    token_file.write_text(f"  {token}\n")
    with resched.Client(server.address, token_file=token_file) as c:
        c.create_cluster("tokened", 4, simulated=True)
    monkeypatch.setenv("RESCHED_TOKEN", token)
    with resched.Client(server.address) as c:
        assert "tokened" in [x.spec.name for x in c.clusters()]
    with resched.Client(server.address, token="wrong") as c:
        with pytest.raises(resched.Unauthenticated):
            c.clusters()


def openssl(*args, cwd):
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


def make_certificates(directory):
    """A CA, a server certificate for 127.0.0.1 and a client certificate, all signed by it."""
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=test CA",
            "-keyout", "ca.key", "-out", "ca.pem", cwd=directory)
    for name, extension in (("server", "subjectAltName=IP:127.0.0.1,DNS:localhost"),
                            ("client", "extendedKeyUsage=clientAuth")):
        openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", f"/CN={name}",
                "-keyout", f"{name}.key", "-out", f"{name}.csr", cwd=directory)
        (directory / f"{name}.ext").write_text(extension + "\n")
        openssl("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
                "-CAcreateserial", "-days", "1", "-extfile", f"{name}.ext",
                "-out", f"{name}.pem", cwd=directory)
    return pathlib.Path(directory)


def test_mutual_tls_needs_the_ca_and_the_client_certificate(tmp_path):
    certs = make_certificates(tmp_path)
    server = Server("--tls-cert", str(certs / "server.pem"), "--tls-key", str(certs / "server.key"),
                    "--tls-client-ca", str(certs / "ca.pem"))
    try:
        with resched.Client(server.address, ca=certs / "ca.pem", cert=certs / "client.pem",
                            key=certs / "client.key", timeout=10) as c:
            c.create_cluster("tls", 4, simulated=True)
            assert c.cluster("tls").capacity == 4
        with resched.Client(server.address, ca=certs / "ca.pem", timeout=5) as c:
            with pytest.raises(resched.ReschedError):
                c.clusters()
    finally:
        server.stop()


def test_tls_files_default_to_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("RESCHED_TLS_CA", os.fspath(tmp_path / "missing-ca.pem"))
    with pytest.raises(ValueError, match="ca: cannot read"):
        resched.Client("127.0.0.1:1")
