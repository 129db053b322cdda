"""Where a model endpoint may be (shared/models/hosts.py): never link-local or a cloud metadata
service, in whatever form the address is written; loopback and private allowed and said; the
operator's allowed hosts; names resolved with a bound, without network access here."""

import asyncio

import pytest

from shared.config import ModelSettings
from shared.models import hosts
from shared.models.hosts import (
    ModelHostRefused,
    allowed_hosts,
    checked_host,
    endpoints_of,
    literal_address,
    vet,
)

METADATA = "cloud metadata service"
LINK_LOCAL = "link-local"


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("http://169.254.169.254/latest/meta-data/", METADATA),
        ("http://169.254.169.254:80/v1", METADATA),
        ("http://[fd00:ec2::254]/v1", METADATA),
        ("http://100.100.100.200/latest/meta-data", METADATA),
        ("http://metadata.google.internal/computeMetadata/v1", METADATA),
        ("http://METADATA.google.internal./v1", METADATA),
        ("http://metadata/v1", METADATA),
        ("http://169.254.1.1:8000/v1", LINK_LOCAL),
        ("http://[fe80::1]/v1", LINK_LOCAL),
        ("http://[fe80::1%25eth0]:8000/v1", LINK_LOCAL),
        # the same addresses as the C resolver also reads them
        ("http://2852039166/", METADATA),  # decimal
        ("http://0251.0376.0251.0376/", METADATA),  # octal
        ("http://0xa9.0xfe.0xa9.0xfe/", METADATA),  # hexadecimal
        ("http://0xa9fea9fe/", METADATA),
        ("http://169.254.43518/", METADATA),  # a.b.c with c 16 bits
        ("http://0251.254.169.254/", METADATA),  # one part octal
        ("http://2851995905/", LINK_LOCAL),  # 169.254.0.1
        ("http://１６９.２５４.１６９.２５４/", METADATA),  # fullwidth digits
        # IPv4 inside IPv6: mapped, NAT64, 6to4, compatible
        ("http://[::ffff:169.254.169.254]/", METADATA),
        ("http://[::ffff:a9fe:a9fe]/", METADATA),
        ("http://[64:ff9b::169.254.169.254]/", METADATA),
        ("http://[2002:a9fe:a9fe::1]/", METADATA),
        ("http://[::169.254.169.254]/", METADATA),
        ("http://[::ffff:169.254.3.4]/", LINK_LOCAL),
        # not an http(s) endpoint, or one with credentials in it
        ("file:///etc/passwd", "http:// or https://"),
        ("gopher://127.0.0.1:6379/_INFO", "http:// or https://"),
        ("ftp://example.com/v1", "http:// or https://"),
        ("api.openai.com/v1", "http:// or https://"),
        ("https://user:sk-secret@example.com/v1", "put the key in the API key field"),
        ("https://sk-secret@example.com/v1", "put the key in the API key field"),
        ("https://:sk-secret@example.com/v1", "put the key in the API key field"),
        ("http://127.0.0.1:99999/v1", "port"),
    ],
)
def test_refused_whatever_the_form(url: str, reason: str) -> None:
    with pytest.raises(ModelHostRefused, match=reason) as refused:
        checked_host(url)
    assert "sk-secret" not in str(refused.value)
    with pytest.raises(ModelHostRefused, match=reason):
        asyncio.run(vet(url))


def test_a_refusal_says_what_to_do_instead() -> None:
    with pytest.raises(ModelHostRefused) as refused:
        checked_host("http://169.254.169.254/")
    assert "use the model server's own address" in str(refused.value)


@pytest.mark.parametrize(
    ("url", "network"),
    [
        ("http://127.0.0.1:11434/v1", "loopback"),
        ("http://127.1.2.3/v1", "loopback"),
        ("http://2130706433:8080/v1", "loopback"),  # 127.0.0.1, decimal
        ("http://0177.0.0.1/v1", "loopback"),  # octal
        ("http://[::1]:8000/v1", "loopback"),
        ("http://[::ffff:127.0.0.1]/v1", "loopback"),
        ("http://0.0.0.0:11434/v1", "loopback"),  # connects to this machine
        ("http://10.0.0.5:8000/v1", "private"),
        ("http://192.168.1.20/v1", "private"),
        ("http://172.16.3.4/v1", "private"),
        ("http://[fd12:3456::1]/v1", "private"),
        ("https://8.8.8.8/v1", "public"),
        ("https://[2606:4700:4700::1111]/v1", "public"),
    ],
)
def test_loopback_and_private_addresses_are_allowed_and_said(url: str, network: str) -> None:
    assert asyncio.run(vet(url)) == network


