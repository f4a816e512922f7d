"""TickStream: one ``TickStream`` call kept open for tick after tick."""
from __future__ import annotations

import queue
import threading
from typing import TYPE_CHECKING, Any, Callable, Iterator, Sequence

import grpc

from ikd_client.errors import IkError

if TYPE_CHECKING:
    from ik.v1 import ik_pb2

_END = object()


class TickStream:
    """One bidirectional ``TickStream`` kept open: one answer per tick.

    Made by :meth:`Client.tick_stream`. Each :meth:`tick` sends a request
    and waits for its answer, matched to it by ``sequence`` (set it, e.g. to
    a tick counter; ikd answers in order and echoes it). Use it as a context
    manager, or call :meth:`close`. Not for several threads at once: one
    tick at a time.

    A tick that fails as a whole (no characters, a bad ``shared_ground``)
    raises :class:`IkError` and the stream stays usable. A tick not
    answered within its deadline cancels the stream (raising
    ``DEADLINE_EXCEEDED``); once the stream is broken (cancelled, ikd
    draining: ``UNAVAILABLE``), every later tick raises that error.
    """

    def __init__(
        self,
        method: Callable[..., Any],
        *,
        metadata: Sequence[tuple[str, str]],
        timeout: float,
    ) -> None:
        self.timeout = timeout
        self._requests: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._answers: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._error: IkError | None = None
        self._closed = False
        # The stream itself has no deadline: it lasts until closed.
        self._call = method(self._request_iterator(), metadata=metadata)
        self._reader = threading.Thread(
            target=self._read, name="ikd_client-tick-stream", daemon=True
        )
        self._reader.start()

    def _request_iterator(self) -> Iterator[ik_pb2.TickRequest]:
        while (request := self._requests.get()) is not _END:
            yield request

    def _read(self) -> None:
        try:
            for answer in self._call:
                self._answers.put(answer)
        except grpc.RpcError as error:
            self._answers.put(IkError.from_rpc_error(error))
        finally:
            self._answers.put(_END)

    def tick(
        self, request: ik_pb2.TickRequest, *, timeout: float | None = None
    ) -> ik_pb2.TickResponse:
        """Sends ``request`` and returns its answer, within ``timeout``
        seconds (default: the stream's). Raises IkError for a tick refused
        as a whole, a broken stream, or an answer whose ``sequence`` is not
        the request's."""
        if self._error is not None:
            raise self._error
        if self._closed:
            raise IkError(grpc.StatusCode.FAILED_PRECONDITION, "the TickStream is closed")
        self._requests.put(request)
        wait = self.timeout if timeout is None else timeout
        try:
            answer = self._answers.get(timeout=wait)
        except queue.Empty:
            self._fail(IkError(
                grpc.StatusCode.DEADLINE_EXCEEDED,
                f"tick {request.sequence} was not answered within {wait:g} s; "
                "the stream was cancelled",
            ))
            self._call.cancel()
            raise self._error from None
        if answer is _END:
            self._fail(IkError(grpc.StatusCode.UNKNOWN, "the TickStream ended"))
            raise self._error
        if isinstance(answer, IkError):
            self._fail(answer)
            raise answer
        if answer.sequence != request.sequence:
            self._fail(IkError(
                grpc.StatusCode.INTERNAL,
                f"the answer is for tick {answer.sequence}, not tick {request.sequence}; "
                "the stream was cancelled",
            ))
            self._call.cancel()
            raise self._error
        if answer.status.code != 0:
            raise IkError.from_job_status(answer.status)
        return answer

    def _fail(self, error: IkError) -> None:
        self._error = error
        self._requests.put(_END)

    def cancel(self) -> None:
        """Cancels the stream: later ticks raise ``CANCELLED``."""
        if self._error is None:
            self._fail(IkError(grpc.StatusCode.CANCELLED, "the TickStream was cancelled"))
        self._call.cancel()

    def close(self) -> None:
        """Closes the sending side and waits (up to the stream's timeout)
        for ikd to end the stream. Raises IkError when it ends with an
        error that no tick has raised yet."""
        if self._closed:
            return
        self._closed = True
        self._requests.put(_END)
        self._reader.join(self.timeout)
        if self._reader.is_alive():
            self._call.cancel()
            return
        if self._error is not None:
            return
        while True:
            item = self._answers.get()
            if item is _END:
                return
            if isinstance(item, IkError):
                self._error = item
                raise item

    def __enter__(self) -> TickStream:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
