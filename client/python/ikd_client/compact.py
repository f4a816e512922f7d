"""The tick's compact form: a character's pose as an engine holds it.

A :class:`CompactPose` (``proto/ik/v1/tick.proto``) carries a character's
local rotations by joint index, as float32 (x, y, z, w per joint) or as
48-bit "smallest three" codes (6 bytes a joint), and float32 translations
only for the joints whose bone differs from the rig's. A tick answers a
character sent this way in the same form: ``TickCharacterResult.compact_pose``
holds the joints the jobs turned and their rotations in the request's
encoding, and the dynamics states come as ``packed_floats`` (send them back
as they came).

Everything here is written from the proto's description of the encoding:

* :func:`compact_pose`, :func:`plain_pose` and :func:`tick_character` build
  requests from rotations held as a flat sequence of floats (4 a joint) or a
  sequence of ``(x, y, z, w)``;
* :func:`quantize_rotations` and :func:`dequantize_rotations` are the 48-bit
  encoding and its decoding;
* :func:`changed_rotations`, :func:`final_rotations`,
  :func:`apply_final_rotations` and :func:`final_root` read an answer, in
  either form;
* :func:`widened_pose` is the ``Pose`` whose doubles are a compact pose's
  numbers, widened or decoded: the pose ikd answers a compact character as.
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Iterable, List, Mapping, MutableSequence, Sequence, Tuple, Union

from ikd_client._stubs import load_stubs

if TYPE_CHECKING:
    from ik.v1 import ik_pb2

#: A rotation: x, y, z, w.
Quaternion = Tuple[float, float, float, float]
#: Rotations as an engine holds them: a flat sequence of floats, x, y, z, w
#: per joint (a list, ``array('f')``, a 1-D numpy array), or one
#: ``(x, y, z, w)`` (or ``Quat``-like object with x, y, z, w) per joint.
Rotations = Union[Sequence[float], Sequence[Sequence[float]], Iterable[Any]]

#: The pose forms :func:`tick_character` can send.
FLOAT = "float"          # CompactPose.rotations: float32 (the default)
QUANTIZED = "quantized"  # CompactPose.quantized_rotations: 6 bytes a joint
POSE = "pose"            # Pose: doubles, the form every RPC takes
FORMS = (FLOAT, QUANTIZED, POSE)

#: Bytes per joint of CompactPose.quantized_rotations.
QUANTIZED_BYTES = 6

_SQRT2 = 1.4142135623730951  # sqrt(2), correctly rounded
_CODE_MAX = 32767.0          # 15-bit codes
_CODE_MASK = 0x7FFF
_IDENTITY: Quaternion = (0.0, 0.0, 0.0, 1.0)


def _pb() -> Any:
    return load_stubs().pb


def quaternions(rotations: Rotations) -> List[Quaternion]:
    """``rotations`` as one ``(x, y, z, w)`` tuple of floats per joint.

    Accepts a flat sequence of numbers (its length a multiple of 4), a
    sequence of 4-number sequences, or of objects with ``x``, ``y``, ``z``,
    ``w`` (``pb.Quat``). Raises ValueError for anything else."""
    items = list(rotations)
    if not items:
        return []
    first = items[0]
    if hasattr(first, "w") and hasattr(first, "x"):
        return [(float(q.x), float(q.y), float(q.z), float(q.w)) for q in items]
    if hasattr(first, "__len__"):
        result = []
        for k, q in enumerate(items):
            if len(q) != 4:
                raise ValueError(f"rotation {k} has {len(q)} numbers: x, y, z, w are 4")
            result.append((float(q[0]), float(q[1]), float(q[2]), float(q[3])))
        return result
    if len(items) % 4 != 0:
        raise ValueError(f"{len(items)} numbers: not 4 a joint (x, y, z, w)")
    values = [float(value) for value in items]
    return [tuple(values[i:i + 4]) for i in range(0, len(values), 4)]  # type: ignore[misc]


def _pack(q: Quaternion) -> int:
    x, y, z, w = q
    norm = math.sqrt(x * x + y * y + z * z + w * w)
    finite = all(math.isfinite(c) for c in q)
    components = [x / norm, y / norm, z / norm, w / norm] if finite and norm > 0.0 \
        else list(_IDENTITY)
    largest = 0
    for i in (1, 2, 3):
        if abs(components[i]) > abs(components[largest]):
            largest = i
    sign = -1.0 if components[largest] < 0.0 else 1.0
    value = largest
    shift = 2
    for i in range(4):
        if i == largest:
            continue
        # round() on a float rounds half to even, as C's nearbyint does.
        scaled = float(round((sign * components[i] * _SQRT2 + 1.0) * 0.5 * _CODE_MAX))
        code = int(min(max(scaled, 0.0), _CODE_MAX))
        value |= code << shift
        shift += 15
    return value


def quantize_rotations(rotations: Rotations) -> bytes:
    """The rotations as CompactPose.quantized_rotations: 6 bytes a joint.

    Each rotation is normalised (one that is not finite, or zero, is
    encoded as the identity), negated if its largest component (the first
    of equal magnitude, in x, y, z, w order) is negative, and each other
    component c stored as the 15-bit code nearest (c * sqrt(2) + 1) / 2 *
    32767 (halves to even). Decoded, a rotation is within 1.4e-4 rad of
    the one encoded."""
    out = bytearray()
    for q in quaternions(rotations):
        out += _pack(q).to_bytes(QUANTIZED_BYTES, "little")
    return bytes(out)


def _unpack(value: int) -> Quaternion:
    largest = value & 3
    components = [0.0, 0.0, 0.0, 0.0]
    squares = 0.0
    shift = 2
    for i in range(4):
        if i == largest:
            continue
        code = float((value >> shift) & _CODE_MASK)
        c = (code / _CODE_MAX * 2.0 - 1.0) / _SQRT2
        components[i] = c
        squares += c * c
        shift += 15
    rest = 1.0 - squares
    components[largest] = math.sqrt(rest) if rest > 0.0 else 0.0
    return (components[0], components[1], components[2], components[3])


def dequantize_rotations(data: bytes) -> List[Quaternion]:
    """CompactPose.quantized_rotations decoded: one ``(x, y, z, w)`` per 6
    bytes, as ikd reads them. Raises ValueError when the length is not a
    multiple of 6 or a rotation's bit 47 is set."""
    data = bytes(data)
    if len(data) % QUANTIZED_BYTES != 0:
        raise ValueError(f"{len(data)} bytes: not {QUANTIZED_BYTES} a joint")
    result = []
    for k in range(0, len(data), QUANTIZED_BYTES):
        value = int.from_bytes(data[k:k + QUANTIZED_BYTES], "little")
        if value >> 47:
            raise ValueError(f"byte {k}: bit 47 of the 48 is set")
        result.append(_unpack(value))
    return result


