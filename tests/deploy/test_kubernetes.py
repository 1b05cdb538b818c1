"""The Kubernetes manifests (deploy/k8s): valid for the pinned Kubernetes version in strict
mode (unknown fields fail), and wired as docs/deploy.md says: probes, the admin token's
Secret, resources, the autoscaler and the disruption budget on the API pods."""

from __future__ import annotations

import copy
import shutil
import subprocess
from typing import Any
from urllib.parse import urlparse

import kubernetes_validate
import pytest
import yaml

from tests.deploy.files import (
    K8S,
    SECRET_EXAMPLE,
    Resource,
    containers,
    dockerfile_stages,
    image_env,
    k8s_resource,
    k8s_resources,
    kustomization,
    load_yaml_documents,
    only_container,
    pod_labels,
    selects,
    service_command_valid,
)

# A Kubernetes version whose schemas ship in kubernetes-validate (1.25 to 1.37 today).
K8S_VERSION = "1.33.0"
WORKLOADS = ("Deployment", "StatefulSet")


def validate(resource: Resource) -> None:
    kubernetes_validate.validate(resource, K8S_VERSION, strict=True)


def api() -> Resource:
    return k8s_resource("Deployment", "tigris-api")


def worker() -> Resource:
    return k8s_resource("Deployment", "tigris-worker")


def redis() -> Resource:
    return k8s_resource("StatefulSet", "tigris-redis")


def env_of(container: Resource) -> dict[str, Resource]:
    return {item["name"]: item for item in container.get("env", [])}


def config() -> dict[str, str]:
    data: dict[str, str] = k8s_resource("ConfigMap", "tigris-config")["data"]
    return data


@pytest.mark.parametrize(
    "resource",
    [doc for _, doc in k8s_resources()] + load_yaml_documents(SECRET_EXAMPLE),
    ids=lambda doc: f"{doc['kind']}/{doc['metadata']['name']}",
)
def test_every_manifest_is_valid_in_strict_mode(resource: Resource) -> None:
    validate(resource)


def test_strict_validation_refuses_an_unknown_field() -> None:
    # The check above would be worthless if a misspelt field passed.
    misspelt = copy.deepcopy(api())
    container = only_container(misspelt)
    container["readinesProbe"] = container.pop("readinessProbe")
    with pytest.raises(kubernetes_validate.ValidationError):
        validate(misspelt)


def test_the_kustomization_lists_every_manifest_but_the_secret_example() -> None:
    listed = set(kustomization()["resources"])
    on_disk = {p.name for p in K8S.glob("*.yaml")} - {"kustomization.yaml"}
    assert listed == on_disk - {SECRET_EXAMPLE.name}
    assert SECRET_EXAMPLE.name not in listed  # an example token must never be applied


def test_the_deployment_set_is_complete() -> None:
    kinds = {(doc["kind"], doc["metadata"]["name"]) for _, doc in k8s_resources()}
    assert {
        ("Deployment", "tigris-api"),
        ("Deployment", "tigris-worker"),
        ("Service", "tigris-api"),
        ("HorizontalPodAutoscaler", "tigris-api"),
        ("PodDisruptionBudget", "tigris-api"),
        ("StatefulSet", "tigris-redis"),
        ("Service", "tigris-redis"),
        ("ConfigMap", "tigris-config"),
    } <= kinds


def test_api_probes_ask_healthz_for_liveness_and_readyz_for_readiness() -> None:
    container = only_container(api())
    ports = {port["name"]: port["containerPort"] for port in container["ports"]}
    probes = {
        name: container[name]["httpGet"]
        for name in ("startupProbe", "livenessProbe", "readinessProbe")
    }
    assert probes["livenessProbe"]["path"] == "/healthz"
    assert probes["startupProbe"]["path"] == "/healthz"
    assert probes["readinessProbe"]["path"] == "/readyz"
    for probe in probes.values():
        assert probe["port"] in ports
    listening = config().get("TIGRIS_PORT") or image_env()["TIGRIS_PORT"]
    assert ports[probes["readinessProbe"]["port"]] == int(listening)


