"""ikd_client against a real ikd (plaintext): solving, ticks, registries,
errors and deadlines. Run by run_tests.sh with IKD set to the binary."""
from __future__ import annotations

import math
import unittest

import grpc

from ikd_client import Client, FieldViolation, IkError, pb
from ikd_process import IkdProcess

Vector = tuple[float, float, float]
Quaternion = tuple[float, float, float, float]  # x, y, z, w

IDENTITY: Quaternion = (0.0, 0.0, 0.0, 1.0)
# A point the bundled tail reaches within its joint limits.
TAIL_TARGET: Vector = (0.25, 0.55, -0.95)

ikd: IkdProcess | None = None


def setUpModule() -> None:
    global ikd
    ikd = IkdProcess()


def tearDownModule() -> None:
    assert ikd is not None
    ikd.stop_cleanly()


# Forward kinematics, written here from the proto's definitions (Transform:
# scale, then rotation, then translation; a joint's local transform relative
# to its parent; the pose's root maps model space to world space), to check
# ikd's answers independently of its core.

def q_multiply(a: Quaternion, b: Quaternion) -> Quaternion:
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return (
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
        aw * bw - ax * bx - ay * by - az * bz,
    )


def q_rotate(q: Quaternion, v: Vector) -> Vector:
    x, y, z, w = q
    conjugate = (-x, -y, -z, w)
    rx, ry, rz, _ = q_multiply(q_multiply(q, (v[0], v[1], v[2], 0.0)), conjugate)
    return (rx, ry, rz)


def q_axis_angle(axis: Vector, angle: float) -> Quaternion:
    norm = math.sqrt(sum(c * c for c in axis))
    s = math.sin(angle / 2) / norm
    return (axis[0] * s, axis[1] * s, axis[2] * s, math.cos(angle / 2))


class Frame:
    """A transform: translation, rotation, scale."""

    def __init__(self, translation: Vector = (0.0, 0.0, 0.0),
                 rotation: Quaternion = IDENTITY, scale: Vector = (1.0, 1.0, 1.0)) -> None:
        self.translation, self.rotation, self.scale = translation, rotation, scale

    @classmethod
    def from_proto(cls, transform: pb.Transform) -> Frame:
        frame = cls()
        if transform.HasField("translation"):
            t = transform.translation
            frame.translation = (t.x, t.y, t.z)
        if transform.HasField("rotation"):
            frame.rotation = as_tuple(transform.rotation)
        if transform.HasField("scale"):
            s = transform.scale
            frame.scale = (s.x, s.y, s.z)
        return frame

    def compose(self, child: Frame) -> Frame:
        """This frame followed by ``child`` (child local to this one)."""
        scaled = tuple(s * t for s, t in zip(self.scale, child.translation))
        moved = q_rotate(self.rotation, scaled)
        return Frame(
            tuple(a + b for a, b in zip(self.translation, moved)),
            q_multiply(self.rotation, child.rotation),
            tuple(a * b for a, b in zip(self.scale, child.scale)),
        )


def as_tuple(q: pb.Quat) -> Quaternion:
    return (q.x, q.y, q.z, q.w)


def world_frames(rig: pb.Rig, pose: pb.Pose,
                 rotations: dict[str, Quaternion]) -> dict[str, Frame]:
    """Every joint's world frame for ``pose`` with ``rotations`` (by joint
    name) replacing the local rotations."""
    root = Frame.from_proto(pose.root)
    overrides = {joint.name: joint.local for joint in pose.joints}
    model: list[Frame] = []
    frames: dict[str, Frame] = {}
    index_of = {joint.name: i for i, joint in enumerate(rig.joints)}
    for joint in rig.joints:
        local = Frame.from_proto(joint.rest)
        if joint.name in overrides and overrides[joint.name].HasField("rotation"):
            local.rotation = as_tuple(overrides[joint.name].rotation)
        local.rotation = rotations.get(joint.name, local.rotation)
        parent = joint.WhichOneof("parent_ref")
        if parent == "parent_index":
            local = model[joint.parent_index].compose(local)
        elif parent == "parent":
            local = model[index_of[joint.parent]].compose(local)
        model.append(local)
        frames[joint.name] = root.compose(local)
    return frames