def _joint_list(joints: Sequence[int], what: str) -> List[int]:
    listed = [int(joint) for joint in joints]
    for k, joint in enumerate(listed):
        if joint < 0:
            raise ValueError(f"{what}[{k}]: joint {joint} is negative")
        if k > 0 and joint <= listed[k - 1]:
            raise ValueError(f"{what}[{k}]: joint {joint} does not come after "
                             f"{listed[k - 1]}: joints are given ascending, each once")
    return listed


def _translations(translations: Mapping[int, Sequence[float]] | None
                  ) -> List[Tuple[int, Tuple[float, float, float]]]:
    if not translations:
        return []
    result = []
    for joint in sorted(translations):
        t = translations[joint]
        if hasattr(t, "x"):
            t = (t.x, t.y, t.z)  # type: ignore[union-attr]
        if len(t) != 3:
            raise ValueError(f"translation of joint {joint}: {len(t)} numbers, not 3")
        if int(joint) < 0:
            raise ValueError(f"translation of joint {joint}: negative joint")
        result.append((int(joint), (float(t[0]), float(t[1]), float(t[2]))))
    return result


def _rotations_and_joints(rotations: Rotations, joints: Sequence[int] | None
                          ) -> Tuple[List[Quaternion], List[int] | None]:
    qs = quaternions(rotations)
    if joints is None:
        return qs, None
    listed = _joint_list(joints, "joints")
    if len(listed) != len(qs):
        raise ValueError(f"{len(qs)} rotations for {len(listed)} joints: one a joint")
    return qs, listed


