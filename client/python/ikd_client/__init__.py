"""ikd_client: a Python client for ikd, inverse kinematics as a gRPC service.

    from ikd_client import Client, IkError, pb

    with Client("127.0.0.1:50051") as client:
        answer = client.solve_chain(pb.SolveChainRequest(
            rig="humanoid",
            goals=[pb.ChainGoal(chain="left_arm", target=pb.Vec3(x=0.45, y=1.2, z=0.15))],
        ))

A tick's characters go in the compact form (float32 or 48-bit rotations by
joint index, :func:`tick_character`, :func:`compact_pose`) and their answers
are read with :func:`final_rotations`; see :mod:`ikd_client.compact`.

``pb`` is the generated ``ik.v1.ik_pb2`` module (every message of the API),
loaded on first use from the stubs directory (:func:`load_stubs`).
"""
from __future__ import annotations

from typing import Any

from ikd_client._stubs import STUBS_ENV, Stubs, load_stubs, stubs_directory
from ikd_client.client import DEFAULT_DEADLINE, Client
from ikd_client.compact import (
    FLOAT,
    FORMS,
    POSE,
    QUANTIZED,
    apply_final_rotations,
    changed_rotations,
    compact_pose,
    dequantize_rotations,
    final_rotations,
    final_root,
    plain_pose,
    quantize_rotations,
    quaternions,
    tick_character,
    widened_pose,
)
from ikd_client.errors import FieldViolation, IkError
from ikd_client.tick_stream import TickStream

__all__ = [
    "DEFAULT_DEADLINE",
    "FLOAT",
    "FORMS",
    "POSE",
    "QUANTIZED",
    "STUBS_ENV",
    "Client",
    "FieldViolation",
    "IkError",
    "Stubs",
    "TickStream",
    "apply_final_rotations",
    "changed_rotations",
    "compact_pose",
    "dequantize_rotations",
    "final_root",
    "final_rotations",
    "load_stubs",
    "pb",
    "plain_pose",
    "quantize_rotations",
    "quaternions",
    "stubs_directory",
    "tick_character",
    "widened_pose",
]


def __getattr__(name: str) -> Any:
    if name == "pb":
        return load_stubs().pb
    raise AttributeError(f"module 'ikd_client' has no attribute {name!r}")
