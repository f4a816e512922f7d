"""The inspector test's own ticks, sent to a live ikd (which records them),
and the joint positions the page must show for them, computed here by
forward kinematics from the rig files and the answers -- independently of
ikd and ikctl.

    inspector_ticks.py SERVER REPO OUT.json

Ticks (sequence numbers identify them in the recording; 9002 is 9001 sent
again, so its characters' tracks span two ticks):
  9001 (Tick, job_rotations): "walker" (grounded, one goal reached and one
       out of reach, dynamics), "claimed" (a pose check on a bad pose: a
       non-unit rotation, a knee bent outside its limit, a moved bone),
       "broken" (a goal on a chain the rig does not have: a failed job),
       "swish" (the tail rig, dynamics).
  9101, 9102 (one TickStream): "streamer" complete, then on its baseline
       with one joint changed (the inspector rebuilds the rest).
Then single calls, which the inspector draws as one-character ticks whose
character is named after the method: SolveChain (one goal reached, one out
of reach), GroundFeet on the stairs, StepDynamics on the tail.
OUT.json: {"checks": [{call, character, joint, incoming, corrected,
                       moved_by}],
           "flags": {call: {"failed": [...], "violation": [...],
                            "unreached": [...]}}}
where `call` is a tick's sequence, or a single call's method.
Runs under Debian's /usr/bin/python3 with python3-grpcio, the ikd_client
package on PYTHONPATH and its stubs in $IKD_CLIENT_STUBS.
"""
import json
import math
import sys
from pathlib import Path

from ikd_client import Client, pb
from quaternions import q_mul, q_rotate

DT = 1.0 / 60.0


# Quaternions are (x, y, z, w) tuples; transforms (translation, rotation,
# scale) as ikd composes them: scale, then rotation, then translation.
def q_normalised(q):
    n = math.sqrt(sum(c * c for c in q))
    return tuple(c / n for c in q)


def compose(parent, child):
    pt, pr, ps = parent
    ct, cr, cs = child
    scaled = tuple(ps[i] * ct[i] for i in range(3))
    moved = q_rotate(pr, scaled)
    return (tuple(pt[i] + moved[i] for i in range(3)), q_mul(pr, cr),
            tuple(ps[i] * cs[i] for i in range(3)))


def vec(d, default=(0.0, 0.0, 0.0)):
    return tuple(d.get(k, 0.0) for k in "xyz") if d is not None else default


def quat(d):
    return q_normalised(tuple(d.get(k, 0.0) for k in "xyzw")) if d else (0, 0, 0, 1)


class Rig:
    """A rig file (protobuf JSON of ik.v1.Rig): names, parents, rest."""

    def __init__(self, path):
        data = json.loads(Path(path).read_text())
        self.names = [j["name"] for j in data["joints"]]
        self.legs = {leg["name"]: [leg.get(k) for k in
                                   ("hip", "knee", "ankle", "toe")]
                     for leg in data.get("legs", [])}
        self.parents, self.rest = [], []
        for joint in data["joints"]:
            parent = joint.get("parent", joint.get("parent_index", -1))
            self.parents.append(self.names.index(parent)
                                if isinstance(parent, str) else parent)
            rest = joint.get("rest", {})
            self.rest.append((vec(rest.get("translation")),
                              quat(rest.get("rotation")),
                              vec(rest.get("scale"), (1.0, 1.0, 1.0))))

    def index(self, name):
        return self.names.index(name)

    def world(self, locals_, root):
        out = []
        for j, parent in enumerate(self.parents):
            out.append(compose(root if parent < 0 else out[parent], locals_[j]))
        return [t for t, _, _ in out]


def transform_of(message):
    t = message.translation
    r = message.rotation
    s = message.scale
    return ((t.x, t.y, t.z),
            q_normalised((r.x, r.y, r.z, r.w)) if message.HasField("rotation")
            else (0.0, 0.0, 0.0, 1.0),
            (s.x, s.y, s.z) if message.HasField("scale") else (1.0, 1.0, 1.0))


