"""Run a validation's workers as Ray actors, with the same bootstrap and observation as local runs.

One run: a placement group of W bundles (1 CPU and ``--gpus-per-worker`` GPUs each, spread
over the nodes), one ``ValidationWorker`` actor per bundle; each reports its node's address and
free ports first, then the TF_CONFIG cluster is built from them, and each actor runs the
bootstrap child on its node with the settings a local run would get (the script's folder and
the bootstrap travel in one archive). Every wait is bounded: the actors enforce the run's
timeout themselves, the driver gives up a little later, and however the run ends the children
are killed, the actors ``ray.kill``-ed and the placement group removed.

Ray Train's ``TensorflowTrainer`` is not used: see docs/validate.md ("Ray backend") for why.
A Ray session must be open (``fixer.ray_session``).
"""

from __future__ import annotations

import io
import json
import tarfile
import time
from typing import TYPE_CHECKING, Any

from fixer.ray_session import import_ray
from fixer.validate import ray_worker
from fixer.validate.runner import (
    BOOTSTRAP,
    SPARE_PORTS,
    Prepared,
    RunSpec,
    WorkerDump,
    prepare,
    run_paths,
    tf_config,
    worker_dump,
    worker_settings,
)

if TYPE_CHECKING:
    from pathlib import Path

# Beyond the run's own timeout (which the actors enforce), how long the driver waits for a set-up
# step or for an actor to report before it treats the actor as lost.
GRACE_SECONDS = 60.0


class RayRunError(Exception):
    """The Ray cluster could not run the workers (not enough resources, actors lost); one line."""


def run_on_ray(
    script: Path, text: str, spec: RunSpec, folder: Path, replicas: int | None = None, claim_replicas: int | None = None
) -> list[WorkerDump]:
    """``runner.run_script`` on Ray: one dump per worker, in the same shape as a local run's."""
    ray = import_ray()
    from ray.util.placement_group import placement_group, remove_placement_group
    from ray.util.scheduling_strategies import PlacementGroupSchedulingStrategy

    prepared = prepare(script, text, folder, spec.entry)
    payload = ray.put(_archive(prepared.root))
    group = placement_group([_bundle(spec)] * spec.workers, strategy="SPREAD")
    actors: list[Any] = []
    try:
        _get(ray, group.ready(), spec.timeout, _unplaceable(ray, spec))
        worker_class = _worker_class(ray)
        for index in range(spec.workers):
            placement = PlacementGroupSchedulingStrategy(placement_group=group, placement_group_bundle_index=index)
            options = {"num_cpus": 1, "max_concurrency": 2, "scheduling_strategy": placement}
            if spec.gpus_per_worker:
                options["num_gpus"] = spec.gpus_per_worker
            actors.append(worker_class.options(**options).remote())
        settings = _settings(ray, actors, spec, prepared, replicas, claim_replicas)
        for index, worker in enumerate(settings):
            (folder / f"settings_{index}.json").write_text(json.dumps(worker), encoding="utf-8")
        results = _run(ray, actors, payload, settings, spec.timeout)
    finally:
        _release(ray, actors)
        remove_placement_group(group)
    for index, result in enumerate(results):  # the same files a local run leaves (--keep-temp)
        (folder / f"output_{index}.txt").write_text(result["output"], encoding="utf-8")
        if result["dump"] is not None:
            (folder / f"dump_{index}.json").write_text(result["dump"], encoding="utf-8")
    return [worker_dump(r["ending"], r["output"], r["dump"]) for r in results]


def _bundle(spec: RunSpec) -> dict[str, float]:
    bundle = {"CPU": 1.0}
    if spec.gpus_per_worker:
        bundle["GPU"] = spec.gpus_per_worker
    return bundle


def _unplaceable(ray: Any, spec: RunSpec) -> str:
    gpus = f" and {spec.gpus_per_worker:g} GPU(s)" if spec.gpus_per_worker else ""
    return (
        f"the Ray cluster could not place {spec.workers} worker(s) with 1 CPU{gpus} each within {spec.timeout:.0f} s "
        f"(cluster resources: {_resources(ray)})"
    )


def _resources(ray: Any) -> str:
    return (
        ", ".join(
            f"{name} {amount:g}" for name, amount in sorted(ray.cluster_resources().items()) if name in ("CPU", "GPU")
        )
        or "none"
    )


def _worker_class(ray: Any) -> Any:
    # By value: the nodes of a real cluster have Ray and TensorFlow, not necessarily distfix.
    ray.cloudpickle.register_pickle_by_value(ray_worker)
    return ray.remote(ray_worker.ValidationWorker)