def vec3(v: Vector) -> pb.Vec3:
    return pb.Vec3(x=v[0], y=v[1], z=v[2])


def distance(a: Vector, b: pb.Vec3) -> float:
    return math.dist(a, (b.x, b.y, b.z))


def goal(chain: str, target: Vector, **fields: object) -> pb.ChainGoal:
    return pb.ChainGoal(chain=chain, target=vec3(target), **fields)


def arm_rig(name: str = "py_arm", elbow_length: float = 0.3) -> pb.Rig:
    """shoulder -> elbow (bent 5 degrees) -> wrist: a rig of the test's own."""
    rig = pb.Rig(name=name)
    rig.joints.add(name="shoulder")
    elbow = rig.joints.add(name="elbow", parent="shoulder")
    elbow.rest.translation.CopyFrom(pb.Vec3(y=-elbow_length))
    elbow.rest.rotation.CopyFrom(pb.Quat(x=-0.0436194, w=0.9990482))
    wrist = rig.joints.add(name="wrist", parent="elbow")
    wrist.rest.translation.CopyFrom(pb.Vec3(y=-0.25))
    rig.chains.add(name="arm", root="shoulder", tip="wrist")
    return rig


class ClientTestCase(unittest.TestCase):
    def setUp(self) -> None:
        assert ikd is not None
        self.client = Client(ikd.target, deadline=30.0)
        self.addCleanup(self.client.close)

    def assertIkError(self, error: IkError, code: grpc.StatusCode, field: str) -> None:
        self.assertEqual(error.code, code, error)
        self.assertEqual(error.fields, (field,), error)
        self.assertTrue(error.message.startswith(field + ": "), error.message)
        self.assertEqual(str(error), f"{code.name}: {error.message}")


