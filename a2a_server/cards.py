"""A2A 1.0 agent cards: one per public company, and the install's directory agent.

Everything in a card comes from the tool declarations (skills) and the
settings (names, URLs). The cards say what the agents are: stateless (every
answer is a Message, no tasks), no streaming, no push notifications, no
extended card, no authentication.
"""

from __future__ import annotations

from a2a_server.protocol import PROTOCOL_VERSION
from a2a_server.skills import COMPANY_AGENT, DIRECTORY_AGENT, card_skills
from mcp_server.servers import CONTRACTOR_TEXT_WARNING, SERVER_VERSION
from mirror.catalog import urls
from mirror.read.gate import GateEntry
from mirror.runtime.config import Settings

CARD_MEDIA_TYPE = "application/json"
CAPABILITIES = {"streaming": False, "pushNotifications": False, "extendedAgentCard": False}
INPUT_MODES = ["text/plain", "application/json"]
OUTPUT_MODES = ["application/json", "text/plain"]
NAME_LIMIT = 120


def company_card(settings: Settings, company: GateEntry, endpoint: str) -> dict:
    """The agent card of one contractor's catalog agent, answering at `endpoint`."""
    name = company.name[:NAME_LIMIT]
    return _card(
        settings,
        name=f"{name} catalog",
        description=(
            f"Answers questions about {name}'s own published installed prices: search the catalog, compare "
            "Good/Better/Best tiers, check a ZIP against the service area, business details. Send a "
            'question as text, or a data part {"skill": id, "arguments": {...}}. ' + CONTRACTOR_TEXT_WARNING
        ),
        endpoint=endpoint,
        skills=card_skills(COMPANY_AGENT),
    )


def directory_card(settings: Settings) -> dict:
    """The agent card of the install-wide directory agent (the business feed's contractors)."""
    return _card(
        settings,
        name=f"{settings.provider_name} contractor directory",
        description=(
            "Finds contractors by ZIP, category and keywords among the businesses of the install's business "
            "feed; each result names the contractor's own agent and MCP server. " + CONTRACTOR_TEXT_WARNING
        ),
        endpoint=settings.absolute(urls.ROOT_A2A),
        skills=card_skills(DIRECTORY_AGENT),
    )


def _card(settings: Settings, *, name: str, description: str, endpoint: str, skills: list[dict]) -> dict:
    return {
        "name": name,
        "description": description,
        "version": SERVER_VERSION,
        "supportedInterfaces": [{"url": endpoint, "protocolBinding": "JSONRPC", "protocolVersion": PROTOCOL_VERSION}],
        "provider": {"organization": settings.provider_name, "url": settings.public_base_url},
        "documentationUrl": settings.absolute(urls.LLMS_TXT),
        "capabilities": dict(CAPABILITIES),
        "defaultInputModes": list(INPUT_MODES),
        "defaultOutputModes": list(OUTPUT_MODES),
        "skills": skills,
    }