def compact_pose(
    rotations: Rotations = (),
    *,
    root: ik_pb2.Transform | None = None,
    quantized: bool = False,
    joints: Sequence[int] | None = None,
    translations: Mapping[int, Sequence[float]] | None = None,
) -> ik_pb2.CompactPose:
    """A ``CompactPose`` of the local rotations an engine holds.

    Args:
        rotations: local rotations, x, y, z, w per joint (see
            :data:`Rotations`): joints 0, 1, 2, ... in the rig's order, or
            the joints ``joints`` names. Joints not given keep their rest
            rotation.
        root: the character's root (model space -> world space); unset:
            identity.
        quantized: 48-bit rotations (6 bytes a joint, within 1.4e-4 rad)
            instead of float32 (16 bytes a joint, within 1.2e-7 rad).
        joints: the joints ``rotations`` are for, by index, ascending.
        translations: ``{joint index: (x, y, z)}`` for the joints whose bone
            differs from the rig's rest translation (float32 on the wire).

    ikd answers in the encoding the rotations came in; a pose without
    rotations (the rest pose, moved by its root) is answered as float32.
    Raises ValueError for rotations that are not 4 numbers a joint, or
    joints that do not match them (ikd checks the rest: ranges, units)."""
    pb = _pb()
    qs, listed = _rotations_and_joints(rotations, joints)
    pose = pb.CompactPose()
    if root is not None:
        pose.root.CopyFrom(root)
    if listed is not None:
        pose.joints.extend(listed)
    if quantized:
        pose.quantized_rotations = b"".join(
            _pack(q).to_bytes(QUANTIZED_BYTES, "little") for q in qs)
    else:
        pose.rotations.extend(value for q in qs for value in q)
    for joint, t in _translations(translations):
        pose.translated_joints.append(joint)
        pose.translations.extend(t)
    return pose


def plain_pose(
    rotations: Rotations = (),
    *,
    root: ik_pb2.Transform | None = None,
    joints: Sequence[int] | None = None,
    translations: Mapping[int, Sequence[float]] | None = None,
) -> ik_pb2.Pose:
    """The same engine data as :func:`compact_pose`, as a ``Pose`` of
    doubles: the form every RPC takes (``Pose.rotations`` for joints 0, 1,
    2, ...; one ``JointPose`` a joint when ``joints`` names them)."""
    pb = _pb()
    qs, listed = _rotations_and_joints(rotations, joints)
    pose = pb.Pose()
    if root is not None:
        pose.root.CopyFrom(root)
    # One JointPose a joint, ascending: its rotation (when `joints` names
    # it) and its translation (when it has one).
    entries: dict[int, dict[str, Any]] = {}
    if listed is None:
        pose.rotations.extend(value for q in qs for value in q)
    else:
        for joint, q in zip(listed, qs):
            entries[joint] = {"rotation": pb.Quat(x=q[0], y=q[1], z=q[2], w=q[3])}
    for joint, t in _translations(translations):
        entries.setdefault(joint, {})["translation"] = pb.Vec3(x=t[0], y=t[1], z=t[2])
    for joint in sorted(entries):
        pose.joints.add(index=joint, local=pb.Transform(**entries[joint]))
    return pose