class SolveTest(ClientTestCase):
    def check_forward_kinematics(self, rig_name: str, pose: pb.Pose,
                                 answer: pb.SolveChainResponse) -> None:
        """The reported effector is where the rig's forward kinematics with
        the answer's rotations puts the chain's tip (within 1e-6)."""
        stored = self.client.get_rig(rig_name)
        self.assertEqual(stored.revision, answer.revision)
        tips = {chain.name: chain.tip for chain in stored.rig.chains}
        for result in answer.results:
            rotations = {joint.name: as_tuple(joint.rotation) for joint in result.rotations}
            self.assertTrue(rotations)
            tip = world_frames(stored.rig, pose, rotations)[tips[result.chain]]
            self.assertLess(distance(tip.translation, result.effector), 1e-6,
                            f"{rig_name}/{result.chain}: FK {tip.translation}")

    def test_health(self) -> None:
        self.assertTrue(self.client.health())

    def test_humanoid_left_arm_reaches_and_forward_kinematics_agrees(self) -> None:
        # A character turned and moved in the world, its spine bent.
        pose = pb.Pose(root=pb.Transform(
            translation=pb.Vec3(x=1.0, y=0.0, z=2.0),
            rotation=pb.Quat(**dict(zip("xyzw", q_axis_angle((0, 1, 0), 0.5))))))
        pose.joints.add(name="spine").local.rotation.CopyFrom(
            pb.Quat(**dict(zip("xyzw", q_axis_angle((1, 0, 0), 0.2)))))
        model_target = (0.45, 1.2, 0.15)
        root = Frame.from_proto(pose.root)
        target = root.compose(Frame(model_target)).translation
        answer = self.client.solve_chain(pb.SolveChainRequest(
            rig="humanoid", pose=pose, goals=[goal("left_arm", target)]))
        (result,) = answer.results
        self.assertEqual(result.chain, "left_arm")
        self.assertTrue(result.reached)
        self.assertEqual(result.stop_reason, pb.STOP_REASON_REACHED)
        self.assertEqual(result.solver, pb.SOLVER_TWO_BONE)
        self.assertLessEqual(result.residual, 1e-5)
        self.assertLess(distance(target, result.effector), 1e-5)
        self.assertEqual([j.name for j in result.rotations], ["left_shoulder", "left_elbow"])
        self.check_forward_kinematics("humanoid", pose, answer)

    def test_tail_fabrik_forward_kinematics_agrees(self) -> None:
        pose = pb.Pose()
        answer = self.client.solve_chain(pb.SolveChainRequest(
            rig="tail", goals=[goal("tail", TAIL_TARGET, solver=pb.SOLVER_FABRIK)]))
        (result,) = answer.results
        self.assertTrue(result.reached)
        self.assertEqual(result.solver, pb.SOLVER_FABRIK)
        self.assertAlmostEqual(distance(TAIL_TARGET, result.effector), result.residual,
                               places=9)
        self.check_forward_kinematics("tail", pose, answer)

    def test_unreachable_target_is_not_an_error(self) -> None:
        target = (0.0, 5.0, 0.0)
        answer = self.client.solve_chain(pb.SolveChainRequest(
            rig="humanoid", goals=[goal("left_arm", target)]))
        (result,) = answer.results
        self.assertFalse(result.reached)
        self.assertGreater(result.residual, 3.0)
        self.assertAlmostEqual(distance(target, result.effector), result.residual, places=9)
        self.check_forward_kinematics("humanoid", pb.Pose(), answer)

    def test_bad_target_is_invalid_argument_with_its_field(self) -> None:
        with self.assertRaises(IkError) as raised:
            self.client.solve_chain(pb.SolveChainRequest(
                rig="humanoid", goals=[goal("left_arm", (0.0, math.nan, 0.0))]))
        self.assertIkError(raised.exception, grpc.StatusCode.INVALID_ARGUMENT,
                           "goals[0].target")
        self.assertEqual(raised.exception.field, "goals[0].target")
        self.assertIn("not finite", raised.exception.field_violations[0].description)

    def test_unknown_chain_is_not_found(self) -> None:
        with self.assertRaises(IkError) as raised:
            self.client.solve_chain(pb.SolveChainRequest(
                rig="humanoid", goals=[goal("left_arm", (0.4, 1.2, 0.1)),
                                       goal("tentacle", (0.0, 1.0, 0.0))]))
        self.assertIkError(raised.exception, grpc.StatusCode.NOT_FOUND, "goals[1].chain")
        self.assertEqual(
            raised.exception.field_violations,
            (FieldViolation("goals[1].chain", "rig 'humanoid' has no chain 'tentacle'"),))

    def test_unknown_rig_is_not_found(self) -> None:
        with self.assertRaises(IkError) as raised:
            self.client.solve_chain(pb.SolveChainRequest(
                rig="nobody", goals=[goal("left_arm", (0.4, 1.2, 0.1))]))
        self.assertIkError(raised.exception, grpc.StatusCode.NOT_FOUND, "rig")

    def test_ground_feet_on_a_plane(self) -> None:
        answer = self.client.ground_feet(pb.GroundFeetRequest(
            rig="humanoid", ground=pb.Ground(planes=[pb.Plane(point=pb.Vec3(y=-0.05))])))
        self.assertEqual(len(answer.feet), 2)
        for foot in answer.feet:
            self.assertTrue(foot.ground_found and foot.grounded and foot.reached, foot)
            self.assertAlmostEqual(foot.contact_point.y, -0.05, places=9)
        self.assertGreater(answer.pelvis_drop, 0.0)
        self.assertAlmostEqual(answer.root_offset.y, -answer.pelvis_drop)

    def test_step_dynamics_carries_its_state(self) -> None:
        request = pb.StepDynamicsRequest(rig="tail", delta_time=1 / 30)
        first = self.client.step_dynamics(request)
        self.assertEqual(first.results[0].reset, pb.DYNAMICS_RESET_EMPTY_STATE)
        request.states.extend(result.state for result in first.results)
        request.pose.root.translation.CopyFrom(pb.Vec3(z=0.1))
        second = self.client.step_dynamics(request)
        self.assertEqual(second.results[0].reset, pb.DYNAMICS_RESET_NONE)
        self.assertNotEqual(first.results[0].rotations, second.results[0].rotations)


