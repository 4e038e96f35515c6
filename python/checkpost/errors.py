"""Typed errors. Each message says what to do; the status rides on ForgejoApiError."""

from __future__ import annotations

from typing import Optional


class CheckpostError(Exception):
    """Base class: checkpost's own errors, as opposed to bugs."""


class ProtocolInputError(CheckpostError, ValueError):
    """A value the protocol cannot carry (multi-line header, NaN, non-object state...)."""


class CheckpointParseError(CheckpostError, ValueError):
    """A comment body that is not a valid checkpoint, with the reason."""


class CheckpointTooLargeError(CheckpostError, ValueError):
    """A save over CHECKPOST_MAX_CHECKPOINT_BYTES; says what to leave out."""

    def __init__(self, size: int, limit: int, largest_keys: list[str], kind: str = "checkpoint") -> None:
        keys = ", ".join('"%s"' % k for k in largest_keys) if largest_keys else "the largest fields"
        super().__init__(
            "%s body is %d bytes, over the %d-byte cap (CHECKPOST_MAX_CHECKPOINT_BYTES). "
            "Save just enough to resume: leave out or shorten %s "
            "(store big artefacts elsewhere and checkpoint a reference)." % (kind, size, limit, keys)
        )
        self.size = size
        self.limit = limit
        self.largest_keys = largest_keys


class ConfigError(CheckpostError, ValueError):
    """Bad configuration (environment, arguments); the message names the setting."""


class EnvFileError(ConfigError):
    """A named env file (env_file=, the module CLI's --env-file) cannot be read: the CLI's exit 5."""


class SessionIssueNotFoundError(CheckpostError, ValueError):
    """No open session-state issue. A ValueError, as the seed's find_session_state_issue raises."""


class SessionChainError(SessionIssueNotFoundError):
    """A session issue is closed and no trusted link leads on to the open head of its chain
    (docs/chain.md): a closed issue is never read or written as the session."""


class ForgejoApiError(CheckpostError):
    """An HTTP failure from Forgejo (status 0: no answer at all)."""

    def __init__(self, message: str, status: int, method: str, url: str, retry_after: Optional[str] = None) -> None:
        super().__init__(message)
        self.status = status
        self.method = method
        self.url = url
        self.retry_after = retry_after

    @property
    def outcome_unknown(self) -> bool:
        """The request may have been applied although no success came back (reset, timeout, 5xx)."""
        return self.status == 0 or self.status >= 500

    @property
    def retryable(self) -> bool:
        return self.status == 0 or self.status >= 500 or self.status == 429


class ForgejoResponseError(CheckpostError):
    """An answer that does not have the shape checkpost relies on (is FORGEJO_URL a Forgejo?)."""