def _archive(source: Path) -> bytes:
    """The project's copy as ``src/`` and the bootstrap with its child package as ``bootstrap/``."""

    def skip_caches(info: tarfile.TarInfo) -> tarfile.TarInfo | None:
        return None if "__pycache__" in info.name.split("/") else info

    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as archive:
        archive.add(source, arcname="src")
        archive.add(BOOTSTRAP, arcname="bootstrap/bootstrap.py")
        archive.add(BOOTSTRAP.with_name("child"), arcname="bootstrap/child", filter=skip_caches)
    return buffer.getvalue()


def _settings(
    ray: Any, actors: list[Any], spec: RunSpec, prepared: Prepared, replicas: int | None, claim_replicas: int | None
) -> list[dict[str, Any]]:
    """Each worker's settings, its cluster and mapped addresses on the nodes the actors landed on.

    Worker i gets a port for itself, one for every W-th address the script names (address j is
    mapped to worker j mod W's node, so a hard-coded cluster spreads like the real one), and
    worker 0 the spare ports for addresses the script builds at run time.
    """
    workers, addresses = spec.workers, prepared.addresses
    shares = [len(addresses[index::workers]) for index in range(workers)]
    counts = [1 + share + (SPARE_PORTS if index == 0 else 0) for index, share in enumerate(shares)]
    reserved = _get(
        ray,
        [a.reserve.remote(c) for a, c in zip(actors, counts, strict=True)],
        spec.timeout,
        "the Ray workers did not start",
    )
    cluster = [f"{host}:{ports[0]}" for host, ports in reserved]
    address_map = {}
    for position, address in enumerate(addresses):
        host, ports = reserved[position % workers]
        address_map[address] = f"{host}:{ports[1 + position // workers]}"
    common = worker_settings(spec, replicas, claim_replicas)
    return [
        {
            **common,
            **run_paths(prepared, prepared.root.parent),  # relative to the actor's folder on its node
            "address_map": address_map,
            "spare_host": reserved[0][0],
            "spare_ports": reserved[0][1][1 + shares[0] :],
            "tf_config": tf_config(cluster, index),
        }
        for index in range(workers)
    ]


def _run(
    ray: Any, actors: list[Any], payload: Any, settings: list[dict[str, Any]], timeout: float
) -> list[dict[str, Any]]:
    """Start every worker and wait; when one fails, the others are stopped at once (as local runs do)."""
    from ray.exceptions import RayError

    pending = {
        actor.run.remote(payload, worker, timeout): index
        for index, (actor, worker) in enumerate(zip(actors, settings, strict=True))
    }
    results: list[dict[str, Any] | None] = [None] * len(actors)
    deadline = time.monotonic() + timeout + GRACE_SECONDS
    while pending and time.monotonic() < deadline:
        ready, _ = ray.wait(list(pending), num_returns=1, timeout=max(0.0, deadline - time.monotonic()))
        for reference in ready:
            index = pending.pop(reference)
            result: dict[str, Any]
            try:
                result = ray.get(reference)
            except RayError as exc:  # the actor or its node was lost
                result = {
                    "ending": "exited",
                    "code": None,
                    "output": f"Ray lost the worker: {exc}"[:2000],
                    "dump": None,
                }
            results[index] = result
            if result["ending"] == "exited" and result["code"] != 0:
                for other in pending.values():
                    actors[other].stop.remote("stopped")
    for index in pending.values():  # the actor did not answer in time: ray.kill follows
        results[index] = {"ending": "timeout", "code": None, "output": "", "dump": None}
    return results  # type: ignore[return-value]


def _release(ray: Any, actors: list[Any]) -> None:
    """Kill every child and remove every folder (bounded), then kill the actors."""
    from ray.exceptions import GetTimeoutError, RayError

    try:
        ray.get([actor.cleanup.remote() for actor in actors], timeout=GRACE_SECONDS)
    except (GetTimeoutError, RayError):  # an actor that does not answer is killed below
        pass
    for actor in actors:
        ray.kill(actor)


def _get(ray: Any, references: Any, timeout: float, failure: str) -> Any:
    """``ray.get`` bounded by the run's timeout plus grace; RayRunError with ``failure`` past it."""
    from ray.exceptions import GetTimeoutError, RayError

    try:
        return ray.get(references, timeout=timeout + GRACE_SECONDS)
    except GetTimeoutError:
        raise RayRunError(failure) from None
    except RayError as exc:
        raise RayRunError(f"{failure}: {exc}") from None