def test_localhost_resolves_to_loopback() -> None:
    assert asyncio.run(vet("http://localhost:11434/v1")) == "loopback"


def resolving_to(*addresses: str) -> hosts.Resolver:
    async def resolve(host: str, port: int) -> list[str]:
        return list(addresses)

    return resolve


def test_a_name_is_judged_by_every_address_it_resolves_to() -> None:
    rebound = resolving_to("93.184.216.34", "169.254.169.254")
    with pytest.raises(ModelHostRefused, match=METADATA):
        asyncio.run(vet("https://models.example.com/v1", resolve=rebound))
    with pytest.raises(ModelHostRefused, match=LINK_LOCAL):
        asyncio.run(vet("https://models.example.com/v1", resolve=resolving_to("fe80::7%eth0")))
    mixed = resolving_to("93.184.216.34", "10.1.2.3")
    assert asyncio.run(vet("https://models.example.com/v1", resolve=mixed)) == "private"
    public = resolving_to("93.184.216.34", "2606:2800:220:1::1")
    assert asyncio.run(vet("https://models.example.com/v1", resolve=public)) == "public"


def test_a_name_that_does_not_resolve_may_be_saved_and_is_said_so(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async def unknown(host: str, port: int) -> list[str]:
        raise OSError(-2, "Name or service not known")

    async def hangs(host: str, port: int) -> list[str]:
        await asyncio.sleep(60)
        return []

    assert asyncio.run(vet("http://ollama:11434/v1", resolve=unknown)) == "unresolved"
    monkeypatch.setattr(hosts, "RESOLVE_TIMEOUT_SECONDS", 0.05)
    assert asyncio.run(vet("http://ollama:11434/v1", resolve=hangs)) == "unresolved"


def test_hex_letters_alone_are_a_name_not_an_address() -> None:
    assert literal_address("cafe.face") is None
    assert str(literal_address("0x7f.1")) == "127.0.0.1"


def test_the_operator_fixes_the_hosts_the_admin_may_choose() -> None:
    allowed = allowed_hosts(" ollama, 10.0.0.5:8000 ,[::1]:11434,127.0.0.1,")
    assert checked_host("http://ollama:11434/v1", allowed) == ("ollama", 11434)
    assert checked_host("http://OLLAMA./v1", allowed) == ("ollama", 80)
    assert checked_host("http://10.0.0.5:8000/v1", allowed)
    assert checked_host("http://[::1]:11434/v1", allowed)
    assert checked_host("http://2130706433:9000/v1", allowed)  # 127.0.0.1 however written
    for elsewhere in (
        "http://10.0.0.5:8001/v1",
        "http://[::1]:8000/v1",
        "https://api.openai.com/v1",
        "http://ollama.evil.example/v1",
    ):
        with pytest.raises(ModelHostRefused, match="ARTISAN_MODEL_HOSTS_ALLOWED") as refused:
            checked_host(elsewhere, allowed)
        assert "ollama, 10.0.0.5:8000, [::1]:11434, 127.0.0.1" in str(refused.value)
    assert allowed_hosts("") == []


def test_the_endpoints_a_setting_sends_text_to_include_the_providers_own() -> None:
    offline = ModelSettings(llm_base_url="", llm_api_key=None, embed_provider="local")
    assert endpoints_of(offline) == {}
    remote = ModelSettings(llm_api_key="sk-x", embed_provider="voyage", voyage_api_key="pa-x")
    assert endpoints_of(remote) == {
        "chat": "https://api.openai.com/v1",
        "embeddings": "https://api.voyageai.com/v1",
    }
    local = ModelSettings(
        llm_base_url="http://127.0.0.1:8091/v1",
        embed_provider="openai",
        openai_base_url="http://127.0.0.1:8092/v1",
    )
    assert endpoints_of(local) == {
        "chat": "http://127.0.0.1:8091/v1",
        "embeddings": "http://127.0.0.1:8092/v1",
    }
