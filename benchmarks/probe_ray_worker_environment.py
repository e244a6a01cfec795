"""Does an environment variable a Ray driver sets reach the worker processes that run its tasks?

TFD504's rewrite sets `os.environ["TF_USE_LEGACY_KERAS"] = "1"` at the top of the script. When the
`fit` runs in a Ray task (a `@ray.remote` function, a Ray Train `train_loop_per_worker`), it runs
in a Ray worker process, whose environment is the one of the process that started the cluster.

Three runs, each in its own process (this machine only; no cluster outside is touched):
1. `cluster`: a process without the variable starts a local cluster (`ray.init(address="local")`) and waits.
2. `driver`: a second process sets the variable, connects to that cluster (as a Ray Client
   notebook or a job on a running cluster does) and asks a task for it, then asks again with
   `runtime_env={"env_vars": {...}}`.
3. `own`: a process sets the variable, then starts its own local cluster and asks a task.

Measured with Ray 2.60 on 2026-11-27 (its output):
    connected driver, task sees: None
    connected driver, runtime_env env_vars, task sees: '1'
    driver that started the cluster, task sees: '1'

So the top-of-script setting reaches Ray workers only when the same process starts the cluster;
on a cluster it connects to, the variable must go into the job's runtime_env (or the workers'
own environment). Run: python benchmarks/probe_ray_worker_environment.py
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from fixer.ray_start import init_ray  # noqa: E402  (a start that times out on a busy machine is retried)

_VARIABLE = "TF_USE_LEGACY_KERAS"
# A private local node: never a cluster already running on this machine.
_LOCAL = {"address": "local", "include_dashboard": False, "num_cpus": 1, "_node_ip_address": "127.0.0.1"}


def _ask(runtime_env: dict[str, object] | None = None) -> str | None:
    import ray

    @ray.remote
    def read() -> str | None:
        return os.environ.get(_VARIABLE)

    task = read.options(runtime_env=runtime_env) if runtime_env else read
    return ray.get(task.remote())  # type: ignore[no-any-return]


def cluster() -> None:
    """Start a local cluster without the variable, print its address, stay up until stdin closes."""
    import ray

    os.environ.pop(_VARIABLE, None)
    with tempfile.TemporaryDirectory(prefix="probe_ray_", ignore_cleanup_errors=True) as folder:
        init_ray(ray, **_LOCAL, _temp_dir=folder)
        print(ray.get_runtime_context().gcs_address, flush=True)
        sys.stdin.read()
        ray.shutdown()


def driver(address: str) -> None:
    import ray

    os.environ[_VARIABLE] = "1"
    ray.init(address=address)
    print(f"connected driver, task sees: {_ask()!r}")
    print(f"connected driver, runtime_env env_vars, task sees: {_ask({'env_vars': {_VARIABLE: '1'}})!r}")
    ray.shutdown()


def own() -> None:
    import ray

    os.environ[_VARIABLE] = "1"
    with tempfile.TemporaryDirectory(prefix="probe_ray_", ignore_cleanup_errors=True) as folder:
        init_ray(ray, **_LOCAL, _temp_dir=folder)
        print(f"driver that started the cluster, task sees: {_ask()!r}")
        ray.shutdown()


def main() -> None:
    environment = {k: v for k, v in os.environ.items() if k not in (_VARIABLE, "RAY_ADDRESS")}
    # A local cluster of this probe only: no token to hand between its processes; a slow shared
    # machine may need longer than the default for the raylet to register.
    environment.update(RAY_AUTH_MODE="disabled", RAY_raylet_start_wait_time_s="300")
    here = os.path.abspath(__file__)
    with subprocess.Popen(
        [sys.executable, here, "cluster"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=environment
    ) as started:
        assert started.stdout is not None and started.stdin is not None
        address = started.stdout.readline().strip()
        try:
            subprocess.run([sys.executable, here, "driver", address], check=True, env=environment)
        finally:
            started.stdin.close()
            started.wait()
    subprocess.run([sys.executable, here, "own"], check=True, env=environment)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "cluster":
        cluster()
    elif len(sys.argv) > 2 and sys.argv[1] == "driver":
        driver(sys.argv[2])
    elif len(sys.argv) > 1 and sys.argv[1] == "own":
        own()
    else:
        main()
