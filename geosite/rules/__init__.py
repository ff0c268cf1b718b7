"""Jurisdiction profiles (data) and the engine that turns measurements into findings."""

from geosite.rules.engine import Finding, Trigger, evaluate
from geosite.rules.profile import Profile, available_profiles, load_profile

__all__ = ["Finding", "Profile", "Trigger", "available_profiles", "evaluate", "load_profile"]
