#!/usr/bin/python3
"""Bring your own character, from Python: a rig imported from glTF, solved,
grounded and stepped through a running ikd with the ikd_client package.

    ikctl rigs import examples/gltf/hero.gltf --name=hero > hero.json
    client/python/generate.sh          # or examples/python/generate_stubs.sh DIR
                                       # and IKD_CLIENT_STUBS=DIR
    /usr/bin/python3 examples/python/byo_character.py \\
        --server 127.0.0.1:50051 --rig-json hero.json

The program loads the imported rig (protobuf JSON of ik.v1.Rig), adds a
dynamic chain for the hero's ponytail (hair_1 .. hair_3) with colliders
round the head, neck and upper back, registers it (replacing an older "hero"), then

- solves left_arm to a point 0.4 m forward and down from the left shoulder,
  found by forward kinematics of the rig's rest pose in Python;
- grounds both feet on the registered terrain `stairs` (ikd's example,
  --terrain_dir=examples/terrains) with the root at (0, 0, 0.45), in front
  of the second step;
- steps the ponytail 60 times by 1/60 s, sending each answer's state back
  with the next step, and prints the tip on the way down.

For an ikd serving TLS (--tls_cert), requiring client certificates
(--tls_client_ca) or bearer tokens (--token_file), add --ca FILE,
--cert FILE --key FILE, and --token-file FILE (or IKD_TOKEN in the
environment); registering a rig needs an admin token.

Use /usr/bin/python3 (Debian's python3-grpcio and python3-protobuf). The
package is used in place (client/python is put on sys.path when ikd_client
is not installed).
"""
from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

from example_cli import (  # noqa: E402  (next to this file)
    add_connection_arguments,
    connect,
    ikd_client,
    print_error,
)
from google.protobuf import json_format  # noqa: E402
from ikd_client import Client, IkError  # noqa: E402

SHOULDER_CHAIN = "left_arm"
# The target: this far from the shoulder, half forward (+Z), half down.
REACH = 0.4
TERRAIN = "stairs"
ROOT = (0.0, 0.0, 0.45)
STEPS = 60
DT = 1.0 / 60.0
PRINT_STEPS = (1, 15, 30, 45, 60)


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_connection_arguments(parser)
    parser.add_argument(
        "--rig-json",
        required=True,
        help="the rig as `ikctl rigs import examples/gltf/hero.gltf --name=hero` prints it",
    )
    parser.add_argument(
        "--stubs",
        help="directory holding the generated ik/v1/ik_pb2*.py modules (default: "
        "$IKD_CLIENT_STUBS, else client/python/ikd_client/_gen)",
    )
    return parser.parse_args()



# Forward kinematics of the rest pose, in plain Python (quaternions x, y, z, w).


def quat_mul(a, b):
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return (
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
        aw * bw - ax * bx - ay * by - az * bz,
    )


def quat_rotate(q, v):
    x, y, z, w = q
    vx, vy, vz = v
    # v + 2 w (q.xyz x v) + 2 q.xyz x (q.xyz x v)
    tx = 2 * (y * vz - z * vy)
    ty = 2 * (z * vx - x * vz)
    tz = 2 * (x * vy - y * vx)
    return (
        vx + w * tx + (y * tz - z * ty),
        vy + w * ty + (z * tx - x * tz),
        vz + w * tz + (x * ty - y * tx),
    )


def rest_model_positions(rig) -> dict[str, tuple[float, float, float]]:
    """Every joint's model-space position in the rest pose. Parents come
    before children in a rig; an unset rotation is the identity and an unset
    scale is 1 (the importer bakes scales into translations anyway)."""
    world: dict[str, tuple[tuple[float, ...], tuple[float, ...], tuple[float, ...]]] = {}
    positions = {}
    for joint in rig.joints:
        rest = joint.rest
        t = (rest.translation.x, rest.translation.y, rest.translation.z)
        q = (rest.rotation.x, rest.rotation.y, rest.rotation.z, rest.rotation.w)
        if q == (0.0, 0.0, 0.0, 0.0):
            q = (0.0, 0.0, 0.0, 1.0)
        s = (rest.scale.x, rest.scale.y, rest.scale.z) if rest.HasField("scale") else (1, 1, 1)
        if joint.parent:
            pt, pq, ps = world[joint.parent]
            scaled = (ps[0] * t[0], ps[1] * t[1], ps[2] * t[2])
            offset = quat_rotate(pq, scaled)
            t = (pt[0] + offset[0], pt[1] + offset[1], pt[2] + offset[2])
            q = quat_mul(pq, q)
            s = (ps[0] * s[0], ps[1] * s[1], ps[2] * s[2])
        world[joint.name] = (t, q, s)
        positions[joint.name] = t
    return positions


def fmt(v) -> str:
    x, y, z = (v.x, v.y, v.z) if hasattr(v, "x") else v
    return f"({x:.6f}, {y:.6f}, {z:.6f})"


