"""The UCP releases served side by side, and request-time negotiation.

UCP's version model is exact equality: an agent profile declares one
`ucp.version`, and the business answers in exactly that release or not at
all (`version_unsupported`); compatibility is never inferred from date
order. This service speaks 2026-04-08 and 2026-08-25 on one endpoint, so
the release of every answer is the calling agent's `ucp.version`. Its
`/.well-known/ucp` is the newest release's profile, which lists the older
ones in `supported_versions` (mcp_server.ucp.profile); that is how a client
with a 2026-08-25 profile (ucp-cli's default) and one with a 2026-04-08
profile both find a rendering they speak.

A `Release` says what differs between them: the response models
(mcp_server.ucp.models.SHAPES) and the catalog facts only the newer
release has fields for (the sale basis of a variant, a response's policies).
"""

from __future__ import annotations

from dataclasses import dataclass

from mcp_server.ucp import LOOKUP_CAPABILITY, SEARCH_CAPABILITY, UCP_VERSIONS, V2026_04_08, V2026_08_25
from mcp_server.ucp.agent_profile import ProfileError
from mcp_server.ucp.models import SHAPES, Shapes

CAPABILITIES = (SEARCH_CAPABILITY, LOOKUP_CAPABILITY)


@dataclass(frozen=True)
class Release:
    """One UCP release this service answers in."""

    version: str
    shapes: Shapes
    sale_basis: bool  # variants carry `quantity_unit` (new in 2026-08-25)
    policies: bool  # responses carry `policies[]` (new in 2026-08-25)

    def capability_ref(self, capability: str) -> dict:
        """A response's `ucp.capabilities` entry for the capability an operation used."""
        return {capability: [{"version": self.version}]}


RELEASES: dict[str, Release] = {
    V2026_04_08: Release(V2026_04_08, SHAPES[V2026_04_08], sale_basis=False, policies=False),
    V2026_08_25: Release(V2026_08_25, SHAPES[V2026_08_25], sale_basis=True, policies=True),
}
assert tuple(RELEASES) == UCP_VERSIONS
LATEST = RELEASES[UCP_VERSIONS[-1]]


@dataclass(frozen=True)
class Negotiated:
    """The outcome of negotiation: the release to answer in and the capabilities both sides declare."""

    release: Release
    capabilities: frozenset[str]


def release_of(version: object) -> Release:
    """The release an agent profile's `ucp.version` names (exact equality); raise version_unsupported."""
    release = RELEASES.get(version) if isinstance(version, str) else None
    if release is None:
        raise ProfileError(
            "version_unsupported",
            f"Protocol version {str(version)[:40]} is not supported. "
            f"This business supports versions {', '.join(RELEASES)}.",
        )
    return release


def negotiate(document: dict) -> Negotiated:
    """UCP request-time negotiation against a fetched (already well-formed) agent profile.

    The agent's `ucp.version` picks the release; a Catalog capability is
    shared when the agent lists it at that same version.
    """
    release = release_of(document["ucp"]["version"])
    declared = document["ucp"].get("capabilities", {})
    shared = {
        name
        for name in CAPABILITIES
        if any(entry.get("version") == release.version for entry in declared.get(name, []))
    }
    return Negotiated(release=release, capabilities=frozenset(shared))
