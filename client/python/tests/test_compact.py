"""The tick's compact form (ikd_client.compact) against a real ikd: the
48-bit encoder held against codes the test computes itself from the
proto's description, and ticks of compact characters answered as the same
characters sent as a Pose of the widened (or decoded) numbers. Run by
run_tests.sh with IKD set to the binary."""
from __future__ import annotations

import array
import math
import random
import struct
import unittest
from fractions import Fraction

import grpc

import ikd_client
from ikd_client import Client, IkError, pb
from ikd_process import IkdProcess

Quaternion = tuple[float, float, float, float]

ikd: IkdProcess | None = None


def setUpModule() -> None:
    global ikd
    ikd = IkdProcess()


def tearDownModule() -> None:
    assert ikd is not None
    ikd.stop_cleanly()


# The encoding as CompactPose.quantized_rotations describes it, written here
# from that text (not from ikd_client.compact): bits 0-1 the largest
# component, then three 15-bit codes in x, y, z, w order, bit 47 zero; a
# component c is coded as the integer nearest (c * sqrt(2) + 1) * 0.5 *
# 32767, halves to even.

SQRT2 = 1.4142135623730951


def nearest_even(value: float) -> int:
    """The integer nearest ``value`` (a double), halves to the even one,
    computed exactly."""
    exact = Fraction(value)
    below = math.floor(exact)
    rest = exact - below
    if rest > Fraction(1, 2) or (rest == Fraction(1, 2) and below % 2 == 1):
        return below + 1
    return below


def expected_bits(q: Quaternion) -> int:
    norm = math.sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3])
    unit = [c / norm for c in q]
    largest = max(range(4), key=lambda i: (abs(unit[i]), -i))
    if unit[largest] < 0:
        unit = [-c for c in unit]
    bits, shift = largest, 2
    for i in range(4):
        if i != largest:
            code = min(max(nearest_even((unit[i] * SQRT2 + 1.0) * 0.5 * 32767.0), 0), 32767)
            bits |= code << shift
            shift += 15
    return bits


def decoded(bits: int) -> Quaternion:
    largest = bits & 3
    q = [0.0] * 4
    others = [i for i in range(4) if i != largest]
    for n, i in enumerate(others):
        code = (bits >> (2 + 15 * n)) & 0x7FFF
        q[i] = (code / 32767 * 2 - 1) / SQRT2
    rest = 1.0 - sum(q[i] * q[i] for i in others)
    q[largest] = math.sqrt(rest) if rest > 0 else 0.0
    return tuple(q)  # type: ignore[return-value]


def as_bytes(*values: int) -> bytes:
    return b"".join(value.to_bytes(6, "little") for value in values)


def f32(value: float) -> float:
    return struct.unpack("<f", struct.pack("<f", value))[0]


def random_rotation(rng: random.Random) -> Quaternion:
    """Uniform over rotations (Shoemake), either of its two quaternions."""
    u1, u2, u3 = rng.random(), rng.random(), rng.random()
    a, b = math.sqrt(1 - u1), math.sqrt(u1)
    q = (a * math.sin(2 * math.pi * u2), a * math.cos(2 * math.pi * u2),
         b * math.sin(2 * math.pi * u3), b * math.cos(2 * math.pi * u3))
    return q if rng.random() < 0.5 else tuple(-c for c in q)  # type: ignore[return-value]


def angle(a: Quaternion, b: Quaternion) -> float:
    """The angle of the rotation from unit quaternion a to b, radians."""
    if sum(x * y for x, y in zip(a, b)) < 0:
        b = tuple(-c for c in b)  # type: ignore[assignment]
    minus = math.sqrt(sum((x - y) ** 2 for x, y in zip(a, b)))
    plus = math.sqrt(sum((x + y) ** 2 for x, y in zip(a, b)))
    return 4 * math.atan2(minus, plus)


