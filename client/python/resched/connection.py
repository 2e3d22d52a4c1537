"""The channel a Client calls on: one server or several replicas, TLS, a bearer token.

Mirrors the C++ CLI (transport/server_list.h, transport/bearer_token.h): several HOST:PORT
entries become one channel holding every address (gRPC's pick_first connects to whichever
accepts: a standby does not listen), its authority the first entry's, and calls wait for a
server up to their deadline instead of failing while one replica takes over from another.
"""
import os
import socket

import grpc

DEFAULT_SERVER = "127.0.0.1:50051"
# Large answers are allowed, as in the CLI: a schedule or a trace export can be big.
_MAX_MESSAGE = 256 * 1024 * 1024


def _read(path, what):
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as error:
        raise ValueError(f"{what}: cannot read {path}: {error.strerror}") from None


def read_token(path):
    """The token in a file, surrounding white space dropped; ValueError naming the file."""
    token = _read(path, "token_file").decode("utf-8", "replace").strip()
    if not token:
        raise ValueError(f"token_file: {path} holds no token")
    return token


def _check_token(token, what):
    if any(ord(c) < 0x20 or ord(c) > 0x7E for c in token):
        raise ValueError(f"{what}: a token is printable ASCII (it travels as gRPC metadata)")
    return token


def _split(servers):
    entries = [s.strip() for s in servers.split(",")] if isinstance(servers, str) else list(servers)
    if not entries or any(not e for e in entries):
        raise ValueError(f"servers: an empty entry in {servers!r}")
    for entry in entries:
        if ":" not in entry:
            raise ValueError(f"servers: {entry!r} has no port (HOST:PORT)")
    return entries


def _resolve(entries):
    """One ipv4: (or ipv6:) target holding every address of every entry."""
    v4, v6 = [], []
    for entry in entries:
        host, sep, port = entry.rpartition(":")
        if not sep or not port.isdigit():
            raise ValueError(f"servers: {entry!r} has no port (HOST:PORT)")
        host = host.strip("[]")
        try:
            infos = socket.getaddrinfo(host, int(port), type=socket.SOCK_STREAM)
        except socket.gaierror as error:
            raise ValueError(f"servers: {host!r} does not resolve: {error}") from None
        for family, _, _, _, address in infos:
            if family == socket.AF_INET:
                v4.append(f"{address[0]}:{address[1]}")
            elif family == socket.AF_INET6:
                v6.append(f"[{address[0]}]:{address[1]}")
    if v4:
        return "ipv4:" + ",".join(dict.fromkeys(v4))
    return "ipv6:" + ",".join(dict.fromkeys(v6))


class _TokenInterceptor(grpc.UnaryUnaryClientInterceptor, grpc.UnaryStreamClientInterceptor):
    """Adds "authorization: Bearer TOKEN" to every call (call credentials would be refused on a
    plaintext channel, and a loopback server without TLS may still require tokens)."""

    def __init__(self, token):
        self._header = ("authorization", f"Bearer {token}")

    def _with_token(self, details):
        metadata = list(details.metadata or ()) + [self._header]
        return details._replace(metadata=metadata)

    def intercept_unary_unary(self, continuation, details, request):
        return continuation(self._with_token(details), request)

    def intercept_unary_stream(self, continuation, details, request):
        return continuation(self._with_token(details), request)


def open_channel(servers=None, ca=None, cert=None, key=None, token=None, token_file=None):
    """(channel, wait_for_ready): a channel to `servers` (HOST:PORT, a list, or
    "HOST:PORT,HOST:PORT"; default $RESCHED_SERVER, else 127.0.0.1:50051), TLS when a CA or a
    client certificate is given (default $RESCHED_TLS_CA, $RESCHED_TLS_CERT, $RESCHED_TLS_KEY),
    with the bearer token of `token`, else `token_file`, else $RESCHED_TOKEN."""
    servers = servers or os.environ.get("RESCHED_SERVER") or DEFAULT_SERVER
    ca = ca or os.environ.get("RESCHED_TLS_CA")
    cert = cert or os.environ.get("RESCHED_TLS_CERT")
    key = key or os.environ.get("RESCHED_TLS_KEY")
    if token is None and token_file is not None:
        token = read_token(token_file)
    elif token is None:
        token = os.environ.get("RESCHED_TOKEN", "").strip() or None
    if token is not None:
        token = _check_token(token.strip(), "token")

    entries = _split(servers)
    several = len(entries) > 1
    target = _resolve(entries) if several else entries[0]
    options = [("grpc.max_receive_message_length", _MAX_MESSAGE)]
    if several:
        options.append(("grpc.default_authority", entries[0]))
    if bool(cert) != bool(key):
        raise ValueError("cert and key: a client certificate needs both")
    if ca or cert:
        credentials = grpc.ssl_channel_credentials(
            root_certificates=_read(ca, "ca") if ca else None,
            private_key=_read(key, "key") if key else None,
            certificate_chain=_read(cert, "cert") if cert else None)
        if several:
            options.append(("grpc.ssl_target_name_override", entries[0].rpartition(":")[0]))
        channel = grpc.secure_channel(target, credentials, options=options)
    else:
        channel = grpc.insecure_channel(target, options=options)
    if token is not None:
        channel = grpc.intercept_channel(channel, _TokenInterceptor(token))
    return channel, several