def test_the_api_pods_carry_a_scrape_hint_for_metrics_on_their_port() -> None:
    template = api()["spec"]["template"]
    annotations = template["metadata"]["annotations"]
    port = template["spec"]["containers"][0]["ports"][0]["containerPort"]
    assert annotations["prometheus.io/scrape"] == "true"
    assert annotations["prometheus.io/path"] == "/metrics"
    assert annotations["prometheus.io/port"] == str(port)


def test_the_api_listens_on_the_port_the_image_serves() -> None:
    runtime = dockerfile_stages()[-1]
    (port,) = [p["containerPort"] for p in only_container(api())["ports"]]
    assert runtime.all("EXPOSE") == [str(port)]


def test_the_admin_token_comes_from_the_secret_and_nowhere_else() -> None:
    (example,) = load_yaml_documents(SECRET_EXAMPLE)
    ref = env_of(only_container(api()))["TIGRIS_ADMIN_TOKEN"]["valueFrom"]["secretKeyRef"]
    assert ref["name"] == example["metadata"]["name"]
    assert ref["key"] in example["stringData"]
    assert ref.get("optional", False) is False  # no pod runs without the intended token
    assert "TIGRIS_ADMIN_TOKEN" not in config()
    for _, doc in k8s_resources():
        assert doc["kind"] != "Secret", "a real secret must not be shipped in the manifests"
        if doc["kind"] in WORKLOADS:
            for container in containers(doc):
                assert "value" not in env_of(container).get("TIGRIS_ADMIN_TOKEN", {})
    # The workers need no admin rights.
    assert "TIGRIS_ADMIN_TOKEN" not in env_of(only_container(worker()))


def test_every_container_has_cpu_and_memory_requests_and_limits() -> None:
    for _, doc in k8s_resources():
        if doc["kind"] not in WORKLOADS:
            continue
        for container in containers(doc):
            resources = container["resources"]
            for bound in ("requests", "limits"):
                assert {"cpu", "memory"} <= set(resources[bound]), (doc["kind"], bound)


def test_pods_run_as_the_image_user_with_a_read_only_root() -> None:
    user = dockerfile_stages()[-1].last("USER")
    assert user is not None
    for workload in (api(), worker()):
        pod = workload["spec"]["template"]["spec"]["securityContext"]
        assert pod["runAsNonRoot"] is True
        assert f"{pod['runAsUser']}:{pod['runAsGroup']}" == user
    for _, doc in k8s_resources():
        if doc["kind"] in WORKLOADS:
            for container in containers(doc):
                context = container["securityContext"]
                assert context["readOnlyRootFilesystem"] is True
                assert context["allowPrivilegeEscalation"] is False
                assert context["capabilities"]["drop"] == ["ALL"]


def test_the_autoscaler_scales_the_api_deployment_on_cpu() -> None:
    hpa = k8s_resource("HorizontalPodAutoscaler", "tigris-api")
    assert hpa["apiVersion"] == "autoscaling/v2"
    target = hpa["spec"]["scaleTargetRef"]
    assert (target["apiVersion"], target["kind"], target["name"]) == (
        api()["apiVersion"],
        "Deployment",
        api()["metadata"]["name"],
    )
    (metric,) = hpa["spec"]["metrics"]
    assert metric["resource"]["name"] == "cpu"
    # Utilization is relative to the request: without a CPU request it cannot work.
    assert "cpu" in only_container(api())["resources"]["requests"]
    pdb = k8s_resource("PodDisruptionBudget", "tigris-api")
    assert hpa["spec"]["minReplicas"] > pdb["spec"]["minAvailable"]


def test_the_disruption_budget_selects_the_api_pods_only() -> None:
    pdb = k8s_resource("PodDisruptionBudget", "tigris-api")
    assert pdb["apiVersion"] == "policy/v1"
    assert pdb["spec"]["minAvailable"] >= 1
    assert selects(pdb["spec"]["selector"], pod_labels(api()))
    assert not selects(pdb["spec"]["selector"], pod_labels(worker()))
    assert not selects(pdb["spec"]["selector"], pod_labels(redis()))