def tick_character(
    rig: str,
    rotations: Rotations = (),
    *,
    id: str = "",  # noqa: A002  (TickCharacter.id)
    root: ik_pb2.Transform | None = None,
    joints: Sequence[int] | None = None,
    translations: Mapping[int, Sequence[float]] | None = None,
    form: str = FLOAT,
    **fields: Any,
) -> ik_pb2.TickCharacter:
    """A ``TickCharacter`` whose pose is the engine's rotations.

    ``form`` says how the pose is sent: ``"float"`` (the default) and
    ``"quantized"`` as a :func:`compact_pose` (answered in the same form),
    ``"pose"`` as a :func:`plain_pose` (answered in ``root``, ``joints``
    and ``rotations``, doubles). ``fields`` are the character's other fields
    (``goals``, ``ground``, ``dynamics``, ``check``, ``revision``)."""
    pb = _pb()
    if form not in FORMS:
        raise ValueError(f"form {form!r}: one of {', '.join(FORMS)}")
    character = pb.TickCharacter(id=id, rig=rig, **fields)
    if form == POSE:
        character.pose.CopyFrom(plain_pose(
            rotations, root=root, joints=joints, translations=translations))
    else:
        character.compact_pose.CopyFrom(compact_pose(
            rotations, root=root, quantized=form == QUANTIZED, joints=joints,
            translations=translations))
    return character


def _compact_rotations(pose: ik_pb2.CompactPose) -> List[Quaternion]:
    if pose.quantized_rotations:
        if len(pose.rotations) > 0:
            raise ValueError("both rotations and quantized_rotations are set")
        return dequantize_rotations(pose.quantized_rotations)
    return quaternions(pose.rotations)


def widened_pose(pose: ik_pb2.CompactPose) -> ik_pb2.Pose:
    """The ``Pose`` whose doubles are ``pose``'s numbers, float32 widened
    and quantized rotations decoded: by the precision contract of
    ``CompactPose``, ikd answers a compact character as it answers this
    pose (the single RPCs take it too)."""
    joints = list(pose.joints) if len(pose.joints) > 0 else None
    translations = {
        joint: tuple(pose.translations[3 * k:3 * k + 3])
        for k, joint in enumerate(pose.translated_joints)
    }
    if len(pose.translations) != 3 * len(pose.translated_joints):
        raise ValueError(f"{len(pose.translations)} translation numbers for "
                         f"{len(pose.translated_joints)} translated joints: 3 a joint")
    return plain_pose(
        _compact_rotations(pose),
        root=pose.root if pose.HasField("root") else None,
        joints=joints,
        translations=translations,
    )


def changed_rotations(result: ik_pb2.TickCharacterResult) -> List[Tuple[int, Quaternion]]:
    """The joints a tick's jobs turned, ascending, with their final local
    rotations: ``(joint index, (x, y, z, w))``, from the answer's
    ``compact_pose`` (float32 or quantized) or, for a character sent as a
    ``Pose``, its ``joints`` and ``rotations``. Empty for a failed
    character."""
    if result.HasField("compact_pose"):
        pose = result.compact_pose
        joints, qs = list(pose.joints), _compact_rotations(pose)
    else:
        joints, qs = list(result.joints), quaternions(result.rotations)
    if len(joints) != len(qs):
        raise ValueError(f"{len(qs)} rotations for {len(joints)} joints")
    return list(zip(joints, qs))


def final_rotations(result: ik_pb2.TickCharacterResult, base: Rotations) -> List[Quaternion]:
    """Every joint's final local rotation: ``base`` (the rotations sent,
    as in :data:`Rotations`, one a joint of the rig) with the joints the
    jobs turned replaced (:func:`changed_rotations`)."""
    final = quaternions(base)
    for joint, q in changed_rotations(result):
        if joint >= len(final):
            raise ValueError(f"the answer turns joint {joint}; base has {len(final)} joints")
        final[joint] = q
    return final


def apply_final_rotations(result: ik_pb2.TickCharacterResult,
                          rotations: MutableSequence[float]) -> None:
    """Writes the joints the jobs turned into ``rotations``, a flat mutable
    sequence of x, y, z, w per joint (a list, ``array('f')``, a numpy
    array), in place; the other joints are left as they are."""
    for joint, q in changed_rotations(result):
        start = 4 * joint
        if start + 4 > len(rotations):
            raise ValueError(f"the answer turns joint {joint}; rotations hold "
                             f"{len(rotations) // 4} joints")
        for i in range(4):
            rotations[start + i] = q[i]


def final_root(result: ik_pb2.TickCharacterResult) -> ik_pb2.Transform:
    """The character's final root (after grounding lowered it), from
    either form of the answer."""
    if result.HasField("compact_pose"):
        return result.compact_pose.root
    return result.root
