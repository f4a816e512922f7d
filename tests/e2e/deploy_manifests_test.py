#!/usr/bin/python3
"""Checks deploy/kubernetes without a cluster: every file is YAML, and the
base's parts agree with each other and with ikd.

- rigs-configmap.yaml holds examples/rigs, file for file;
- terminationGracePeriodSeconds exceeds --shutdown_grace_seconds;
- the gRPC probes, the container's `grpc` port and the Service target the
  port of --listen; the metrics port, its scrape annotation and
  --metrics_listen agree;
- the Service and the PodDisruptionBudget select the pods;
- the container runs as a numeric non-root user on a read-only root with
  no capabilities.

Usage: deploy_manifests_test.py REPOSITORY (Debian's python3-yaml).
"""
import pathlib
import sys

import yaml

failures = []


def check(condition, message):
    if not condition:
        failures.append(message)


def flag(args, name):
    """The value of --name=VALUE in `args`, or None."""
    values = [a.split("=", 1)[1] for a in args if a.startswith(f"--{name}=")]
    return values[-1] if values else None


def main(repository):
    deploy = repository / "deploy" / "kubernetes"
    documents = {}
    for path in sorted(deploy.rglob("*.yaml")):
        try:
            documents[path.relative_to(deploy).as_posix()] = list(
                yaml.safe_load_all(path.read_text()))
        except yaml.YAMLError as error:
            failures.append(f"{path}: not YAML: {error}")
    check(len(documents) >= 5, f"too few manifests: {sorted(documents)}")

    by_kind = {}
    for name, docs in documents.items():
        if name.startswith("base/"):
            for doc in docs:
                if doc and "kind" in doc:
                    by_kind[doc["kind"]] = doc
    missing = {"ConfigMap", "Deployment", "Service", "PodDisruptionBudget"}
    missing -= set(by_kind)
    if missing:
        failures.append(f"base/ lacks {sorted(missing)}")
        return

    rigs = {p.name: p.read_text()
            for p in (repository / "examples" / "rigs").glob("*.json")}
    check(by_kind["ConfigMap"].get("data") == rigs,
          "base/rigs-configmap.yaml is not examples/rigs: make it again "
          "with the command in its header")

    deployment = by_kind["Deployment"]
    pod = deployment["spec"]["template"]
    container = pod["spec"]["containers"][0]
    args = container.get("args", [])

    grace = float(flag(args, "shutdown_grace_seconds") or 8)
    check(pod["spec"].get("terminationGracePeriodSeconds", 30) > grace,
          f"terminationGracePeriodSeconds is not above "
          f"--shutdown_grace_seconds ({grace})")

    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    listen_port = int((flag(args, "listen") or "").rsplit(":", 1)[-1] or 0)
    check(ports.get("grpc") == listen_port,
          f"containerPort grpc {ports.get('grpc')} is not --listen's "
          f"{listen_port}")
    for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
        grpc_probe = container.get(probe, {}).get("grpc")
        check(grpc_probe is not None, f"{probe} is not a grpc probe")
        if grpc_probe:
            check(grpc_probe.get("port") == listen_port,
                  f"{probe} checks port {grpc_probe.get('port')}, not "
                  f"{listen_port}")
    metrics_port = int(
        (flag(args, "metrics_listen") or ":0").rsplit(":", 1)[-1])
    annotations = pod["metadata"].get("annotations", {})
    check(ports.get("metrics") == metrics_port and
          annotations.get("prometheus.io/port") == str(metrics_port) and
          annotations.get("prometheus.io/scrape") == "true",
          f"metrics port {ports.get('metrics')}, annotations {annotations} "
          f"and --metrics_listen {metrics_port} disagree")

    labels = pod["metadata"]["labels"]
    selects = lambda selector: all(labels.get(k) == v
                                   for k, v in selector.items())
    service = by_kind["Service"]["spec"]
    check(service.get("clusterIP") == "None", "the Service is not headless")
    check(selects(service["selector"]), "the Service selects no pod")
    check(selects(by_kind["PodDisruptionBudget"]["spec"]["selector"]
                  ["matchLabels"]), "the PodDisruptionBudget selects no pod")
    check(selects(deployment["spec"]["selector"]["matchLabels"]),
          "the Deployment's selector does not match its pods")
    service_ports = {p["name"]: p.get("targetPort") for p in service["ports"]}
    check(service_ports.get("grpc") in ("grpc", listen_port),
          f"the Service's grpc port targets {service_ports.get('grpc')}")

    pod_security = pod["spec"].get("securityContext", {})
    security = container.get("securityContext", {})
    check(pod_security.get("runAsNonRoot") is True, "runAsNonRoot is not set")
    check(isinstance(pod_security.get("runAsUser"), int) and
          pod_security["runAsUser"] > 0, "runAsUser is not a non-root uid")
    check(security.get("readOnlyRootFilesystem") is True,
          "the root filesystem is writable")
    check(security.get("allowPrivilegeEscalation") is False,
          "privilege escalation is allowed")
    check(security.get("capabilities", {}).get("drop") == ["ALL"],
          "capabilities are not all dropped")
    for kind in ("requests", "limits"):
        check({"cpu", "memory"} <= set(container.get("resources", {})
                                       .get(kind, {})),
              f"resources.{kind} lacks cpu or memory")


if __name__ == "__main__":
    main(pathlib.Path(sys.argv[1]))
    for failure in failures:
        print(f"deploy_manifests_test: FAIL: {failure}", file=sys.stderr)
    print("deploy_manifests_test: " +
          ("ok" if not failures else f"{len(failures)} failed"))
    sys.exit(1 if failures else 0)