def test_the_services_route_to_their_pods() -> None:
    for name, workload in (("tigris-api", api()), ("tigris-redis", redis())):
        service = k8s_resource("Service", name)
        assert selects({"matchLabels": service["spec"]["selector"]}, pod_labels(workload))
        named = {p["name"] for c in containers(workload) for p in c["ports"]}
        for port in service["spec"]["ports"]:
            assert port["targetPort"] in named
    for workload in (api(), worker(), redis()):
        assert selects(workload["spec"]["selector"], pod_labels(workload))


def test_the_roles_run_commands_the_service_has() -> None:
    assert only_container(api())["args"] == ["api"]
    assert only_container(worker())["args"] == ["worker"]
    for workload in (api(), worker()):
        assert service_command_valid(only_container(workload)["args"])
    probe = only_container(worker())["livenessProbe"]["exec"]["command"]
    assert probe == ["python", "/app/healthcheck.py", "worker"]


def test_settings_come_from_the_config_map() -> None:
    for workload in (api(), worker()):
        source, *secrets = only_container(workload)["envFrom"]
        assert source["configMapRef"]["name"] == "tigris-config"
        # Besides: only the archive bucket's credentials, from an optional Secret.
        assert secrets == [{"secretRef": {"name": "tigris-archive", "optional": True}}]
    settings = config()
    redis_service = k8s_resource("Service", "tigris-redis")
    (redis_port,) = redis_service["spec"]["ports"]
    for name in ("REDIS_URL", "RQ_REDIS_URL"):
        url = urlparse(settings[name])
        assert (url.scheme, url.hostname, url.port) == (
            "redis",
            redis_service["metadata"]["name"],
            redis_port["port"],
        )
    assert int(settings["TIGRIS_RQ_WORKERS"]) >= 1
    # gunicorn would otherwise start one process per node CPU, whatever the pod's limit.
    assert int(settings["TIGRIS_WORKERS"]) <= float(
        only_container(api())["resources"]["limits"]["cpu"]
    )


def _redis_options(args: list[str]) -> dict[str, str]:
    assert len(args) % 2 == 0 and all(a.startswith("--") for a in args[::2]), args
    return {key[2:]: value for key, value in zip(args[::2], args[1::2], strict=True)}


def test_redis_keeps_an_aof_fsynced_always_on_a_persistent_volume() -> None:
    statefulset = redis()
    container = only_container(statefulset)
    options = _redis_options(container["args"])
    assert options["appendonly"] == "yes"
    assert options["appendfsync"] == "always"
    assert options["maxmemory-policy"] == "noeviction"  # an event store must never evict
    (claim,) = statefulset["spec"]["volumeClaimTemplates"]
    mounts = {m["name"]: m["mountPath"] for m in container["volumeMounts"]}
    assert mounts[claim["metadata"]["name"]] == options["dir"]
    assert statefulset["spec"]["serviceName"] == "tigris-redis"
    assert claim["spec"]["accessModes"] == ["ReadWriteOnce"]
    # maxmemory below the container's limit: a full Redis refuses writes, it is not killed.
    limit = container["resources"]["limits"]["memory"]
    assert limit.endswith("Gi") and options["maxmemory"].endswith("mb")
    assert int(options["maxmemory"][:-2]) < int(limit[:-2]) * 1024


@pytest.mark.skipif(shutil.which("kubectl") is None, reason="kubectl is not installed")
def test_kubectl_kustomize_builds_the_same_valid_resources() -> None:
    built = subprocess.run(
        ["kubectl", "kustomize", str(K8S)], capture_output=True, text=True, check=True, timeout=60
    ).stdout
    resources: list[dict[str, Any]] = [d for d in yaml.safe_load_all(built) if d]
    names = sorted((d["kind"], d["metadata"]["name"]) for d in resources)
    assert names == sorted((d["kind"], d["metadata"]["name"]) for _, d in k8s_resources())
    for resource in resources:
        validate(resource)
        if resource["kind"] != "Namespace":
            assert resource["metadata"]["namespace"] == kustomization()["namespace"]