def humanoid_character(character_id: str, *goals: pb.ChainGoal) -> pb.TickCharacter:
    return pb.TickCharacter(id=character_id, rig="humanoid", goals=goals)


class TickTest(ClientTestCase):
    def test_tick_of_two_characters(self) -> None:
        left, right = goal("left_arm", (0.45, 1.2, 0.15)), goal("right_arm", (-0.45, 1.2, 0.15))
        answer = self.client.tick(pb.TickRequest(sequence=42, characters=[
            humanoid_character("npc-1", left, right),
            humanoid_character("npc-2", goal("tentacle", (0.0, 1.0, 0.0))),
        ]))
        self.assertEqual(answer.sequence, 42)
        npc1, npc2 = answer.characters
        self.assertEqual((npc1.id, npc2.id), ("npc-1", "npc-2"))
        self.assertEqual(npc1.goals_status.code, 0)
        self.assertEqual([result.reached for result in npc1.goals], [True, True])
        self.assertEqual(len(npc1.joints), 4)
        self.assertEqual(len(npc1.rotations), 16)
        # A job's answer is the single RPC's, less the rotations.
        single = self.client.solve_chain(pb.SolveChainRequest(rig="humanoid", goals=[left]))
        self.assertEqual(npc1.goals[0].effector, single.results[0].effector)
        self.assertEqual(npc1.goals[0].residual, single.results[0].residual)
        # The second character's goals fail alone, with their path.
        error = IkError.from_job_status(npc2.goals_status)
        self.assertEqual(error.code, grpc.StatusCode.NOT_FOUND)
        self.assertEqual(error.fields, ("characters[1].goals[0].chain",))
        self.assertEqual(error.field_violations[0].description,
                         "rig 'humanoid' has no chain 'tentacle'")

    def test_tick_without_characters_fails_the_call(self) -> None:
        with self.assertRaises(IkError) as raised:
            self.client.tick(pb.TickRequest())
        self.assertIkError(raised.exception, grpc.StatusCode.INVALID_ARGUMENT, "characters")

    def stream_request(self, sequence: int, states: list[pb.DynamicChainState]) -> pb.TickRequest:
        """A humanoid walking along +Z: a hand goal and its ponytail."""
        reach = goal("left_arm", (0.45, 1.2, 0.15 + sequence * 0.05))
        character = humanoid_character("walker", reach)
        character.pose.root.translation.CopyFrom(pb.Vec3(z=sequence * 0.05))
        character.dynamics.CopyFrom(pb.StepDynamicsRequest(delta_time=1 / 60, states=states))
        return pb.TickRequest(sequence=sequence, characters=[character])

    def test_tick_stream_carries_states_from_tick_to_tick(self) -> None:
        states: list[pb.DynamicChainState] = []
        answers = []
        with self.client.tick_stream() as stream:
            for sequence in range(1, 7):
                request = self.stream_request(sequence, states)
                answer = stream.tick(request)
                self.assertEqual(answer.sequence, sequence)
                (character,) = answer.characters
                self.assertEqual(character.status.code, 0)
                self.assertTrue(character.goals[0].reached)
                (chain,) = character.dynamics.results
                self.assertEqual(chain.chain, "ponytail")
                self.assertEqual(chain.reset, pb.DYNAMICS_RESET_EMPTY_STATE if sequence == 1
                                 else pb.DYNAMICS_RESET_NONE)
                states = [result.state for result in character.dynamics.results]
                answers.append((request, answer))
                # A tick refused as a whole leaves the stream usable.
                if sequence == 3:
                    with self.assertRaises(IkError) as raised:
                        stream.tick(pb.TickRequest(sequence=100))
                    self.assertIkError(raised.exception, grpc.StatusCode.INVALID_ARGUMENT,
                                       "characters")
        # The states moved on, and each streamed tick is the unary tick's answer.
        self.assertNotEqual(answers[1][1].characters[0].dynamics.results[0].state,
                            answers[4][1].characters[0].dynamics.results[0].state)
        for request, answer in answers:
            self.assertEqual(self.client.tick(request), answer)


