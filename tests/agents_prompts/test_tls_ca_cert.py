"""``tls_ca_cert``: an HTTP agent trusts a server whose certificate a private CA signed
(a real self-signed certificate, a real TLS socket)."""

from __future__ import annotations

import datetime
import ipaddress
import ssl
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from milk_tui.config.settings import AgentConfig, MilkConfig
from milk_tui.engine.runtime import build_runtime
from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeReply


def _self_signed(tmp: Path) -> tuple[Path, Path]:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "milk test server")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = tmp / "server.pem", tmp / "server.key"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_path, key_path


@pytest.fixture
def tls_server(tmp_path: Path):  # noqa: ANN201
    cert, key = _self_signed(tmp_path)
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ctx.load_cert_chain(cert, key)
    with FakeOpenAIServer(tls=ctx) as srv:
        srv.default_reply = FakeReply(text=["over tls"])
        yield srv, cert


async def _turn(tmp_path: Path, url: str, **keys: object):  # noqa: ANN202
    cfg = MilkConfig(
        agent="secure",
        escalation_agent="demo",
        agents=[
            AgentConfig.model_validate({"name": "secure", "url": url, "model": "m", **keys}),
            AgentConfig(name="demo", provider="demo"),
        ],
    )
    rt = build_runtime(cwd=str(tmp_path), config=cfg, new=True)
    said: list[str] = []
    rt.bus.add_listener(lambda e: said.append(str(getattr(e, "message", ""))))
    try:
        outcome = await rt.dispatcher.run_turn("hello over tls", force="primary")
    finally:
        await rt.aclose()
    return rt.startup_notes, outcome, "\n".join(said)


async def test_the_private_ca_is_trusted(milk_home, tmp_path, tls_server):
    srv, cert = tls_server
    notes, outcome, _ = await _turn(tmp_path, srv.url, tls_ca_cert=str(cert))
    assert outcome.ok and outcome.slot == "primary" and outcome.text == "over tls", outcome
    assert notes == []
    assert srv.chat_requests  # it went over the TLS socket


async def test_without_the_ca_the_certificate_is_refused(milk_home, tmp_path, tls_server):
    srv, _ = tls_server
    _, outcome, said = await _turn(tmp_path, srv.url)
    # the primary is refused at the handshake; the turn falls back to the other agent
    assert outcome.slot == "escalation" and "'secure' unavailable (not reachable)" in said
    assert not srv.chat_requests


@pytest.mark.parametrize("bad", ["missing.pem", "garbage.pem"])
async def test_an_unusable_ca_file_is_one_line_and_the_default_bundle(
    milk_home, tmp_path, tls_server, bad
):
    srv, _ = tls_server
    path = tmp_path / bad
    if bad == "garbage.pem":
        path.write_text("not a certificate")
    notes, outcome, said = await _turn(tmp_path, srv.url, tls_ca_cert=str(path))
    lines = [n for n in notes if "tls_ca_cert" in n]
    assert len(lines) == 1 and lines[0].startswith(f"agent 'secure': tls_ca_cert {path}: ")
    assert lines[0].endswith("verifying with the default CA bundle")
    assert outcome.slot == "escalation" and "'secure' unavailable (not reachable)" in said
    assert not srv.chat_requests
