"""An HTTPS server on 127.0.0.1 with a certificate for a name, signed by a CA made for the
test: what the URL policy's transport must still reach by name (SNI, the certificate check,
the Host header) while it connects to the address it checked."""

from __future__ import annotations

import datetime
import ssl
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from tests.external.site import serving


@dataclass
class TlsSite:
    port: int
    ca_file: Path
    server_names: list[str | None] = field(default_factory=list)
    """The SNI of each handshake."""
    hosts: list[str] = field(default_factory=list)
    """The Host header of each request."""


def _certificate(
    subject: str, key: ec.EllipticCurvePrivateKey, issuer: x509.Name | None,
    issuer_key: ec.EllipticCurvePrivateKey | None, *, ca: bool,
) -> x509.Certificate:  # fmt: skip
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, subject)])
    now = datetime.datetime.now(datetime.UTC)
    builder = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(issuer or name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(hours=1))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
    )
    if not ca:
        builder = builder.add_extension(
            x509.SubjectAlternativeName([x509.DNSName(subject)]), critical=False
        )
    return builder.sign(issuer_key or key, hashes.SHA256())


@contextmanager
def serve_tls(name: str, folder: Path, body: bytes) -> Iterator[TlsSite]:
    """Serves ``body`` over HTTPS on 127.0.0.1 with a certificate for ``name``."""
    ca_key, key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    ca = _certificate("ralph-tui test CA", ca_key, None, None, ca=True)
    leaf = _certificate(name, key, ca.subject, ca_key, ca=False)
    pem = serialization.Encoding.PEM
    (folder / "ca.pem").write_bytes(ca.public_bytes(pem))
    (folder / "leaf.pem").write_bytes(leaf.public_bytes(pem))
    (folder / "leaf.key").write_bytes(
        key.private_bytes(pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(folder / "leaf.pem", folder / "leaf.key")
    site = TlsSite(0, folder / "ca.pem")

    def remember(_socket: ssl.SSLObject, server_name: str | None, _context: ssl.SSLContext) -> None:
        site.server_names.append(server_name)

    context.sni_callback = remember

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            site.hosts.append(self.headers.get("Host", ""))
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *_args: object) -> None:
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    site.port = server.server_address[1]
    with serving(server):
        yield site
