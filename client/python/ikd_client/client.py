"""Client: every ikd call with a deadline, TLS and a bearer token."""
from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Callable, Sequence, TypeVar

import grpc

from ikd_client import _health
from ikd_client._stubs import load_stubs
from ikd_client.errors import IkError
from ikd_client.tick_stream import TickStream

if TYPE_CHECKING:
    from ik.v1 import ik_pb2

#: The deadline of every call unless the client or the call says otherwise.
DEFAULT_DEADLINE = 5.0
#: Largest answer accepted (gRPC's own 4 MiB is less than the answer to a
#: tick of about 2,400 characters).
DEFAULT_MAX_RECEIVE_MESSAGE_BYTES = 64 << 20

Response = TypeVar("Response")


def _read(path: str | os.PathLike[str] | None) -> bytes | None:
    if path is None:
        return None
    with open(path, "rb") as file:
        return file.read()


class Client:
    """A connection to one ikd (or a load-balanced name of several).

    Every call has a deadline (``deadline`` seconds from the call, 5 by
    default; each method's ``timeout`` overrides it for one call) and raises
    :class:`~ikd_client.IkError` when ikd (or gRPC) refuses it. Requests and
    answers are the API's messages (``ikd_client.pb``, generated from
    ``proto/ik/v1/*.proto``).

    Thread-safe: one client may be shared by many threads; it holds one
    channel. Use it as a context manager, or call :meth:`close`.

    Args:
        target: gRPC target: ``"host:port"``, ``"dns:///name:port"``, ...
        deadline: seconds each call may take, unless the call gives its own
            ``timeout``.
        ca: PEM file of the CAs that sign ikd's certificate (``ikd
            --tls_cert``). Any of ``ca``, ``cert``, ``key`` makes the channel
            TLS; with none of them it is plaintext.
        cert: PEM client certificate chain, for an ikd that requires client
            certificates (``--tls_client_ca``); ``key`` is its private key.
            Both or neither.
        key: PEM private key of ``cert``.
        token: bearer token (``ikd --token_file``) sent with every call as
            ``authorization: Bearer <token>``; also over plaintext.
        server_name: the name checked against ikd's certificate instead of
            the target's host.
        options: further gRPC channel arguments, ``(name, value)`` pairs
            (they win over the client's own).
        max_receive_message_bytes: largest answer accepted; -1: no limit.
        stubs: directory of the generated modules (see
            :func:`~ikd_client.load_stubs`).
    """

    def __init__(
        self,
        target: str = "127.0.0.1:50051",
        *,
        deadline: float = DEFAULT_DEADLINE,
        ca: str | os.PathLike[str] | None = None,
        cert: str | os.PathLike[str] | None = None,
        key: str | os.PathLike[str] | None = None,
        token: str | None = None,
        server_name: str | None = None,
        options: Sequence[tuple[str, Any]] = (),
        max_receive_message_bytes: int = DEFAULT_MAX_RECEIVE_MESSAGE_BYTES,
        stubs: str | os.PathLike[str] | None = None,
    ) -> None:
        if (cert is None) != (key is None):
            raise ValueError("cert and key: give both or neither")
        self._stubs = load_stubs(stubs)
        self.deadline = deadline
        self._metadata = (("authorization", f"Bearer {token}"),) if token else ()
        channel_options = [("grpc.max_receive_message_length", max_receive_message_bytes)]
        if server_name:
            channel_options.append(("grpc.ssl_target_name_override", server_name))
        channel_options.extend(options)
        if ca is not None or cert is not None:
            credentials = grpc.ssl_channel_credentials(
                root_certificates=_read(ca),
                private_key=_read(key),
                certificate_chain=_read(cert),
            )
            self._channel = grpc.secure_channel(target, credentials, channel_options)
        else:
            self._channel = grpc.insecure_channel(target, channel_options)
        self._stub = self._stubs.pb_grpc.IkServiceStub(self._channel)
        self._health_check = self._channel.unary_unary(
            _health.CHECK_METHOD,
            request_serializer=_health.HealthCheckRequest.SerializeToString,
            response_deserializer=_health.HealthCheckResponse.FromString,
        )

    @property
    def channel(self) -> grpc.Channel:
        """The client's gRPC channel."""
        return self._channel

    def close(self) -> None:
        """Closes the channel; calls in flight are cancelled."""
        self._channel.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _call(
        self, method: Callable[..., Response], request: Any, timeout: float | None
    ) -> Response:
        try:
            return method(
                request,
                timeout=self.deadline if timeout is None else timeout,
                metadata=self._metadata,
            )
        except grpc.RpcError as error:
            raise IkError.from_rpc_error(error) from None

    # Solving.

    def solve_chain(
        self, request: ik_pb2.SolveChainRequest, *, timeout: float | None = None
    ) -> ik_pb2.SolveChainResponse:
        """Moves chain tips towards targets on one pose of a rig; one
        ``GoalResult`` per goal. An unreachable target is not an error: its
        result says ``reached=False`` and gives the residual."""
        return self._call(self._stub.SolveChain, request, timeout)

    def ground_feet(
        self, request: ik_pb2.GroundFeetRequest, *, timeout: float | None = None
    ) -> ik_pb2.GroundFeetResponse:
        """Puts a character's feet on the request's ground (planes, inline
        heightfields, registered terrains)."""
        return self._call(self._stub.GroundFeet, request, timeout)

    def step_dynamics(
        self, request: ik_pb2.StepDynamicsRequest, *, timeout: float | None = None
    ) -> ik_pb2.StepDynamicsResponse:
        """One time step of a rig's dynamic chains; send each result's
        ``state`` back in the next step's ``states``."""
        return self._call(self._stub.StepDynamics, request, timeout)

    def tick(
        self, request: ik_pb2.TickRequest, *, timeout: float | None = None
    ) -> ik_pb2.TickResponse:
        """Many characters' jobs in one call. A failed character or job is
        answered inside the response (its ``status``, ``goals_status``, ...;
        :meth:`IkError.from_job_status` turns one into an error); the call
        fails only when the tick as a whole does."""
        return self._call(self._stub.Tick, request, timeout)

    def tick_stream(self, *, timeout: float | None = None) -> TickStream:
        """Opens one ``TickStream`` for tick after tick (see
        :class:`~ikd_client.TickStream`); ``timeout`` is each tick's
        deadline (default: the client's)."""
        return TickStream(
            self._stub.TickStream,
            metadata=self._metadata,
            timeout=self.deadline if timeout is None else timeout,
        )

    # Rigs.

    def register_rig(
        self, rig: ik_pb2.Rig, replace: bool = False, *, timeout: float | None = None
    ) -> ik_pb2.RegisterRigResponse:
        """Registers ``rig``. The same content again is a no-op
        (``created=False``); other content under a registered name needs
        ``replace=True``, else ``ALREADY_EXISTS``. Needs an admin token
        when ikd has tokens."""
        request = self._stubs.pb.RegisterRigRequest(rig=rig, replace=replace)
        return self._call(self._stub.RegisterRig, request, timeout)

    def get_rig(self, name: str, *, timeout: float | None = None) -> ik_pb2.GetRigResponse:
        """The rig as stored (quaternions normalised) and its revision."""
        request = self._stubs.pb.GetRigRequest(name=name)
        return self._call(self._stub.GetRig, request, timeout)

    def list_rigs(self, *, timeout: float | None = None) -> ik_pb2.ListRigsResponse:
        """Every registered rig's summary, sorted by name."""
        return self._call(self._stub.ListRigs, self._stubs.pb.ListRigsRequest(), timeout)

    def delete_rig(
        self, name: str, revision: str = "", *, timeout: float | None = None
    ) -> ik_pb2.DeleteRigResponse:
        """Removes a rig; with ``revision``, only at that revision
        (else ``FAILED_PRECONDITION``)."""
        request = self._stubs.pb.DeleteRigRequest(name=name, revision=revision)
        return self._call(self._stub.DeleteRig, request, timeout)

    # Terrains.

    def register_terrain(
        self, terrain: ik_pb2.Terrain, replace: bool = False, *, timeout: float | None = None
    ) -> ik_pb2.RegisterTerrainResponse:
        """Registers a heightfield or triangle mesh, idempotent like
        :meth:`register_rig`. A large mesh may need a longer ``timeout``."""
        request = self._stubs.pb.RegisterTerrainRequest(terrain=terrain, replace=replace)
        return self._call(self._stub.RegisterTerrain, request, timeout)

    def list_terrains(self, *, timeout: float | None = None) -> ik_pb2.ListTerrainsResponse:
        """Every registered terrain's summary, sorted by name."""
        request = self._stubs.pb.ListTerrainsRequest()
        return self._call(self._stub.ListTerrains, request, timeout)

    def delete_terrain(
        self, name: str, revision: str = "", *, timeout: float | None = None
    ) -> ik_pb2.DeleteTerrainResponse:
        """Removes a terrain; with ``revision``, only at that revision."""
        request = self._stubs.pb.DeleteTerrainRequest(name=name, revision=revision)
        return self._call(self._stub.DeleteTerrain, request, timeout)

    # Health.

    def health(self, service: str = "", *, timeout: float | None = None) -> bool:
        """True when ikd's health service says ``SERVING`` for ``service``
        ("" for the whole server), False otherwise (``NOT_SERVING`` while
        it drains). Open without a token. Raises IkError when ikd cannot be
        reached or does not know the service."""
        answer = self._call(
            self._health_check, _health.HealthCheckRequest(service=service), timeout
        )
        return answer.status == _health.SERVING
