"""IkError: how every failed ikd call reaches the caller."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterable

import grpc

from ikd_client._stubs import load_stubs

if TYPE_CHECKING:
    from ik.v1 import ik_pb2

#: The trailer holding a serialised google.rpc.Status (gRPC's richer error
#: model): ikd puts a google.rpc.BadRequest in its details for every error
#: that names a field.
STATUS_DETAILS_KEY = "grpc-status-details-bin"

_CODES = {code.value[0]: code for code in grpc.StatusCode}


@dataclass(frozen=True)
class FieldViolation:
    """One input at fault in a refused request."""

    #: The request's field path, e.g. ``"goals[3].target"`` or
    #: ``"rig.colliders[0].sphere.radius"``.
    field: str
    #: What is wrong with it (the message after the path).
    description: str


class IkError(Exception):
    """An ikd call that failed: its gRPC code, message and field violations.

    Attributes:
        code: the gRPC status code, e.g. ``grpc.StatusCode.INVALID_ARGUMENT``.
        message: the server's message; it starts with the field path when
            the error names one (``"goals[0].target: not finite (0, nan, 0)"``).
        field_violations: the ``google.rpc.BadRequest`` field violations of
            the status details; empty when the error names no field.
    """

    def __init__(
        self,
        code: grpc.StatusCode,
        message: str,
        field_violations: Iterable[FieldViolation] = (),
    ) -> None:
        super().__init__(f"{code.name}: {message}")
        self.code = code
        self.message = message
        self.field_violations = tuple(field_violations)

    @property
    def fields(self) -> tuple[str, ...]:
        """The field paths of the violations, in order."""
        return tuple(violation.field for violation in self.field_violations)

    @property
    def field(self) -> str | None:
        """The first field path, or None when the error names no field."""
        return self.field_violations[0].field if self.field_violations else None

    @classmethod
    def from_rpc_error(cls, error: grpc.RpcError) -> IkError:
        """The IkError of a failed gRPC call (a ``grpc.Call`` as raised by
        the generated stubs), with the field violations of its
        ``grpc-status-details-bin`` trailer."""
        if not isinstance(error, grpc.Call):
            return cls(grpc.StatusCode.UNKNOWN, str(error))
        violations = _field_violations(error.trailing_metadata() or ())
        return cls(error.code() or grpc.StatusCode.UNKNOWN, error.details() or "", violations)

    @classmethod
    def from_job_status(cls, status: ik_pb2.JobStatus) -> IkError:
        """The IkError of a tick's failed character or job (a ``JobStatus``
        whose code is not 0), or of a tick a ``TickStream`` refused."""
        code = _CODES.get(status.code, grpc.StatusCode.UNKNOWN)
        violations = ()
        if status.field:
            prefix = status.field + ": "
            description = status.message
            if description.startswith(prefix):
                description = description[len(prefix):]
            violations = (FieldViolation(status.field, description),)
        return cls(code, status.message, violations)


def _field_violations(trailers: Iterable[tuple[str, bytes]]) -> list[FieldViolation]:
    stubs = load_stubs()
    violations = []
    for key, value in trailers:
        if key != STATUS_DETAILS_KEY:
            continue
        status = stubs.status_pb2.Status.FromString(value)
        for detail in status.details:
            bad_request = stubs.error_details_pb2.BadRequest()
            if detail.Unpack(bad_request):
                violations.extend(
                    FieldViolation(violation.field, violation.description)
                    for violation in bad_request.field_violations
                )
    return violations