class RegistryTest(ClientTestCase):
    def test_register_get_list_delete_a_rig(self) -> None:
        registered = self.client.register_rig(arm_rig())
        self.addCleanup(self.delete_quietly, "py_arm")
        self.assertEqual(registered.name, "py_arm")
        self.assertTrue(registered.revision.startswith("sha256:"))
        self.assertTrue(registered.created)
        again = self.client.register_rig(arm_rig())
        self.assertFalse(again.created)
        self.assertEqual(again.revision, registered.revision)

        stored = self.client.get_rig("py_arm")
        self.assertEqual(stored.revision, registered.revision)
        self.assertEqual([joint.name for joint in stored.rig.joints],
                         ["shoulder", "elbow", "wrist"])
        summaries = {rig.name: rig for rig in self.client.list_rigs().rigs}
        self.assertEqual(summaries["py_arm"].revision, registered.revision)
        self.assertEqual(summaries["py_arm"].joint_count, 3)
        self.assertEqual(list(summaries["py_arm"].chains), ["arm"])
        self.assertIn("humanoid", summaries)

        answer = self.client.solve_chain(pb.SolveChainRequest(
            rig="py_arm", goals=[goal("arm", (0.1, -0.35, 0.15))]))
        self.assertTrue(answer.results[0].reached)

        with self.assertRaises(IkError) as raised:
            self.client.register_rig(arm_rig(elbow_length=0.4))
        self.assertIkError(raised.exception, grpc.StatusCode.ALREADY_EXISTS, "rig.name")
        with self.assertRaises(IkError) as raised:
            self.client.delete_rig("py_arm", revision="sha256:0000000000000000")
        self.assertEqual(raised.exception.code, grpc.StatusCode.FAILED_PRECONDITION)

        self.assertEqual(self.client.delete_rig("py_arm").revision, registered.revision)
        with self.assertRaises(IkError) as raised:
            self.client.get_rig("py_arm")
        self.assertIkError(raised.exception, grpc.StatusCode.NOT_FOUND, "name")
        self.assertNotIn("py_arm", [rig.name for rig in self.client.list_rigs().rigs])

    def delete_quietly(self, name: str) -> None:
        try:
            self.client.delete_rig(name)
        except IkError:
            pass

    def test_register_list_delete_a_terrain(self) -> None:
        terrain = pb.Terrain(name="py_flat", heightfield=pb.Heightfield(
            origin=pb.Vec3(x=-2.0, y=-0.1, z=-2.0), spacing_x=4.0, spacing_z=4.0,
            columns=2, rows=2, heights=[0.0] * 4))
        registered = self.client.register_terrain(terrain)
        self.assertTrue(registered.created)
        summaries = {t.name: t for t in self.client.list_terrains().terrains}
        self.assertEqual(summaries["py_flat"].revision, registered.revision)
        self.assertEqual(summaries["py_flat"].vertex_count, 4)
        grounded = self.client.ground_feet(pb.GroundFeetRequest(
            rig="humanoid", ground=pb.Ground(terrains=["py_flat"])))
        self.assertEqual(list(grounded.terrain_revisions), [registered.revision])
        self.assertAlmostEqual(grounded.feet[0].contact_point.y, -0.1, places=9)
        self.assertEqual(self.client.delete_terrain("py_flat").revision, registered.revision)
        with self.assertRaises(IkError) as raised:
            self.client.delete_terrain("py_flat")
        self.assertIkError(raised.exception, grpc.StatusCode.NOT_FOUND, "name")

    def test_bad_rig_names_its_field(self) -> None:
        rig = arm_rig("py_bad")
        rig.joints[1].rest.rotation.CopyFrom(pb.Quat())
        with self.assertRaises(IkError) as raised:
            self.client.register_rig(rig)
        self.assertEqual(raised.exception.code, grpc.StatusCode.INVALID_ARGUMENT)
        self.assertEqual(raised.exception.field, "rig.joints[1].rest.rotation")


