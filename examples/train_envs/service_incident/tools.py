"""A status page snapshot (2025-03-12, 13:40 UTC)."""

SERVICES = {
    "payments-api": ("degraded", ["INC-40877"]),
    "dashboard": ("operational", []),
    "webhooks": ("operational", []),
    "payouts": ("partial outage", ["INC-40881"]),
}
INCIDENTS = {
    "INC-40877": ("Elevated error rates on card authorisations", "identified",
                  [("12:58 UTC", "investigating"), ("13:25 UTC", "cause identified: database failover")],
                  "next update 14:30 UTC", "15:00 UTC"),
    "INC-40878": ("Delayed email receipts", "resolved", [("09:10 UTC", "investigating"), ("10:02 UTC", "resolved")],
                  "no further updates", "resolved at 10:02 UTC"),
    "INC-40881": ("Payouts to two banks delayed", "monitoring", [("11:40 UTC", "investigating"), ("13:05 UTC", "fix deployed")],
                  "next update 16:00 UTC", "17:30 UTC"),
}


def list_services() -> str:
    """Service names."""
    return ", ".join(sorted(SERVICES))


def service_status(service: str) -> str:
    """Status and open incident ids."""
    s = SERVICES.get(service.strip().lower())
    if s is None:
        return f"Unknown service {service!r}. Services: {', '.join(sorted(SERVICES))}."
    status, open_ids = s
    incidents = "; ".join(f"open incident {i}: {INCIDENTS[i][0]}" for i in open_ids) or "no open incidents"
    return f"{service.strip().lower()}: {status} ({incidents})"


def incident_detail(incident_id: str) -> dict:
    """The incident's updates and expected resolution."""
    i = INCIDENTS.get(incident_id.strip().upper())
    if i is None:
        return {"error": f"no incident {incident_id}"}
    title, status, updates, next_update, eta = i
    return {"incident": incident_id.upper(), "title": title, "status": status,
            "updates": [f"{when} {what}" for when, what in updates], "next_update": next_update,
            "expected_resolution": eta}
