"""checkpost for Python agents: checkpoint and resume through one Forgejo issue, standard library only.

Two ways in:

- the seed's functions, right (``from checkpost import save_state, resume_agent_work, ...``): the
  one-import migration from the seed document;
- :class:`Client`: exactly-once saves, Seq/Epoch with take-over, signatures, the signed resume index,
  the session chain, directives, phase maps and ``not_used`` reasons.

See docs/python.md. Names are imported on first use (PEP 562), so ``python3 -m checkpost save`` loads
only what a save needs.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.2.0"

_WHERE = {
    "Client": "client",
    "new_checkpoint_id": "client",
    "Config": "config",
    "config_from_env": "config",
    "CheckpostError": "errors",
    "CheckpointParseError": "errors",
    "CheckpointTooLargeError": "errors",
    "ConfigError": "errors",
    "EnvFileError": "errors",
    "ForgejoApiError": "errors",
    "ForgejoResponseError": "errors",
    "ProtocolInputError": "errors",
    "SessionIssueNotFoundError": "errors",
    "SessionChainError": "errors",
    "IMPLEMENTATION_WORKER_PHASE_MAP": "protocol",
    "format_checkpoint": "protocol",
    "format_control": "protocol",
    "format_health": "protocol",
    "parse_checkpoint": "protocol",
    "parse_comment": "protocol",
    "sign_checkpoint": "protocol",
    "verify_checkpoint_signature": "protocol",
    "CHECKPOINT_VERSION": "seed",
    "SESSION_STATE_TITLE_PATTERN": "seed",
    "create_checkpoint": "seed",
    "find_session_state_issue": "seed",
    "format_checkpoint_comment": "seed",
    "load_latest_checkpoint": "seed",
    "parse_checkpoint_comment": "seed",
    "post_health_signal": "seed",
    "resume_agent_work": "seed",
    "resume_implementation": "seed",
    "save_checkpoint": "seed",
    "save_state": "seed",
}

__all__ = sorted(_WHERE)


_SUBMODULES = {"chain", "client", "config", "errors", "forgejo", "projection", "protocol", "resume_index", "seed"}


def __getattr__(name: str) -> Any:
    if name in _SUBMODULES:
        return importlib.import_module("." + name, __name__)
    mod = _WHERE.get(name)
    if mod is None:
        raise AttributeError("module 'checkpost' has no attribute %r" % name)
    value = getattr(importlib.import_module("." + mod, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list:
    return sorted(list(globals()) + list(_WHERE))


if TYPE_CHECKING:  # what type checkers and IDEs see
    from .client import Client, new_checkpoint_id
    from .config import Config, config_from_env
    from .errors import (
        CheckpointParseError,
        CheckpointTooLargeError,
        CheckpostError,
        ConfigError,
        ForgejoApiError,
        ForgejoResponseError,
        ProtocolInputError,
        SessionChainError,
        SessionIssueNotFoundError,
    )
    from .protocol import (
        IMPLEMENTATION_WORKER_PHASE_MAP,
        format_checkpoint,
        format_control,
        format_health,
        parse_checkpoint,
        parse_comment,
        sign_checkpoint,
        verify_checkpoint_signature,
    )
    from .seed import (
        CHECKPOINT_VERSION,
        SESSION_STATE_TITLE_PATTERN,
        create_checkpoint,
        find_session_state_issue,
        format_checkpoint_comment,
        load_latest_checkpoint,
        parse_checkpoint_comment,
        post_health_signal,
        resume_agent_work,
        resume_implementation,
        save_checkpoint,
        save_state,
    )
