#!/usr/bin/python3
"""A short ikd client in Python (Debian's python3-grpcio and python3-protobuf).

Registers a small three-joint arm rig, then solves a reachable and an
unreachable target for it, one for the bundled humanoid's left arm and one
for the 13-joint tail with FABRIK; then sends two bad requests and prints
the field violations (google.rpc.BadRequest) the errors carry.

    examples/python/generate_stubs.sh
    /usr/bin/python3 examples/python/ik_client.py --server 127.0.0.1:50051

For an ikd serving TLS (--tls_cert), requiring client certificates
(--tls_client_ca) or bearer tokens (--token_file), add --ca FILE,
--cert FILE --key FILE, and --token-file FILE (or IKD_TOKEN in the
environment); registering a rig needs an admin token.

Use /usr/bin/python3: the Debian packages install into the system Python.
"""
import argparse
import collections
import os
import sys


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", default="127.0.0.1:50051")
    parser.add_argument(
        "--stubs",
        default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "gen"),
        help="directory holding the generated ik/v1/ik_pb2*.py modules",
    )
    parser.add_argument("--timeout", type=float, default=5.0)
    parser.add_argument("--ca", help="PEM CA bundle that signs ikd's certificate (TLS)")
    parser.add_argument("--cert", help="PEM client certificate (ikd --tls_client_ca)")
    parser.add_argument("--key", help="PEM private key of --cert")
    parser.add_argument(
        "--token-file",
        help="file holding the bearer token (ikd --token_file); default: $IKD_TOKEN",
    )
    return parser.parse_args()


def read_bytes(path):
    with open(path, "rb") as file:
        return file.read()


def open_channel(grpc, args):
    """A channel to ikd: TLS when --ca or --cert is given, plaintext
    otherwise; with a token, every call carries 'authorization: Bearer
    <token>' (an interceptor, so it works on plaintext channels too, which
    grpc's call credentials refuse)."""
    if args.ca or args.cert:
        credentials = grpc.ssl_channel_credentials(
            root_certificates=read_bytes(args.ca) if args.ca else None,
            private_key=read_bytes(args.key) if args.key else None,
            certificate_chain=read_bytes(args.cert) if args.cert else None,
        )
        channel = grpc.secure_channel(args.server, credentials)
    else:
        channel = grpc.insecure_channel(args.server)
    token = os.environ.get("IKD_TOKEN", "")
    if args.token_file:
        token = read_bytes(args.token_file).decode().strip()
    if not token:
        return channel
    metadata = (("authorization", f"Bearer {token}"),)
    fields = ("method", "timeout", "metadata", "credentials", "wait_for_ready", "compression")

    class CallDetails(collections.namedtuple("CallDetails", fields), grpc.ClientCallDetails):
        pass

    class TokenInterceptor(
        grpc.UnaryUnaryClientInterceptor, grpc.StreamStreamClientInterceptor
    ):
        def _with_token(self, details):
            values = {field: getattr(details, field, None) for field in fields}
            values["metadata"] = tuple(details.metadata or ()) + metadata
            return CallDetails(**values)

        def intercept_unary_unary(self, continuation, details, request):
            return continuation(self._with_token(details), request)

        def intercept_stream_stream(self, continuation, details, requests):
            return continuation(self._with_token(details), requests)

    return grpc.intercept_channel(channel, TokenInterceptor())


# A point the bundled tail reaches within its joint limits.
TAIL_TARGET = (0.25, 0.55, -0.95)


def vec3(pb, x, y, z):
    return pb.Vec3(x=x, y=y, z=z)


def arm_rig(pb):
    """shoulder -> elbow (0.3 m down, bent 5 degrees) -> wrist (0.25 m down)."""
    rig = pb.Rig(name="python_arm")
    rig.joints.add(name="shoulder")
    elbow = rig.joints.add(name="elbow", parent="shoulder")
    elbow.rest.translation.CopyFrom(vec3(pb, 0, -0.3, 0))
    elbow.rest.rotation.CopyFrom(pb.Quat(x=-0.0436194, y=0, z=0, w=0.9990482))
    wrist = rig.joints.add(name="wrist", parent="elbow")
    wrist.rest.translation.CopyFrom(vec3(pb, 0, -0.25, 0))
    rig.chains.add(name="arm", root="shoulder", tip="wrist")
    return rig


