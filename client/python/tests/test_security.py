"""ikd_client against real ikd processes with TLS, client certificates and
bearer tokens (read and admin), and with tokens over plaintext."""
from __future__ import annotations

import shutil
import subprocess
import tempfile
import unittest
from pathlib import Path
from typing import Callable

import grpc

from ikd_client import Client, IkError, pb
from ikd_process import REPO, IkdProcess

READ_TOKEN = "read-token-0123456789abcdef"
ADMIN_TOKEN = "admin-token-0123456789abcdef"


def solve_request() -> pb.SolveChainRequest:
    return pb.SolveChainRequest(rig="humanoid", goals=[
        pb.ChainGoal(chain="left_arm", target=pb.Vec3(x=0.45, y=1.2, z=0.15))])


def small_rig() -> pb.Rig:
    rig = pb.Rig(name="py_secure")
    rig.joints.add(name="a")
    rig.joints.add(name="b", parent="a").rest.translation.CopyFrom(pb.Vec3(y=0.5))
    return rig


class SecurityTestCase(unittest.TestCase):
    """Certificates (tests/e2e/make_certs.sh) and a token file of its own."""

    directory: Path

    @classmethod
    def setUpClass(cls) -> None:
        cls.directory = Path(tempfile.mkdtemp(prefix="ikd_client_security."))
        cls.addClassCleanup(shutil.rmtree, cls.directory, ignore_errors=True)
        subprocess.run([str(REPO / "tests" / "e2e" / "make_certs.sh"), str(cls.directory)],
                       check=True, capture_output=True)
        (cls.directory / "tokens").write_text(f"read {READ_TOKEN}\nadmin {ADMIN_TOKEN}\n")

    @classmethod
    def start(cls, *flags: str) -> IkdProcess:
        ikd = IkdProcess(f"--token_file={cls.directory / 'tokens'}", *flags)
        cls.addClassCleanup(cls.stop, ikd)
        return ikd

    @staticmethod
    def stop(ikd: IkdProcess) -> None:
        code = ikd.stop()
        if code != 0:
            raise AssertionError(f"ikd exited with {code}:\n" + "".join(ikd.log))

    def client(self, ikd: IkdProcess, **kwargs: object) -> Client:
        client = Client(ikd.target, deadline=30.0, **kwargs)
        self.addCleanup(client.close)
        return client

    def assertRefused(self, code: grpc.StatusCode, call: Callable[[], object]) -> IkError:
        with self.assertRaises(IkError) as raised:
            call()
        self.assertEqual(raised.exception.code, code, raised.exception)
        return raised.exception


class MutualTlsAndTokensTest(SecurityTestCase):
    @classmethod
    def setUpClass(cls) -> None:
        super().setUpClass()
        d = cls.directory
        cls.ikd = cls.start(f"--tls_cert={d / 'server.crt'}", f"--tls_key={d / 'server.key'}",
                            f"--tls_client_ca={d / 'ca.crt'}")
        if not cls.ikd.wait_for_line("ikd: TLS, client certificates required"):
            raise AssertionError("ikd does not say it serves mutual TLS:\n"
                                 + "".join(cls.ikd.log))

    def secure(self, **kwargs: object) -> Client:
        d = self.directory
        return self.client(self.ikd, ca=d / "ca.crt", cert=d / "client.crt",
                           key=d / "client.key", **kwargs)

    def test_admin_token_registers_and_deletes(self) -> None:
        client = self.secure(token=ADMIN_TOKEN)
        registered = client.register_rig(small_rig(), replace=True)
        self.assertTrue(registered.revision.startswith("sha256:"))
        self.assertEqual(client.get_rig("py_secure").revision, registered.revision)
        self.assertEqual(client.delete_rig("py_secure").revision, registered.revision)
        self.assertTrue(client.solve_chain(solve_request()).results[0].reached)

    def test_read_token_solves_and_reads_but_may_not_change(self) -> None:
        client = self.secure(token=READ_TOKEN)
        self.assertTrue(client.solve_chain(solve_request()).results[0].reached)
        self.assertIn("humanoid", [rig.name for rig in client.list_rigs().rigs])
        self.assertIn("stairs", [t.name for t in client.list_terrains().terrains])
        with client.tick_stream() as stream:
            answer = stream.tick(pb.TickRequest(sequence=5, characters=[
                pb.TickCharacter(id="npc", rig="humanoid", goals=solve_request().goals)]))
            self.assertTrue(answer.characters[0].goals[0].reached)
        error = self.assertRefused(grpc.StatusCode.PERMISSION_DENIED,
                                   lambda: client.register_rig(small_rig()))
        self.assertEqual(error.message,
                         "RegisterRig needs an admin token; this token's role is read")
        self.assertEqual(error.field_violations, ())
        self.assertRefused(grpc.StatusCode.PERMISSION_DENIED,
                           lambda: client.delete_rig("humanoid"))
        self.assertRefused(grpc.StatusCode.PERMISSION_DENIED,
                           lambda: client.delete_terrain("stairs"))
        self.assertIn("humanoid", [rig.name for rig in client.list_rigs().rigs])

    def test_no_token_or_an_unknown_one_is_unauthenticated(self) -> None:
        for client in (self.secure(), self.secure(token="not-a-token-0123456789")):
            self.assertRefused(grpc.StatusCode.UNAUTHENTICATED,
                               lambda: client.solve_chain(solve_request()))
            self.assertRefused(grpc.StatusCode.UNAUTHENTICATED, client.list_rigs)
            stream = client.tick_stream()
            self.assertRefused(grpc.StatusCode.UNAUTHENTICATED, lambda: stream.tick(
                pb.TickRequest(characters=[pb.TickCharacter(id="npc", rig="humanoid")])))
            stream.close()
            # Health stays open for probes.
            self.assertTrue(client.health())

    def test_no_client_certificate_or_plaintext_is_refused(self) -> None:
        clients = (
            self.client(self.ikd, ca=self.directory / "ca.crt", token=ADMIN_TOKEN),
            self.client(self.ikd, token=ADMIN_TOKEN),
        )
        for client in clients:
            self.assertRefused(grpc.StatusCode.UNAVAILABLE, lambda: client.health(timeout=5.0))

    def test_cert_without_key_is_a_usage_error(self) -> None:
        with self.assertRaises(ValueError):
            Client(self.ikd.target, cert=self.directory / "client.crt")


class TokensOverPlaintextTest(SecurityTestCase):
    @classmethod
    def setUpClass(cls) -> None:
        super().setUpClass()
        cls.ikd = cls.start()

    def test_tokens_work_without_tls(self) -> None:
        reader = self.client(self.ikd, token=READ_TOKEN)
        self.assertTrue(reader.solve_chain(solve_request()).results[0].reached)
        self.assertRefused(grpc.StatusCode.PERMISSION_DENIED,
                           lambda: reader.register_rig(small_rig()))
        admin = self.client(self.ikd, token=ADMIN_TOKEN)
        self.assertTrue(admin.register_rig(small_rig(), replace=True).revision)
        self.assertTrue(admin.delete_rig("py_secure").revision)
        anonymous = self.client(self.ikd)
        self.assertRefused(grpc.StatusCode.UNAUTHENTICATED,
                           lambda: anonymous.solve_chain(solve_request()))


if __name__ == "__main__":
    unittest.main()