def add_ponytail(pb, rig) -> None:
    """The importer proposes chains and legs from bone names only; it never
    proposes dynamic chains (nothing in a glTF skin says a bone is hair), so
    the hero's ponytail is added here: hair_1 follows the head, hair_2 and
    hair_3 are simulated, and they keep out of the head, the neck and the
    top of the back (colliders in the joints' local space, metres)."""
    rig.colliders.add(
        name="head",
        joint="mixamorig_Head",
        sphere=pb.Sphere(center=pb.Vec3(y=0.07), radius=0.085),
    )
    rig.colliders.add(
        name="neck",
        joint="mixamorig_Neck",
        capsule=pb.Capsule(start=pb.Vec3(), end=pb.Vec3(y=0.1), radius=0.05),
    )
    rig.colliders.add(
        name="upper_back",
        joint="mixamorig_Spine2",
        capsule=pb.Capsule(
            start=pb.Vec3(x=-0.1, y=0.15), end=pb.Vec3(x=0.1, y=0.15), radius=0.06
        ),
    )
    rig.dynamic_chains.add(
        name="ponytail",
        root="hair_1",
        drag=0.06,           # a little air resistance per substep
        stiffness=0.0,       # free to hang: no pull back to the animated pose
        radius=0.02,         # the hair's thickness against the collider
        follow_the_leader=0.9,
        colliders=["head", "neck", "upper_back"],
    )


def solve_left_arm(client: Client, pb, rig, positions) -> None:
    chain = next(c for c in rig.chains if c.name == SHOULDER_CHAIN)
    shoulder = positions[chain.root]
    d = REACH / math.sqrt(2.0)
    target = (shoulder[0], shoulder[1] - d, shoulder[2] + d)
    print(f"{SHOULDER_CHAIN}: shoulder {chain.root} at {fmt(shoulder)}, target {fmt(target)}")
    request = pb.SolveChainRequest(
        rig=rig.name,
        goals=[pb.ChainGoal(chain=SHOULDER_CHAIN, target=pb.Vec3(x=target[0], y=target[1], z=target[2]))],
    )
    for result in client.solve_chain(request).results:
        print(
            f"{result.chain}: reached={result.reached} residual={result.residual:.3g} m "
            f"solver={pb.Solver.Name(result.solver)} iterations={result.iterations} "
            f"tip={fmt(result.effector)}"
        )
        for joint in result.rotations:
            q = joint.rotation
            print(f"  {joint.name}: x={q.x:.6f} y={q.y:.6f} z={q.z:.6f} w={q.w:.6f}")


def ground(client: Client, pb, rig) -> None:
    request = pb.GroundFeetRequest(
        rig=rig.name,
        pose=pb.Pose(root=pb.Transform(translation=pb.Vec3(x=ROOT[0], y=ROOT[1], z=ROOT[2]))),
        ground=pb.Ground(terrains=[TERRAIN]),
    )
    answer = client.ground_feet(request)
    print(
        f"ground on {TERRAIN} ({answer.terrain_revisions[0]}), root {fmt(ROOT)}: "
        f"pelvis_drop={answer.pelvis_drop:.6f} m"
    )
    for foot in answer.feet:
        print(
            f"ground {foot.leg}: grounded={foot.grounded} reached={foot.reached} "
            f"contact={fmt(foot.contact_point)} normal={fmt(foot.contact_normal)} "
            f"moved={foot.moved:.4f} m tilt={foot.tilt:.4f} rad"
        )


def step_ponytail(client: Client, pb, rig, positions) -> None:
    chain = next(c for c in rig.dynamic_chains if c.name == "ponytail")
    print(f"dynamics rest: tip={fmt(positions['hair_3'])}")
    states = []
    for step in range(1, STEPS + 1):
        answer = client.step_dynamics(
            pb.StepDynamicsRequest(
                rig=rig.name,
                pose=pb.Pose(),  # the character at the origin, in its rest pose
                delta_time=DT,
                chains=[chain.name],
                states=states,
            )
        )
        result = answer.results[0]
        states = [result.state]  # carried to the next step: ikd keeps none
        if step in PRINT_STEPS:
            tip = result.state.positions[list(result.joints).index("hair_3")]
            print(
                f"dynamics step {step}: tip={fmt(tip)} substeps={result.substeps} "
                f"reset={pb.DynamicsReset.Name(result.reset)}"
            )



def run(client: Client, pb, rig) -> None:
    add_ponytail(pb, rig)
    registered = client.register_rig(rig, replace=True)
    print(
        f"registered {registered.name} {registered.revision} "
        f"({len(rig.joints)} joints, {len(rig.chains)} chains, {len(rig.legs)} legs, "
        f"{len(rig.dynamic_chains)} dynamic chain)"
    )
    positions = rest_model_positions(rig)
    solve_left_arm(client, pb, rig, positions)
    ground(client, pb, rig)
    step_ponytail(client, pb, rig, positions)


def main() -> int:
    args = parse_args()
    try:
        pb = ikd_client.load_stubs(args.stubs).pb
    except ImportError as error:  # the stubs were not generated
        print(error, file=sys.stderr)
        return 2
    rig = json_format.Parse(Path(args.rig_json).read_text(), pb.Rig())
    client = connect(args)
    with client:
        try:
            run(client, pb, rig)
        except IkError as error:
            print_error(error, file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