def solve(stub, pb, timeout, rig, chain, target, solver=0):
    request = pb.SolveChainRequest(rig=rig)
    request.goals.add(chain=chain, target=vec3(pb, *target), solver=solver)
    answer = stub.SolveChain(request, timeout=timeout)
    for result in answer.results:
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
    return answer


def tick(stub, pb, timeout):
    """Two humanoids in one Tick: one reaches with both arms, one names a
    chain the rig lacks; each character's jobs answer on their own."""
    request = pb.TickRequest(
        characters=[
            pb.TickCharacter(
                id="npc-1",
                rig="humanoid",
                goals=[
                    pb.ChainGoal(chain="left_arm", target=vec3(pb, 0.45, 1.2, 0.15)),
                    pb.ChainGoal(chain="right_arm", target=vec3(pb, -0.45, 1.2, 0.15)),
                ],
            ),
            pb.TickCharacter(
                id="npc-2",
                rig="humanoid",
                goals=[pb.ChainGoal(chain="tentacle", target=vec3(pb, 0, 1, 0))],
            ),
        ]
    )
    answer = stub.Tick(request, timeout=timeout)
    for character in answer.characters:
        if character.goals_status.code != 0:
            print(f"tick {character.id}: goals failed: {character.goals_status.message}")
            continue
        reached = sum(goal.reached for goal in character.goals)
        print(
            f"tick {character.id}: {reached}/{len(character.goals)} goals reached, "
            f"{len(character.joints)} joints turned"
        )


def field_violations(error):
    """The (field, description) pairs of the google.rpc.BadRequest an ikd
    error carries in its status details (the grpc-status-details-bin
    trailer), if any."""
    from google.rpc import error_details_pb2, status_pb2

    for key, value in error.trailing_metadata() or ():
        if key != "grpc-status-details-bin":
            continue
        status = status_pb2.Status.FromString(value)
        for detail in status.details:
            bad_request = error_details_pb2.BadRequest()
            if detail.Unpack(bad_request):
                for violation in bad_request.field_violations:
                    yield violation.field, violation.description


def print_error(error):
    print(f"error: {error.code().name}: {error.details()}")
    for field, description in field_violations(error):
        print(f"  field {field}: {description}")


def main():
    args = parse_args()
    sys.path.insert(0, args.stubs)
    import grpc
    from ik.v1 import ik_pb2 as pb
    from ik.v1 import ik_pb2_grpc as pb_grpc

    with open_channel(grpc, args) as channel:
        stub = pb_grpc.IkServiceStub(channel)
        registered = stub.RegisterRig(
            pb.RegisterRigRequest(rig=arm_rig(pb), replace=True),
            timeout=args.timeout,
        )
        print(f"registered {registered.name} {registered.revision}")
        solve(stub, pb, args.timeout, "python_arm", "arm", (0.1, -0.35, 0.15))
        solve(stub, pb, args.timeout, "python_arm", "arm", (0.0, -2.0, 0.0))
        solve(stub, pb, args.timeout, "humanoid", "left_arm", (0.45, 1.2, 0.15))
        solve(stub, pb, args.timeout, "tail", "tail", TAIL_TARGET, pb.SOLVER_FABRIK)
        tick(stub, pb, args.timeout)
        bad_goals = [
            pb.ChainGoal(chain="tentacle", target=vec3(pb, 0, 0, 0)),
            pb.ChainGoal(chain="arm", target=vec3(pb, 0, float("nan"), 0)),
        ]
        for goal in bad_goals:
            try:
                stub.SolveChain(
                    pb.SolveChainRequest(rig="python_arm", goals=[goal]),
                    timeout=args.timeout,
                )
            except grpc.RpcError as error:
                print_error(error)
    return 0


if __name__ == "__main__":
    sys.exit(main())
