"""Ready-made building blocks (as the agents SDK names them: bashkit.pattern.sandbox_hook.GitIdentity)."""
from . import sandbox_hook  # noqa: F401

__all__ = ["sandbox_hook"]