class EncoderTest(unittest.TestCase):
    def test_identity_packs_the_documented_layout(self) -> None:
        # w largest (3); x, y, z = 0: 16383.5, rounded to even: 16384.
        identity = 3 | 16384 << 2 | 16384 << 17 | 16384 << 32
        self.assertEqual(identity, 0x4000_8001_0003)
        self.assertEqual(ikd_client.quantize_rotations([(0.0, 0.0, 0.0, 1.0)]),
                         as_bytes(identity))
        self.assertEqual(ikd_client.quantize_rotations([0, 0, 0, 1, 0, 0, 0, 1]),
                         as_bytes(identity, identity))
        # Code 16384 stands for 0.5 / 32767 * sqrt(2) = 2.158e-5.
        ((x, y, z, w),) = ikd_client.dequantize_rotations(as_bytes(identity))
        self.assertEqual(x, (16384 / 32767 * 2 - 1) / SQRT2)
        self.assertEqual((x, y, z, w), decoded(identity))
        self.assertAlmostEqual(x, 2.158e-5, delta=1e-8)

    def test_golden_vectors(self) -> None:
        # 120 degrees about (1, 1, 1): x is the first of the four largest.
        c = nearest_even((0.5 * SQRT2 + 1.0) / 2 * 32767)
        self.assertEqual(c, 27968)
        self.assertEqual(ikd_client.quantize_rotations([(0.5, 0.5, 0.5, 0.5)]),
                         as_bytes(0 | c << 2 | c << 17 | c << 32))
        # z largest and negative: the quaternion is negated (x = -0.1 is
        # stored as +0.1).
        q = (-0.1, 0.2, -0.9, 0.3)
        (bits,) = struct.unpack("<Q", ikd_client.quantize_rotations([q]) + b"\0\0")
        self.assertEqual(bits & 3, 2)
        self.assertEqual(bits, expected_bits(q))
        norm = math.sqrt(sum(c * c for c in q))
        self.assertAlmostEqual(decoded(bits)[0], 0.1 / norm, delta=3e-5)
        # A 90-degree turn about y: y = w = sqrt(1/2); y is the first largest.
        h = math.sqrt(0.5)
        self.assertEqual(ikd_client.quantize_rotations([(0.0, h, 0.0, h)]),
                         as_bytes(expected_bits((0.0, h, 0.0, h))))
        self.assertEqual(expected_bits((0.0, h, 0.0, h)) & 3, 1)
        # Not a rotation (zero, NaN, infinite): the identity.
        identity = ikd_client.quantize_rotations([(0, 0, 0, 1)])
        for bad in [(0, 0, 0, 0), (math.nan, 0, 0, 1), (0, math.inf, 0, 1)]:
            self.assertEqual(ikd_client.quantize_rotations([bad]), identity, bad)

    def test_halves_round_to_even(self) -> None:
        """Rotations whose scaled component is exactly k + 0.5 (found by
        stepping x one double at a time, with w chosen so that the norm is
        exactly 1): the code is the even one of k and k + 1."""
        found = {0: 0, 1: 0}
        for k in range(20000, 20400):
            x = ((k + 0.5) / 32767 / 0.5 - 1.0) / SQRT2
            for _ in range(400):
                x = math.nextafter(x, 1.0)
                w = math.sqrt(1.0 - x * x)
                if x * x + w * w != 1.0:
                    continue
                if (x * SQRT2 + 1.0) * 0.5 * 32767.0 != k + 0.5:
                    continue
                (bits,) = struct.unpack("<Q", ikd_client.quantize_rotations([(x, 0, 0, w)]) + b"\0\0")
                self.assertEqual(bits & 3, 3)
                self.assertEqual(bits >> 2 & 0x7FFF, k if k % 2 == 0 else k + 1, (k, x))
                found[k % 2] += 1
                break
        # Both an even k (rounded down) and an odd one (rounded up) were met.
        self.assertGreater(found[0], 0, found)
        self.assertGreater(found[1], 0, found)

    def test_random_rotations_match_the_independent_codes_and_round_trip(self) -> None:
        rng = random.Random(7)
        rotations = [random_rotation(rng) for _ in range(20000)]
        packed = ikd_client.quantize_rotations(rotations)
        self.assertEqual(len(packed), 6 * len(rotations))
        self.assertEqual(packed, as_bytes(*(expected_bits(q) for q in rotations)))
        back = ikd_client.dequantize_rotations(packed)
        worst = 0.0
        for k, (q, p) in enumerate(zip(rotations, back)):
            self.assertEqual(p, decoded(expected_bits(q)), k)
            self.assertFalse(int.from_bytes(packed[6 * k:6 * k + 6], "little") >> 47)
            worst = max(worst, angle(q, p))
        self.assertLess(worst, 1.4e-4)
        self.assertGreater(worst, 5e-5)  # the codes are 15 bits, not more
        # Either quaternion of a rotation, and any length, encode alike.
        for q in rotations[:200]:
            self.assertEqual(ikd_client.quantize_rotations([tuple(-c for c in q)]),
                             ikd_client.quantize_rotations([q]))
            self.assertEqual(ikd_client.quantize_rotations([tuple(3 * c for c in q)]),
                             ikd_client.quantize_rotations([q]))

    def test_bad_bytes_are_refused(self) -> None:
        with self.assertRaisesRegex(ValueError, "7 bytes: not 6 a joint"):
            ikd_client.dequantize_rotations(bytes(7))
        with self.assertRaisesRegex(ValueError, "byte 6: bit 47"):
            ikd_client.dequantize_rotations(bytes(6) + bytes([0, 0, 0, 0, 0, 0x80]))