def heavy_solve() -> pb.SolveChainRequest:
    """64 torque goals on the tail: about 30 ms of solving on the test VM.
    (gRPC keeps deadlines in milliseconds, so a call that takes less than
    one may be answered before a microsecond's deadline is noticed.)"""
    return pb.SolveChainRequest(rig="tail", goals=[
        goal("tail", (0.3 * (i % 7 - 3), 0.5, -0.9 + 0.01 * i), solver=pb.SOLVER_TORQUE,
             max_iterations=1000, tolerance=1e-12)
        for i in range(64)])


def heavy_tick() -> pb.TickRequest:
    """2,000 grounded, reaching, simulated humanoids: about 60 ms."""
    return pb.TickRequest(characters=[
        pb.TickCharacter(
            id=str(i), rig="humanoid", goals=[goal("left_arm", (0.45, 1.2, 0.1 + i * 1e-4))],
            ground=pb.GroundFeetRequest(ground=pb.Ground(terrains=["stairs"])),
            dynamics=pb.StepDynamicsRequest(delta_time=1 / 60))
        for i in range(2000)])


class DeadlineTest(ClientTestCase):
    def test_a_tiny_deadline_on_the_call(self) -> None:
        with self.assertRaises(IkError) as raised:
            self.client.solve_chain(heavy_solve(), timeout=1e-6)
        self.assertEqual(raised.exception.code, grpc.StatusCode.DEADLINE_EXCEEDED)
        self.assertEqual(raised.exception.field_violations, ())
        # The client's own deadline (30 s) is untouched by the override.
        self.assertEqual(len(self.client.solve_chain(heavy_solve()).results), 64)

    def test_a_tiny_deadline_for_every_call(self) -> None:
        assert ikd is not None
        with Client(ikd.target, deadline=1e-6) as client:
            self.assertEqual(client.deadline, 1e-6)
            calls = (lambda: client.solve_chain(heavy_solve()),
                     lambda: client.tick(heavy_tick()))
            for call in calls:
                with self.assertRaises(IkError) as raised:
                    call()
                self.assertEqual(raised.exception.code, grpc.StatusCode.DEADLINE_EXCEEDED)
            self.assertTrue(client.health(timeout=30.0))

    def test_a_tick_past_its_deadline_cancels_the_stream(self) -> None:
        request = pb.TickRequest(sequence=1, characters=[
            humanoid_character("npc", goal("left_arm", (0.4, 1.2, 0.1)))])
        stream = self.client.tick_stream()
        self.assertEqual(stream.tick(request).sequence, 1)
        request.sequence = 2
        with self.assertRaises(IkError) as raised:
            stream.tick(request, timeout=1e-9)
        self.assertEqual(raised.exception.code, grpc.StatusCode.DEADLINE_EXCEEDED)
        with self.assertRaises(IkError) as again:
            stream.tick(request)
        self.assertIs(again.exception, raised.exception)
        stream.close()


if __name__ == "__main__":
    unittest.main()
