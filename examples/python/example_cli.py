"""What the Python examples share: the ikd_client package (used in place
when it is not installed), the connection's command-line arguments (server,
deadline, TLS files, bearer token), the client they describe, and how an
IkError is printed."""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

try:
    import ikd_client  # noqa: F401  (re-exported for the examples)
except ImportError:
    sys.path.insert(0, str(HERE.parent.parent / "client" / "python"))
    import ikd_client  # noqa: F401

from ikd_client import Client, IkError  # noqa: E402


def add_connection_arguments(parser: argparse.ArgumentParser) -> None:
    """--server, --timeout, --ca, --cert, --key and --token-file."""
    parser.add_argument("--server", default="127.0.0.1:50051")
    parser.add_argument("--timeout", type=float, default=5.0, help="deadline of each call, s")
    parser.add_argument("--ca", help="PEM CA bundle that signs ikd's certificate (TLS)")
    parser.add_argument("--cert", help="PEM client certificate (ikd --tls_client_ca)")
    parser.add_argument("--key", help="PEM private key of --cert")
    parser.add_argument(
        "--token-file",
        help="file holding the bearer token (ikd --token_file); default: $IKD_TOKEN",
    )


def connect(args: argparse.Namespace) -> Client:
    """The client the connection arguments describe."""
    token = os.environ.get("IKD_TOKEN") or None
    if args.token_file:
        token = Path(args.token_file).read_text().strip()
    return Client(
        args.server,
        deadline=args.timeout,
        ca=args.ca,
        cert=args.cert,
        key=args.key,
        token=token,
    )


def print_error(error: IkError, file=sys.stdout) -> None:
    print(f"error: {error.code.name}: {error.message}", file=file)
    for violation in error.field_violations:
        print(f"  field {violation.field}: {violation.description}", file=file)