class BuildTest(unittest.TestCase):
    def test_compact_pose_from_flat_and_tuples(self) -> None:
        rng = random.Random(3)
        qs = [random_rotation(rng) for _ in range(5)]
        flat = array.array("f", [c for q in qs for c in q])
        pose = ikd_client.compact_pose(flat)
        self.assertEqual(list(pose.rotations), list(flat))
        self.assertEqual(ikd_client.compact_pose(qs).rotations, pose.rotations)
        self.assertFalse(pose.HasField("root"))
        self.assertEqual(len(pose.joints), 0)
        self.assertEqual(pose.quantized_rotations, b"")

        root = pb.Transform(translation=pb.Vec3(x=1.5, z=-2.0))
        quantized = ikd_client.compact_pose(
            qs[:2], root=root, quantized=True, joints=[3, 7],
            translations={9: (0.0, 0.25, 0.0), 2: pb.Vec3(y=0.1)})
        self.assertEqual(quantized.root, root)
        self.assertEqual(list(quantized.joints), [3, 7])
        self.assertEqual(len(quantized.rotations), 0)
        self.assertEqual(quantized.quantized_rotations, ikd_client.quantize_rotations(qs[:2]))
        self.assertEqual(list(quantized.translated_joints), [2, 9])
        self.assertEqual(list(quantized.translations), [0.0, f32(0.1), 0.0, 0.0, 0.25, 0.0])

        # The widened pose: the same numbers as doubles, by joint.
        widened = ikd_client.widened_pose(quantized)
        self.assertEqual(widened.root, root)
        by_joint = {joint.index: joint.local for joint in widened.joints}
        self.assertEqual(sorted(by_joint), [2, 3, 7, 9])
        decoded_qs = ikd_client.dequantize_rotations(quantized.quantized_rotations)
        q3 = by_joint[3].rotation
        self.assertEqual((q3.x, q3.y, q3.z, q3.w), decoded_qs[0])
        self.assertEqual(by_joint[2].translation.y, f32(0.1))
        self.assertFalse(by_joint[2].HasField("rotation"))
        self.assertEqual(list(ikd_client.widened_pose(pose).rotations), list(flat))

    def test_bad_shapes_are_refused_before_sending(self) -> None:
        with self.assertRaisesRegex(ValueError, "5 numbers: not 4 a joint"):
            ikd_client.compact_pose([0, 0, 0, 1, 0])
        with self.assertRaisesRegex(ValueError, "rotation 1 has 3 numbers"):
            ikd_client.compact_pose([(0, 0, 0, 1), (0, 0, 1)])
        with self.assertRaisesRegex(ValueError, "2 rotations for 1 joints"):
            ikd_client.compact_pose([(0, 0, 0, 1)] * 2, joints=[4])
        with self.assertRaisesRegex(ValueError, r"joints\[1\]: joint 2 does not come after 4"):
            ikd_client.compact_pose([(0, 0, 0, 1)] * 2, joints=[4, 2])
        with self.assertRaisesRegex(ValueError, "form 'double'"):
            ikd_client.tick_character("humanoid", form="double")


