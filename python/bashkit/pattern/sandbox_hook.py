"""Sandbox hooks ready to use: GitIdentity(name=..., email=...)."""
from .._api import GitIdentity  # noqa: F401

__all__ = ["GitIdentity"]
