"""The production profile's Temporal certificates (docs/deployment.md, "Only the service reaches
Temporal"): a private CA, the frontend's server certificate, the service's client certificate
and the operator's tools' one. The frontend asks every caller for a client certificate of this
CA (mutual TLS), so a plain Temporal client without the service's certificate cannot send a
workflow update at all.

    python make_certs.py DIRECTORY [SERVER_NAME]

writes, into DIRECTORY (made if missing; existing files are kept, so a restart keeps them):

    ca.pem, private/ca-key.pem    the CA (its key in private/: a volume of its own that only
                                  this step mounts, so no service can mint a certificate)
    server.pem, server-key.pem    the frontend, for SERVER_NAME (default: temporal)
    service.pem, service-key.pem  the service's API and workers (TEMPORAL_TLS_CERT / _KEY)
    ops.pem, ops-key.pem          the namespace step and the Web UI (loopback only)

Certificates last 397 days; run it again with the old files moved away to rotate them.
"""

from __future__ import annotations

import datetime as dt
import sys
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

VALID_DAYS = 397
CLIENTS = {"service": "parametric service", "ops": "parametric operator tools"}


def _name(text: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, text)])


def _issue(subject: str, key, issuer_key, issuer: x509.Name, ca: bool, extensions=()) -> x509.Certificate:
    now = dt.datetime.now(dt.timezone.utc)
    builder = (
        x509.CertificateBuilder().subject_name(_name(subject)).issuer_name(issuer).public_key(key.public_key())
        .serial_number(x509.random_serial_number()).not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + dt.timedelta(days=VALID_DAYS))
        .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
    )
    if ca:
        builder = builder.add_extension(x509.KeyUsage(False, False, False, False, False, True, True, False, False), critical=True)
    else:
        builder = builder.add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(issuer_key.public_key()), critical=False)
    for extension in extensions:
        builder = builder.add_extension(extension, critical=False)
    return builder.sign(issuer_key, hashes.SHA256())


def _write(directory: Path, label: str, cert: x509.Certificate, key, key_directory: Path | None = None) -> None:
    (directory / f"{label}.pem").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file = (key_directory or directory) / f"{label}-key.pem"
    key_file.write_bytes(key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ))
    # Readable by the containers' own users (the service runs as `parametric`, Temporal as
    # `temporal`): the volume is mounted read-only into exactly the services named in
    # temporal-dev.yml, and nothing else on the host reads it.
    key_file.chmod(0o644 if key_directory is None else 0o600)


def make(directory: Path, server_name: str = "temporal") -> dict[str, Path]:
    """The files above in `directory` (kept when ca.pem exists); their paths by label
    ("ca", "ca-key", "server", "server-key", "service", "service-key", "ops", "ops-key")."""
    directory.mkdir(parents=True, exist_ok=True)
    labels = ["ca", "server", *CLIENTS]
    paths = {label: directory / f"{label}.pem" for label in labels}
    paths.update({f"{label}-key": directory / f"{label}-key.pem" for label in labels if label != "ca"})
    paths["ca-key"] = directory / "private" / "ca-key.pem"
    if paths["ca"].exists():
        return paths
    paths["ca-key"].parent.mkdir(exist_ok=True)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca = _issue("parametric Temporal CA", ca_key, ca_key, _name("parametric Temporal CA"), True)
    _write(directory, "ca", ca, ca_key, key_directory=paths["ca-key"].parent)
    server_key = ec.generate_private_key(ec.SECP256R1())
    _write(directory, "server", _issue(server_name, server_key, ca_key, ca.subject, False, [
        x509.SubjectAlternativeName([x509.DNSName(server_name)]),
        x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH, ExtendedKeyUsageOID.CLIENT_AUTH]),  # internode too
    ]), server_key)
    for label, subject in CLIENTS.items():
        key = ec.generate_private_key(ec.SECP256R1())
        _write(directory, label, _issue(subject, key, ca_key, ca.subject, False, [
            x509.ExtendedKeyUsage([ExtendedKeyUsageOID.CLIENT_AUTH]),
        ]), key)
    return paths


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3):
        raise SystemExit(__doc__)
    for label, path in make(Path(sys.argv[1]), *sys.argv[2:]).items():
        print(f"{label}: {path}")