def incoming_locals(rig, pose):
    """The rest pose with a Pose's overrides, rotations normalised."""
    out = list(rig.rest)
    for k in range(len(pose.rotations) // 4):
        out[k] = (out[k][0], q_normalised(tuple(pose.rotations[4 * k:4 * k + 4])),
                  out[k][2])
    for joint in pose.joints:
        j = rig.index(joint.name) if joint.HasField("name") else joint.index
        t, r, s = out[j]
        local = joint.local
        if local.HasField("translation"):
            t = (local.translation.x, local.translation.y, local.translation.z)
        if local.HasField("rotation"):
            r = q_normalised((local.rotation.x, local.rotation.y,
                              local.rotation.z, local.rotation.w))
        out[j] = (t, r, s)
    return out


def corrected_locals(rig, incoming, rotations, checked):
    """`incoming` with the answer's final rotations [(joint, quat)]; a
    checked pose keeps the rig's bones (the check's repair)."""
    out = [(rig.rest[j][0], r, rig.rest[j][2]) if checked else (t, r, s)
           for j, (t, r, s) in enumerate(incoming)]
    for j, q in rotations:
        out[j] = (out[j][0], q_normalised(q), out[j][2])
    return out


def axis_angle(axis, angle):
    s = math.sin(angle / 2)
    return pb.Quat(x=axis[0] * s, y=axis[1] * s, z=axis[2] * s,
                   w=math.cos(angle / 2))


def root_at(x, y, z):
    return pb.Transform(translation=pb.Vec3(x=x, y=y, z=z))


def joint_pose(name, rotation=None, translation=None):
    local = pb.Transform()
    if rotation is not None:
        local.rotation.CopyFrom(rotation)
    if translation is not None:
        local.translation.CopyFrom(translation)
    return pb.JointPose(name=name, local=local)


def unary_tick():
    walker = pb.TickCharacter(
        id="walker", rig="humanoid",
        pose=pb.Pose(root=root_at(0.3, 0.0, 0.45), joints=[
            joint_pose("spine", axis_angle((1, 0, 0), 0.15)),
            joint_pose("left_shoulder", axis_angle((0, 0, 1), -0.4))]),
        ground=pb.GroundFeetRequest(),
        goals=[pb.ChainGoal(chain="left_arm",
                            target=pb.Vec3(x=0.75, y=1.25, z=0.65)),
               pb.ChainGoal(chain="right_arm",
                            target=pb.Vec3(x=-3.0, y=1.2, z=0.45))],
        dynamics=pb.StepDynamicsRequest(delta_time=DT))
    claimed = pb.TickCharacter(
        id="claimed", rig="humanoid", check=pb.PoseCheck(),
        pose=pb.Pose(root=root_at(1.1, 0.0, 0.45), joints=[
            joint_pose("left_elbow", pb.Quat(x=0.0, y=0.0, z=0.0, w=1.5)),
            joint_pose("left_knee", axis_angle((1, 0, 0), -1.0)),
            joint_pose("right_wrist",
                       translation=pb.Vec3(x=-0.4, y=0.1, z=0.0))]),
        ground=pb.GroundFeetRequest(),
        goals=[pb.ChainGoal(chain="right_arm",
                            target=pb.Vec3(x=0.9, y=1.2, z=0.75))])
    broken = pb.TickCharacter(
        id="broken", rig="humanoid", pose=pb.Pose(root=root_at(-0.7, 0, 0.45)),
        ground=pb.GroundFeetRequest(),
        goals=[pb.ChainGoal(chain="no_such_chain",
                            target=pb.Vec3(x=0.0, y=1.0, z=0.5))])
    swish = pb.TickCharacter(
        id="swish", rig="tail", pose=pb.Pose(root=root_at(-0.2, 0.3, 1.2)),
        dynamics=pb.StepDynamicsRequest(delta_time=DT))
    return pb.TickRequest(
        characters=[walker, claimed, broken, swish], sequence=9001,
        job_rotations=True,
        shared_ground=pb.Ground(terrains=["stairs"]))


def stream_ticks(rig):
    """The streamer complete, then on its baseline with the spine turned."""
    count = len(rig.names)
    rotations = []
    for j in range(count):
        q = axis_angle((0, 1, 0), 0.02 * (j % 5))
        rotations.extend([q.x, q.y, q.z, q.w])
    first = pb.TickCharacter(
        id="streamer", rig="humanoid",
        compact_pose=pb.CompactPose(root=root_at(0.0, 0.0, 1.6),
                                    rotations=rotations),
        ground=pb.GroundFeetRequest(),
        dynamics=pb.StepDynamicsRequest(delta_time=DT))
    spine = axis_angle((1, 0, 0), 0.3)
    second = pb.TickCharacter(
        id="streamer", baseline=9101,
        compact_pose=pb.CompactPose(root=root_at(0.0, 0.0, 1.65),
                                    joints=[rig.index("spine")],
                                    rotations=[spine.x, spine.y, spine.z,
                                               spine.w]),
        ground=pb.GroundFeetRequest(),
        dynamics=pb.StepDynamicsRequest(delta_time=DT))
    ground = pb.Ground(terrains=["stairs"])
    return (pb.TickRequest(characters=[first], sequence=9101,
                           shared_ground=ground),
            pb.TickRequest(characters=[second], sequence=9102,
                           shared_ground=ground))


def plain_rotations(result):
    return [(j, tuple(result.rotations[4 * k:4 * k + 4]))
            for k, j in enumerate(result.joints)]


def compact_rotations(result):
    pose = result.compact_pose
    return [(j, tuple(pose.rotations[4 * k:4 * k + 4]))
            for k, j in enumerate(pose.joints)]


def flags(request, answer):
    out = {"failed": [], "violation": [], "unreached": []}
    for character, result in zip(request.characters, answer.characters):
        statuses = (result.status, result.ground_status, result.goals_status,
                    result.dynamics_status, result.check_status)
        if any(s.code != 0 for s in statuses):
            out["failed"].append(character.id)
        if result.check.violations:
            out["violation"].append(character.id)
        if any(not goal.reached for goal in result.goals):
            out["unreached"].append(character.id)
    return out


def expect(rig, call, character, locals_, incoming_root, rotations,
           final_root, joint, checked=False, moved_by=None):
    j = rig.index(joint)
    return {"call": str(call), "character": character, "joint": joint,
            "incoming": rig.world(locals_, incoming_root)[j],
            "corrected": rig.world(
                corrected_locals(rig, locals_, rotations, checked),
                final_root)[j],
            "moved_by": moved_by}


def moved_by(rig, character, result, joint):
    """The jobs whose own rotations (job_rotations) turned `joint`, named as
    the page names them, in the order the jobs ran."""
    j = rig.index(joint)
    turned = lambda rotations: any(r.index == j for r in rotations)
    out = []
    if turned(result.check.rotations):
        out.append("pose check (repair)")
    if turned(result.ground.rotations):
        out.append("ground " + next(leg for leg, joints in rig.legs.items()
                                    if joint in joints))
    for goal, answer in zip(character.goals, result.goals):
        if turned(answer.rotations):
            out.append("goal " + goal.chain)
    for chain in result.dynamics.results:
        if turned(chain.rotations):
            out.append("dynamics " + chain.chain)
    return out


def single_calls(client, humanoid, checks, all_flags):
    """SolveChain, GroundFeet and StepDynamics, each checked as the
    one-character tick the inspector draws it as."""
    pose = pb.Pose(root=root_at(0.3, 0.0, 0.45), joints=[
        joint_pose("spine", axis_angle((1, 0, 0), 0.15)),
        joint_pose("left_shoulder", axis_angle((0, 0, 1), -0.4))])
    locals_ = incoming_locals(humanoid, pose)
    root = transform_of(pose.root)
    by_index = lambda rotations: [
        (r.index, (r.rotation.x, r.rotation.y, r.rotation.z, r.rotation.w))
        for r in rotations]
    none = {"failed": [], "violation": [], "unreached": []}

    goals = [pb.ChainGoal(chain="left_arm",
                          target=pb.Vec3(x=0.75, y=1.25, z=0.65)),
             pb.ChainGoal(chain="right_arm",
                          target=pb.Vec3(x=-3.0, y=1.2, z=0.45))]
    solved = client.solve_chain(
        pb.SolveChainRequest(rig="humanoid", pose=pose, goals=goals))
    turns = [t for result in solved.results for t in by_index(result.rotations)]
    elbow = humanoid.index("left_elbow")
    checks.append(expect(
        humanoid, "SolveChain", "SolveChain", locals_, root, turns, root,
        "left_elbow", moved_by=[
            "goal " + goal.chain for goal, result in zip(goals, solved.results)
            if any(r.index == elbow for r in result.rotations)]))
    all_flags["SolveChain"] = {
        **none, "unreached": ["SolveChain"] if not all(
            r.reached for r in solved.results) else []}

    grounded = client.ground_feet(pb.GroundFeetRequest(
        rig="humanoid", pose=pose, ground=pb.Ground(terrains=["stairs"])))
    t, r, s = root
    offset = grounded.root_offset
    lowered = ((t[0] + offset.x, t[1] + offset.y, t[2] + offset.z), r, s)
    checks.append(expect(humanoid, "GroundFeet", "GroundFeet", locals_, root,
                         by_index(grounded.rotations), lowered, "left_ankle",
                         moved_by=["ground left_leg"] if any(
                             r.index == humanoid.index("left_ankle")
                             for r in grounded.rotations) else []))
    all_flags["GroundFeet"] = none

    client.step_dynamics(pb.StepDynamicsRequest(
        rig="tail", pose=pb.Pose(root=root_at(-0.2, 0.3, 1.2)), delta_time=DT))
    all_flags["StepDynamics"] = none


def main(server, repo, out_path):
    humanoid = Rig(Path(repo) / "examples/rigs/humanoid.json")
    checks, all_flags = [], {}
    with Client(server) as client:
        request = unary_tick()
        answer = client.tick(request)
        all_flags["9001"] = flags(request, answer)
        by_id = {r.id: r for r in answer.characters}
        for name, joint, checked in (("walker", "left_wrist", False),
                                     ("walker", "left_elbow", False),
                                     ("walker", "left_knee", False),
                                     ("claimed", "left_knee", True),
                                     ("claimed", "right_wrist", True)):
            character = next(c for c in request.characters if c.id == name)
            result = by_id[name]
            checks.append(expect(
                humanoid, 9001, name, incoming_locals(humanoid, character.pose),
                transform_of(character.pose.root), plain_rotations(result),
                transform_of(result.root), joint, checked,
                moved_by(humanoid, character, result, joint)))
        # The same tick again: its characters' tracks span two ticks, each
        # with its events (walker's unreached goal).
        again = pb.TickRequest()
        again.CopyFrom(request)
        again.sequence = 9002
        all_flags["9002"] = flags(again, client.tick(again))
        first, second = stream_ticks(humanoid)
        with client.tick_stream() as stream:
            answers = [stream.tick(first), stream.tick(second)]
        for request, answer in zip((first, second), answers):
            all_flags[str(request.sequence)] = flags(request, answer)
        # The second tick's incoming pose: the first's rotations with the
        # spine's replaced, as the stream's baseline completes it.
        pose = pb.Pose(rotations=first.characters[0].compact_pose.rotations)
        spine = humanoid.index("spine")
        sent = second.characters[0].compact_pose.rotations
        pose.rotations[4 * spine:4 * spine + 4] = sent
        result = answers[1].characters[0]
        checks.append(expect(
            humanoid, 9102, "streamer", incoming_locals(humanoid, pose),
            transform_of(second.characters[0].compact_pose.root),
            compact_rotations(result), transform_of(result.compact_pose.root),
            "head"))
        single_calls(client, humanoid, checks, all_flags)
    Path(out_path).write_text(json.dumps(
        {"checks": checks, "flags": all_flags}, indent=1))
    for sequence, found in all_flags.items():
        print(f"inspector_ticks: {sequence}: {found}")


if __name__ == "__main__":
    main(*sys.argv[1:4])