class CompactTickTest(unittest.TestCase):
    """Compact characters against the same characters sent as Poses of the
    widened numbers, in one tick: the jobs' answers are the same, bit for
    bit, and the final pose is the Pose answer's rounded into the compact
    form."""

    @classmethod
    def setUpClass(cls) -> None:
        assert ikd is not None
        cls.client = Client(ikd.target, deadline=30.0)
        rig = cls.client.get_rig("humanoid").rig
        cls.rest = [(j.rest.rotation.x, j.rest.rotation.y, j.rest.rotation.z,
                     j.rest.rotation.w) if j.rest.HasField("rotation") else (0.0, 0.0, 0.0, 1.0)
                    for j in rig.joints]

    @classmethod
    def tearDownClass(cls) -> None:
        cls.client.close()

    def animated(self, seed: int) -> list[Quaternion]:
        """Every joint's rest rotation turned by up to 0.15 rad."""
        rng = random.Random(seed)
        result = []
        for rest in self.rest:
            axis = [rng.uniform(-1, 1) for _ in range(3)]
            norm = math.sqrt(sum(a * a for a in axis))
            half = rng.uniform(0, 0.15) / 2
            s = math.sin(half) / norm
            turn = (axis[0] * s, axis[1] * s, axis[2] * s, math.cos(half))
            result.append(q_multiply(rest, turn))
        return result

    def jobs(self, k: int) -> dict:
        return dict(
            goals=[pb.ChainGoal(chain="left_arm", target=pb.Vec3(x=0.4, y=1.1, z=0.55 + 0.01 * k)),
                   pb.ChainGoal(chain="right_arm", target=pb.Vec3(x=-0.45, y=1.2, z=0.6))],
            ground=pb.GroundFeetRequest(ground=pb.Ground(terrains=["stairs"])),
            dynamics=pb.StepDynamicsRequest(delta_time=1 / 60),
        )

    def characters(self) -> list[tuple[str, pb.TickCharacter, pb.TickCharacter, list]]:
        """(form, compact character, its widened reference, rotations sent)."""
        result = []
        for k, form in enumerate([ikd_client.FLOAT, ikd_client.QUANTIZED] * 2):
            rotations = self.animated(100 + k)
            root = pb.Transform(
                translation=pb.Vec3(x=0.05 * k, y=0.0, z=0.45),
                rotation=pb.Quat(y=math.sin(0.15 * k), w=math.cos(0.15 * k)))
            # The second pair moves two bones (clavicles a centimetre out).
            translations = {5: (0.09, 0.05, 0.0), 9: (-0.09, 0.05, 0.0)} if k >= 2 else None
            compact = ikd_client.tick_character(
                "humanoid", rotations, id=f"compact-{k}", root=root, form=form,
                translations=translations, **self.jobs(k))
            reference = pb.TickCharacter(id=f"reference-{k}", rig="humanoid",
                                         pose=ikd_client.widened_pose(compact.compact_pose),
                                         **self.jobs(k))
            result.append((form, compact, reference, rotations))
        return result

    def expect_compact_answer(self, form: str, got: pb.TickCharacterResult,
                              want: pb.TickCharacterResult) -> None:
        self.assertEqual(got.status.code, 0, got.status.message)
        self.assertTrue(got.HasField("compact_pose"))
        self.assertFalse(got.HasField("root"))
        self.assertEqual(len(got.joints), 0)
        self.assertEqual(len(got.rotations), 0)
        self.assertFalse(want.HasField("compact_pose"))
        self.assertGreater(len(want.joints), 8)
        expected = pb.TickCharacterResult()
        expected.CopyFrom(want)
        expected.id = got.id
        pose = expected.compact_pose
        pose.root.CopyFrom(want.root)
        pose.joints.extend(want.joints)
        if form == ikd_client.FLOAT:
            pose.rotations.extend(want.rotations)  # rounded to float32
        else:
            # ikd's encoder and the package's make the same bytes from the
            # same doubles, within the contract of the doubles.
            pose.quantized_rotations = ikd_client.quantize_rotations(want.rotations)
            for (_, q), (_, p) in zip(ikd_client.changed_rotations(got),
                                      ikd_client.changed_rotations(want)):
                self.assertLess(angle(q, p), 1.4e-4)
        expected.ClearField("root")
        expected.ClearField("joints")
        expected.ClearField("rotations")
        for chain in expected.dynamics.results:
            self.assertGreater(len(chain.state.packed), 0)
            chain.state.packed_floats.extend(chain.state.packed)
            chain.state.ClearField("packed")
        self.assertEqual(got, expected)

    def test_compact_characters_are_answered_as_their_widened_poses(self) -> None:
        chars = self.characters()
        request = pb.TickRequest(job_rotations=True, characters=(
            [c for _, c, _, _ in chars] + [r for _, _, r, _ in chars]))
        with self.client.tick_stream() as stream:
            for sequence in range(1, 4):
                request.sequence = sequence
                answer = stream.tick(request)
                n = len(chars)
                for k, (form, compact, reference, rotations) in enumerate(chars):
                    with self.subTest(tick=sequence, character=compact.id):
                        got, want = answer.characters[k], answer.characters[n + k]
                        self.expect_compact_answer(form, got, want)
                        self.assertTrue(all(g.reached for g in got.goals))
                        self.assertTrue(all(f.grounded for f in got.ground.feet))
                        # The final rotations, read from either answer.
                        sent = ikd_client.widened_pose(compact.compact_pose)
                        base = ikd_client.quaternions(sent.rotations)
                        final = ikd_client.final_rotations(got, rotations)
                        wanted = ikd_client.final_rotations(want, base)
                        turned = {j for j, _ in ikd_client.changed_rotations(got)}
                        for j, (q, p) in enumerate(zip(final, wanted)):
                            if j not in turned:
                                self.assertEqual(q, rotations[j])
                            elif form == ikd_client.FLOAT:
                                self.assertEqual(q, tuple(f32(c) for c in p), j)
                            else:
                                self.assertLess(angle(q, p), 1.4e-4, j)
                        flat = array.array("f", [c for q in rotations for c in q])
                        ikd_client.apply_final_rotations(got, flat)
                        self.assertEqual(list(flat), [f32(c) for q in final for c in q])
                        self.assertEqual(ikd_client.final_root(got), want.root)
                        # Dynamics: float32 states, continued from the last tick.
                        (chain,) = got.dynamics.results
                        self.assertEqual(len(chain.state.packed), 0)
                        self.assertEqual(len(chain.state.packed_floats), 10 * 7)
                        self.assertEqual(chain.reset, pb.DYNAMICS_RESET_EMPTY_STATE
                                         if sequence == 1 else pb.DYNAMICS_RESET_NONE)
                # The next tick carries the states over: the compact answer's
                # float32 states as they came, and the same numbers widened
                # for the references.
                for k in range(n):
                    states = [c.state for c in answer.characters[k].dynamics.results]
                    request.characters[k].dynamics.ClearField("states")
                    request.characters[k].dynamics.states.extend(states)
                    widened = request.characters[n + k].dynamics
                    widened.ClearField("states")
                    for state in states:
                        copy = widened.states.add()
                        copy.CopyFrom(state)
                        copy.packed.extend(state.packed_floats)
                        copy.ClearField("packed_floats")

    def test_the_pose_form_is_answered_in_its_own_form(self) -> None:
        rotations = self.animated(9)
        jobs = self.jobs(0)
        character = ikd_client.tick_character("humanoid", rotations, id="pose", form=ikd_client.POSE,
                                              **jobs)
        self.assertFalse(character.HasField("compact_pose"))
        self.assertEqual(list(character.pose.rotations), [c for q in rotations for c in q])
        plain = pb.TickCharacter(id="pose", rig="humanoid", pose=pb.Pose(
            rotations=[c for q in rotations for c in q]), **jobs)
        answer = self.client.tick(pb.TickRequest(characters=[character, plain]))
        got, want = answer.characters
        self.assertFalse(got.HasField("compact_pose"))
        self.assertEqual(got, want)
        self.assertEqual(len(ikd_client.changed_rotations(got)), len(got.joints))
        final = ikd_client.final_rotations(got, rotations)
        for joint, q in ikd_client.changed_rotations(got):
            self.assertEqual(final[joint], q)

    def test_bad_compact_poses_fail_their_character_with_its_path(self) -> None:
        good = ikd_client.compact_pose(self.rest)
        identity = ikd_client.quantize_rotations([(0, 0, 0, 1)])
        bad = {
            "compact_pose.rotations": pb.CompactPose(rotations=[0, 0, 0, 1, 0]),
            "compact_pose.quantized_rotations[6]": pb.CompactPose(
                quantized_rotations=identity + identity[:5] + bytes([identity[5] | 0x80])),
            "compact_pose.quantized_rotations": pb.CompactPose(
                quantized_rotations=identity + b"\0"),
            "compact_pose.rotations[4]": pb.CompactPose(rotations=[0, 0, 0, 1, 0, 0, 0, 2]),
            "compact_pose.joints[1]": pb.CompactPose(joints=[4, 2], rotations=[0, 0, 0, 1] * 2),
            "compact_pose.translations": pb.CompactPose(translations=[0.0, 0.1, 0.0]),
        }
        characters = [pb.TickCharacter(id="good", rig="humanoid", compact_pose=good)]
        for field, pose in bad.items():
            characters.append(pb.TickCharacter(id=field, rig="humanoid", compact_pose=pose,
                                               **self.jobs(0)))
        # Both forms at once.
        both = pb.TickCharacter(id="compact_pose", rig="humanoid", compact_pose=good,
                                pose=pb.Pose(rotations=[0, 0, 0, 1]))
        characters.append(both)
        answer = self.client.tick(pb.TickRequest(characters=characters))
        self.assertEqual(answer.characters[0].status.code, 0)
        self.assertTrue(answer.characters[0].HasField("compact_pose"))
        for k, result in enumerate(answer.characters[1:], start=1):
            with self.subTest(field=result.id):
                field = f"characters[{k}].{result.id}"
                error = IkError.from_job_status(result.status)
                self.assertEqual(error.code, grpc.StatusCode.INVALID_ARGUMENT, error)
                self.assertEqual(error.fields, (field,), error)
                self.assertTrue(error.message.startswith(field + ": "), error.message)
                # A character that could not be posed runs no job.
                self.assertFalse(result.HasField("compact_pose"))
                self.assertEqual(len(result.goals), 0)
        messages = {r.id: r.status.message for r in answer.characters}
        self.assertIn("5 numbers: not 4 a joint", messages["compact_pose.rotations"])
        self.assertIn("bit 47", messages["compact_pose.quantized_rotations[6]"])
        self.assertIn("joint 1", messages["compact_pose.rotations[4]"])


def q_multiply(a: Quaternion, b: Quaternion) -> Quaternion:
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return (
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
        aw * bw - ax * bx - ay * by - az * bz,
    )


if __name__ == "__main__":
    unittest.main()
