"""checkpost for Python agents: checkpoint and resume through one Forgejo issue, standard library only.

Two ways in:

- the seed's functions, right (``from checkpost import save_state, resume_agent_work, ...``): the
  one-import migration from the seed document;
- :class:`Client`: exactly-once saves, Seq/Epoch with take-over, signatures, the signed resume index,
  the session chain, directives, phase maps and ``not_used`` reasons.

See docs/python.md.
"""

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

__version__ = "0.2.0"

__all__ = [
    "Client",
    "Config",
    "config_from_env",
    "new_checkpoint_id",
    "CheckpostError",
    "CheckpointParseError",
    "CheckpointTooLargeError",
    "ConfigError",
    "ForgejoApiError",
    "ForgejoResponseError",
    "ProtocolInputError",
    "SessionIssueNotFoundError",
    "IMPLEMENTATION_WORKER_PHASE_MAP",
    "format_checkpoint",
    "format_control",
    "format_health",
    "parse_checkpoint",
    "parse_comment",
    "sign_checkpoint",
    "verify_checkpoint_signature",
    "CHECKPOINT_VERSION",
    "SESSION_STATE_TITLE_PATTERN",
    "create_checkpoint",
    "find_session_state_issue",
    "format_checkpoint_comment",
    "load_latest_checkpoint",
    "parse_checkpoint_comment",
    "post_health_signal",
    "resume_agent_work",
    "resume_implementation",
    "save_checkpoint",
    "save_state",
]
