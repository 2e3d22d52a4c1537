"""Errors of resched calls as Python exceptions that keep the gRPC status and the field named."""
import dataclasses

import grpc

from resched._rpc import error_details_pb2, status_pb2

_DETAILS_KEY = "grpc-status-details-bin"


@dataclasses.dataclass(frozen=True)
class FieldViolation:
    field: str  # the request field, as the server names it ("job.model.amdahl.alpha")
    description: str  # what is wrong and the limit


class ReschedError(Exception):
    """A call the server refused or could not answer.

    code: the grpc.StatusCode; message: the server's message; violations: the fields an
    INVALID_ARGUMENT names (google.rpc.BadRequest); details: every google.protobuf.Any the status
    carried (a retried request_id's first answer rides there with ALREADY_EXISTS).
    """

    def __init__(self, code, message, violations=(), details=()):
        self.code = code
        self.message = message
        self.violations = tuple(violations)
        self.details = tuple(details)
        text = f"{code.name}: {message}"
        for v in self.violations:
            if v.field and not v.description.startswith(v.field):
                text += f"\n  {v.field}: {v.description}"
            elif v.description != message:
                text += f"\n  {v.description}"
        super().__init__(text)

    @property
    def field(self):
        """The first field the server named, or None."""
        return self.violations[0].field if self.violations else None

    def unpack_detail(self, message_class):
        """The first detail of `message_class` (a protobuf class), or None."""
        for any_detail in self.details:
            candidate = message_class()
            if any_detail.Is(candidate.DESCRIPTOR) and any_detail.Unpack(candidate):
                return candidate
        return None


class InvalidArgument(ReschedError):
    """The request is malformed: `violations` names the fields and their limits."""


class NotFound(ReschedError):
    """No such cluster, job, reservation or DAG reservation."""


class AlreadyExists(ReschedError):
    """A name taken, or a request_id already applied (its first answer in `details`)."""


class FailedPrecondition(ReschedError):
    """Valid, but the cluster's state forbids it now."""


class ResourceExhausted(ReschedError):
    """No room (a reservation that does not fit), a limit reached, or a watcher left behind."""


class Unavailable(ReschedError):
    """No server answered; a replica may be taking over: retry."""


class PermissionDenied(ReschedError):
    """The token is not allowed this call."""


class Unauthenticated(ReschedError):
    """No token, or one the server does not know."""


_BY_CODE = {
    grpc.StatusCode.INVALID_ARGUMENT: InvalidArgument,
    grpc.StatusCode.NOT_FOUND: NotFound,
    grpc.StatusCode.ALREADY_EXISTS: AlreadyExists,
    grpc.StatusCode.FAILED_PRECONDITION: FailedPrecondition,
    grpc.StatusCode.RESOURCE_EXHAUSTED: ResourceExhausted,
    grpc.StatusCode.UNAVAILABLE: Unavailable,
    grpc.StatusCode.PERMISSION_DENIED: PermissionDenied,
    grpc.StatusCode.UNAUTHENTICATED: Unauthenticated,
}


def from_rpc_error(error):
    """The ReschedError for a grpc.RpcError raised by a call."""
    code = error.code() if hasattr(error, "code") else grpc.StatusCode.UNKNOWN
    message = error.details() if hasattr(error, "details") else str(error)
    violations, details = [], []
    metadata = error.trailing_metadata() if hasattr(error, "trailing_metadata") else None
    for key, value in metadata or ():
        if key != _DETAILS_KEY:
            continue
        status = status_pb2.Status()
        status.ParseFromString(value)
        for any_detail in status.details:
            details.append(any_detail)
            bad_request = error_details_pb2.BadRequest()
            if any_detail.Is(bad_request.DESCRIPTOR) and any_detail.Unpack(bad_request):
                violations.extend(FieldViolation(v.field, v.description)
                                  for v in bad_request.field_violations)
    return _BY_CODE.get(code, ReschedError)(code, message or "", violations, details)
