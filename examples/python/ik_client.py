#!/usr/bin/python3
"""A short ikd client in Python, on the ikd_client package (client/python).

Registers a small three-joint arm rig, then solves a reachable and an
unreachable target for it, one for the bundled humanoid's left arm and one
for the 13-joint tail with FABRIK; sends a Tick of two humanoids, their
poses in the compact form (--pose-form: float, quantized or pose); then sends
two bad requests and prints the field violations (google.rpc.BadRequest)
the errors carry.

    examples/python/generate_stubs.sh      # or client/python/generate.sh
    /usr/bin/python3 examples/python/ik_client.py --server 127.0.0.1:50051

For an ikd serving TLS (--tls_cert), requiring client certificates
(--tls_client_ca) or bearer tokens (--token_file), add --ca FILE,
--cert FILE --key FILE, and --token-file FILE (or IKD_TOKEN in the
environment); registering a rig needs an admin token.

Use /usr/bin/python3: Debian's python3-grpcio and python3-protobuf install
into the system Python. The package is used in place (client/python is put
on sys.path when ikd_client is not installed).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

from example_cli import (  # noqa: E402  (next to this file)
    add_connection_arguments,
    connect,
    ikd_client,
    print_error,
)
from ikd_client import Client, IkError  # noqa: E402

# A point the bundled tail reaches within its joint limits.
TAIL_TARGET = (0.25, 0.55, -0.95)


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_connection_arguments(parser)
    parser.add_argument(
        "--stubs",
        help="directory holding the generated ik/v1/ik_pb2*.py modules (default: gen/ "
        "next to this script if there is one, else $IKD_CLIENT_STUBS, else "
        "client/python/ikd_client/_gen)",
    )
    parser.add_argument(
        "--pose-form",
        choices=ikd_client.FORMS,
        default=ikd_client.FLOAT,
        help="how the tick sends each character's pose: the compact form with float32 "
        "rotations (float, the default) or 48-bit ones (quantized), or a Pose of "
        "doubles (pose)",
    )
    return parser.parse_args()


def stubs_directory(args: argparse.Namespace) -> Path | None:
    if args.stubs:
        return Path(args.stubs)
    if (HERE / "gen").is_dir():
        return HERE / "gen"
    return None



def arm_rig(pb):
    """shoulder -> elbow (0.3 m down, bent 5 degrees) -> wrist (0.25 m down)."""
    rig = pb.Rig(name="python_arm")
    rig.joints.add(name="shoulder")
    elbow = rig.joints.add(name="elbow", parent="shoulder")
    elbow.rest.translation.CopyFrom(pb.Vec3(y=-0.3))
    elbow.rest.rotation.CopyFrom(pb.Quat(x=-0.0436194, w=0.9990482))
    wrist = rig.joints.add(name="wrist", parent="elbow")
    wrist.rest.translation.CopyFrom(pb.Vec3(y=-0.25))
    rig.chains.add(name="arm", root="shoulder", tip="wrist")
    return rig


def vec3(pb, x: float, y: float, z: float):
    return pb.Vec3(x=x, y=y, z=z)


def solve(client: Client, pb, rig: str, chain: str, target, solver: int = 0) -> None:
    request = pb.SolveChainRequest(rig=rig)
    request.goals.add(chain=chain, target=vec3(pb, *target), solver=solver)
    for result in client.solve_chain(request).results:
        print(
            f"{rig}/{result.chain}: reached={result.reached} "
            f"residual={result.residual:.3g} m "
            f"solver={pb.Solver.Name(result.solver)} "
            f"iterations={result.iterations} "
            f"tip=({result.effector.x:.4f}, {result.effector.y:.4f}, "
            f"{result.effector.z:.4f})"
        )
        for joint in result.rotations:
            q = joint.rotation
            print(f"  {joint.name}: x={q.x:.6f} y={q.y:.6f} z={q.z:.6f} w={q.w:.6f}")


def tick(client: Client, pb, form: str) -> None:
    """Two humanoids in one Tick: one reaches with both arms, one names a
    chain the rig lacks; each character's jobs answer on their own. Each
    sends its animated pose (here the rig's rest rotations, as an engine
    would hold them: 4 floats a joint) in the compact form, float32 by
    default; the answer comes in the same form."""
    rig = client.get_rig("humanoid").rig
    animated = []
    for joint in rig.joints:
        q = joint.rest.rotation if joint.rest.HasField("rotation") else pb.Quat(w=1.0)
        animated += [q.x, q.y, q.z, q.w]
    request = pb.TickRequest(
        characters=[
            ikd_client.tick_character(
                "humanoid",
                animated,
                id="npc-1",
                form=form,
                goals=[
                    pb.ChainGoal(chain="left_arm", target=vec3(pb, 0.45, 1.2, 0.15)),
                    pb.ChainGoal(chain="right_arm", target=vec3(pb, -0.45, 1.2, 0.15)),
                ],
            ),
            ikd_client.tick_character(
                "humanoid",
                animated,
                id="npc-2",
                form=form,
                goals=[pb.ChainGoal(chain="tentacle", target=vec3(pb, 0, 1, 0))],
            ),
        ]
    )
    sent = request.characters[0]
    pose = sent.compact_pose if sent.HasField("compact_pose") else sent.pose
    print(f"tick: {len(rig.joints)} joints a character as {form} "
          f"({pose.ByteSize()} bytes of pose)")
    for character in client.tick(request).characters:
        if character.goals_status.code != 0:
            error = IkError.from_job_status(character.goals_status)
            print(f"tick {character.id}: goals failed: {error.message}")
            continue
        reached = sum(goal.reached for goal in character.goals)
        # The final pose: the animated one with the joints the jobs turned.
        turned = ikd_client.changed_rotations(character)
        final = ikd_client.final_rotations(character, animated)
        print(
            f"tick {character.id}: {reached}/{len(character.goals)} goals reached, "
            f"{len(turned)} joints turned"
        )
        for joint, _ in turned:
            x, y, z, w = final[joint]
            print(f"  {rig.joints[joint].name}: x={x:.6f} y={y:.6f} z={z:.6f} w={w:.6f}")


def run(client: Client, pb, form: str) -> None:
    registered = client.register_rig(arm_rig(pb), replace=True)
    print(f"registered {registered.name} {registered.revision}")
    solve(client, pb, "python_arm", "arm", (0.1, -0.35, 0.15))
    solve(client, pb, "python_arm", "arm", (0.0, -2.0, 0.0))
    solve(client, pb, "humanoid", "left_arm", (0.45, 1.2, 0.15))
    solve(client, pb, "tail", "tail", TAIL_TARGET, pb.SOLVER_FABRIK)
    tick(client, pb, form)
    bad_goals = [
        pb.ChainGoal(chain="tentacle", target=vec3(pb, 0, 0, 0)),
        pb.ChainGoal(chain="arm", target=vec3(pb, 0, float("nan"), 0)),
    ]
    for goal in bad_goals:
        try:
            client.solve_chain(pb.SolveChainRequest(rig="python_arm", goals=[goal]))
        except IkError as error:
            print_error(error)


def main() -> int:
    args = parse_args()
    try:
        pb = ikd_client.load_stubs(stubs_directory(args)).pb
    except ImportError as error:  # the stubs were not generated
        print(error, file=sys.stderr)
        return 2
    client = connect(args)
    with client:
        try:
            run(client, pb, args.pose_form)
        except IkError as error:
            # Refused outright (no token, a read token registering, no TLS).
            print_error(error, file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
