"""``distfix doctor`` against real sockets on 127.0.0.1 and real TensorFlow."""

from __future__ import annotations

import json
import re
import socket
import time
from pathlib import Path

import pytest


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _config(addresses: list[str], index: int = 0, task_type: str = "worker") -> str:
    return json.dumps({"cluster": {"worker": addresses}, "task": {"type": task_type, "index": index}})


@pytest.fixture
def listening():
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    yield server.getsockname()[1]
    server.close()


def test_a_listening_peer_passes(distfix, listening):
    config = _config([f"127.0.0.1:{_free_port()}", f"127.0.0.1:{listening}"])
    result = distfix("doctor", "--tf-config", config)
    assert result.returncode == 0, result.stdout
    assert f"ok: worker[1] 127.0.0.1:{listening} accepts connections" in result.stdout
    assert "is this machine (this task)" in result.stdout


def test_a_closed_port_is_reported(distfix):
    closed = _free_port()
    result = distfix("doctor", "--tf-config", _config([f"127.0.0.1:{_free_port()}", f"127.0.0.1:{closed}"]))
    assert result.returncode == 1
    assert f"warning: [port] worker[1] 127.0.0.1:{closed}: nothing accepts connections on port {closed}" in result.stdout


def test_no_network_contacts_nothing(distfix):
    closed = _free_port()
    result = distfix("doctor", "--no-network", "--tf-config", _config([f"127.0.0.1:{_free_port()}", f"127.0.0.1:{closed}"]))
    assert result.returncode == 0 and "[port]" not in result.stdout


def test_wrong_index_points_at_another_machine(distfix, listening):
    # 203.0.113.7 is a documentation address: it is this task's own entry, so it is never contacted.
    config = _config([f"127.0.0.1:{listening}", "203.0.113.7:2222"], index=1)
    result = distfix("doctor", "--tf-config", config)
    assert result.returncode == 1
    assert (
        "error: [own-address] worker[1] 203.0.113.7:2222 is this task's address, but it resolves to 203.0.113.7, "
        "which is not this machine" in result.stdout
    )


def test_own_entry_by_hostname_is_this_machine(distfix):
    config = _config([f"{socket.gethostname()}:{_free_port()}"])
    result = distfix("doctor", "--tf-config", config)
    assert result.returncode == 0, result.stdout
    assert f"ok: worker[0] {socket.gethostname()}:" in result.stdout and "is this machine (this task)" in result.stdout


def test_own_port_already_in_use(distfix, listening):
    result = distfix("doctor", "--tf-config", _config([f"127.0.0.1:{listening}"]))
    assert result.returncode == 1
    assert f"error: [own-port] worker[0] 127.0.0.1:{listening}: port {listening} is already in use on this machine" in result.stdout


def test_unresolvable_host(distfix):
    result = distfix("doctor", "--connect-timeout", "3", "--tf-config", _config([f"127.0.0.1:{_free_port()}", "no-such-host.invalid:2222"]))
    assert result.returncode == 1
    assert "error: [resolve] worker[1] no-such-host.invalid:2222: host 'no-such-host.invalid' does not resolve" in result.stdout


@pytest.mark.parametrize(
    ("config", "expected"),
    [
        ("{'cluster': {}}", "not valid JSON: Expecting property name enclosed in double quotes at line 1 column 2"),
        ("", "TF_CONFIG is empty"),
        ('{"task": {"type": "worker", "index": 0}}', "TF_CONFIG has no `cluster`"),
        ('{"cluster": {"worker": ["a:1"]}}', "TF_CONFIG has no `task`"),
        (_config(["a:1", "b:1"], index=5), "task index 5 is out of range: job 'worker' has 2 task(s)"),
        ('{"cluster": {"worker": ["a:1", "b:1"]}, "task": {"type": "worker", "index": "x"}}', "task index 'x' must be a non-negative integer"),
        (_config(["a:1"], task_type="workers"), "task type 'workers' is not one of chief, worker, evaluator, ps"),
        (_config(["10.0.0.1", "b:1"]), "worker[0] '10.0.0.1' has no port"),
        (_config(["a:x1", "b:1"]), "has a non-numeric port 'x1'"),
        (_config(["a:1", "a:1"]), "worker[1] repeats 'a:1' (also worker[0])"),
        ('[1, 2]', "must be a JSON object"),
    ],
)
def test_malformed_tf_config(distfix, config, expected):
    result = distfix("doctor", "--no-network", "--tf-config", config)
    assert result.returncode == 1, result.stdout
    assert expected in result.stdout
    assert "Traceback" not in result.stderr


def test_tf_config_from_the_environment_and_files(distfix, tmp_path: Path):
    assert distfix("doctor", "--no-network", env={"TF_CONFIG": _config(["a:1"])}).returncode == 0
    (tmp_path / "tf.json").write_text(_config(["a:1", "a:1"]))
    assert distfix("doctor", "--no-network", "--tf-config-file", str(tmp_path / "tf.json")).returncode == 1
    missing = distfix("doctor", "--tf-config-file", str(tmp_path / "nope.json"))
    assert missing.returncode == 2
    assert missing.stderr.strip() == f"distfix: error: cannot read {tmp_path / 'nope.json'}: No such file or directory"


def test_unset_tf_config_cannot_run(distfix):
    import os

    env = {k: v for k, v in os.environ.items() if k != "TF_CONFIG"}
    import subprocess
    import sys

    result = subprocess.run([sys.executable, "-m", "fixer", "doctor"], capture_output=True, text=True, env=env, timeout=60)
    assert result.returncode == 2
    assert "distfix: error: TF_CONFIG is not set" in result.stderr


def test_loopback_severities(distfix):
    mixed = distfix("doctor", "--no-network", "--tf-config", _config(["localhost:1", "10.1.2.3:1"]))
    assert mixed.returncode == 1 and "warning: [TFD602 loopback-mixed]" in mixed.stdout
    same = distfix("doctor", "--no-network", "--tf-config", _config(["localhost:1", "127.0.0.1:1"]))
    assert same.returncode == 1 and "error: [TFD602 loopback-same-port]" in same.stdout


def test_json_format(distfix):
    result = distfix("doctor", "--no-network", "--format", "json", "--tf-config", _config(["a:1", "a:1"]))
    data = json.loads(result.stdout)
    assert data["ok"] is False
    assert data["problems"][0]["severity"] == "error" and "repeats" in data["problems"][0]["message"]
    assert data["problems"][0]["check"] == "TFD603 duplicate-address" and data["problems"][0]["path"] == "cluster.worker[1]"


def test_fingerprints_that_differ_in_tensorflow_and_cuda(distfix, tmp_path: Path):
    base = {"python": "3.11.7", "tensorflow": "2.21.0", "keras": "3.15.1", "cuda": "12.5", "cudnn": "9",
            "gpus": ["/physical_device:GPU:0"], "nccl": True, "platform": "Linux x86_64", "hostname": "a"}
    other = {**base, "tensorflow": "2.20.0", "cuda": "12.2", "hostname": "b"}
    (tmp_path / "a.json").write_text(json.dumps(base))
    (tmp_path / "b.json").write_text(json.dumps(other))
    result = distfix("doctor", "--compare", str(tmp_path / "a.json"), str(tmp_path / "b.json"))
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert any(line.startswith("error: [fingerprint] tensorflow differs") and "2.20.0" in line for line in lines)
    assert any(line.startswith("error: [fingerprint] cuda differs") for line in lines)
    assert not any("python differs" in line for line in lines)
    (tmp_path / "c.json").write_text(json.dumps(base))
    same = distfix("doctor", "--compare", str(tmp_path / "a.json"), str(tmp_path / "c.json"))
    assert same.returncode == 0, same.stdout  # information only
    assert "info: [fingerprint] hostname 'a' appears more than once" in same.stdout


@pytest.mark.tensorflow
def test_real_fingerprint(distfix, tmp_path: Path):
    target = tmp_path / "me.json"
    result = distfix("doctor", "--fingerprint", "-o", str(target))
    assert result.returncode == 0, result.stderr
    data = json.loads(target.read_text())
    assert data["tensorflow"].startswith("2.") and data["python"].count(".") == 2
    assert data["gpus"] == [] and data["hostname"] == socket.gethostname()
    assert data["keras"].split(".")[0] in ("2", "3") and data["cuda_build"] in (True, False)
    assert set(data) >= {"cuda", "cudnn", "nccl", "platform", "python"}


@pytest.mark.tensorflow
def test_real_two_worker_probe(distfix):
    result = distfix("doctor", "--probe", "--local", "2", "--timeout", "120", timeout=200)
    assert result.returncode == 0, result.stdout
    # Replica r contributes r + 1, so 3 = 1 + 2 proves that both workers took part.
    assert "ok: worker 0 formed the cluster and all-reduced 3 over 2 replicas" in result.stdout
    assert "ok: worker 1 formed the cluster and all-reduced 3 over 2 replicas" in result.stdout
    assert result.stdout.strip().endswith("All checks passed.")


@pytest.mark.tensorflow
def test_real_two_worker_probe_as_json(distfix):
    result = distfix("doctor", "--probe", "--local", "2", "--format", "json", "--timeout", "120", timeout=200)
    assert result.returncode == 0, result.stdout
    data = json.loads(result.stdout)
    assert data["ok"] is True and data["problems"] == [] and data["error"] is None
    assert [line.split(" (")[0] for line in data["passed"]] == [
        "worker 0 formed the cluster and all-reduced 3 over 2 replicas",
        "worker 1 formed the cluster and all-reduced 3 over 2 replicas",
    ]
    assert all(re.search(r"\(TensorFlow import [\d.]+ s, cluster [\d.]+ s, all-reduce [\d.]+ s\)$", line) for line in data["passed"])


@pytest.mark.tensorflow
def test_probe_of_a_missing_peer_is_bounded(distfix):
    config = _config([f"127.0.0.1:{_free_port()}", f"127.0.0.1:{_free_port()}"])
    # Worker 1 never comes (nobody listens on its port), so the probe lasts until a bound. The wait
    # for the peer is counted from the worker's own report that TensorFlow is imported, so a short
    # --peer-timeout holds on a loaded machine, where the import alone can take a minute (--timeout
    # bounds that).
    started = time.monotonic()
    result = distfix("doctor", "--probe", "--timeout", "600", "--peer-timeout", "5", "--tf-config", config, timeout=900)
    assert result.returncode == 1, result.stdout + result.stderr
    assert (
        "error: [probe] worker 0 was still forming the cluster at the timeout (a peer is missing, unreachable, or has "
        "another cluster in its TF_CONFIG); killed it" in result.stdout
    )
    assert time.monotonic() - started < 600, "the peer wait, not the whole --timeout, ended the probe"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--local", "2"], "--local is for --probe"),
        (["--probe", "--local", "2", "--tf-config", "{}"], "--probe --local makes its own TF_CONFIG; drop --tf-config/--tf-config-file"),
        (["--fingerprint", "--probe"], "--fingerprint and --probe cannot be used together"),
        (["-o", "x.json"], "-o/--output is for --fingerprint"),
        (["a.json", "b.json"], "fingerprint files are only read with --compare"),
        (["--compare", "a.json"], "--compare needs at least two fingerprint files"),
        (["--compare", "a.json", "b.json", "--tf-config", "{}"], "--tf-config is not used by --compare, which reads no TF_CONFIG and contacts nothing"),
        (["--compare", "a.json", "b.json", "--no-network"], "--no-network is not used by --compare, which reads no TF_CONFIG and contacts nothing"),
        (["--fingerprint", "--tf-config-file", "tf.json"], "--tf-config-file is not used by --fingerprint, which reads no TF_CONFIG and contacts nothing"),
        (["--fingerprint", "--no-network"], "--no-network is not used by --fingerprint, which reads no TF_CONFIG and contacts nothing"),
        (["--probe", "--no-network"], "--no-network contradicts --probe, which forms the cluster over the network"),
        (["--device", "cpu"], "--device is for --probe"),
        (["--no-network", "--timeout", "5"], "--timeout is for --probe"),
        (["--peer-timeout", "5"], "--peer-timeout is for --probe"),
    ],
)
def test_misused_options_cannot_run(distfix, args, message):
    result = distfix("doctor", *args, env={"TF_CONFIG": _config(["a:1"])})
    assert result.returncode == 2
    assert result.stderr.strip() == f"distfix: error: {message}"


def test_compare_of_unreadable_files_cannot_run(distfix, tmp_path: Path):
    (tmp_path / "a.json").write_text("{not json")
    (tmp_path / "b.json").write_text("{}")
    result = distfix("doctor", "--compare", str(tmp_path / "a.json"), str(tmp_path / "b.json"))
    assert result.returncode == 2 and "not a fingerprint file" in result.stderr and "Traceback" not in result.stderr


def test_compare_severities(distfix, tmp_path: Path):
    base = {"python": "3.11.7", "tensorflow": "2.21.0", "keras": "3.15.1", "cuda": "12.5.1", "cudnn": "9",
            "gpus": [], "nccl": None, "platform": "Linux x86_64", "hostname": "a"}
    other = {**base, "python": "3.12.1", "keras": "2.21.0", "gpus": ["/physical_device:GPU:0"], "platform": "Darwin arm64",
             "hostname": "b"}
    patch = {**base, "python": "3.11.9", "keras": "3.14.0", "hostname": "c"}  # only patch levels differ: fine
    for name, data in (("a", base), ("b", other), ("c", patch)):
        (tmp_path / f"{name}.json").write_text(json.dumps(data))
    result = distfix("doctor", "--format", "json", "--compare", str(tmp_path / "a.json"), str(tmp_path / "b.json"))
    found = {p["message"].split(" differs")[0]: p["severity"] for p in json.loads(result.stdout)["problems"]}
    assert found == {"python": "error", "keras": "error", "gpus": "warning", "platform": "warning"}
    assert distfix("doctor", "--compare", str(tmp_path / "a.json"), str(tmp_path / "c.json")).returncode == 0


@pytest.mark.tensorflow
def test_fingerprint_keeps_tensorflow_out_of_the_parent(tmp_path: Path):
    import subprocess
    import sys

    target = tmp_path / "fp.json"
    code = (
        "import sys; from typer.testing import CliRunner; from fixer.cli import app; "
        f"r = CliRunner().invoke(app, ['doctor', '--fingerprint', '-o', {str(target)!r}]); "
        "print(r.exit_code, 'tensorflow' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=180)
    assert out.stdout.split() == ["0", "False"], out.stderr
    assert json.loads(target.read_text())["tensorflow"].startswith("2.")


def test_probe_checks_its_own_port_before_starting_tensorflow(distfix, listening):
    config = _config([f"127.0.0.1:{listening}", f"127.0.0.1:{_free_port()}"])
    result = distfix("doctor", "--probe", "--tf-config", config)
    assert result.returncode == 1
    assert "[own-port]" in result.stdout and "[probe]" not in result.stdout
    assert "ok: worker[1] 127.0.0.1:" in result.stdout and "resolves" in result.stdout  # peers are not connected to


@pytest.mark.tensorflow
def test_probe_reports_the_stage_a_worker_failed_in_and_stops_its_peers(listening):
    from fixer.doctor.probe import judge, run_workers

    cluster = [f"127.0.0.1:{listening}", f"127.0.0.1:{_free_port()}"]  # worker 0's port is taken
    configs = {f"worker {i}": _config(cluster, index=i) for i in range(2)}
    problems, passed = judge(run_workers(configs, timeout=120, cpu_only=True), expected_replicas=2)
    assert passed == []
    assert problems[0].message == (
        "worker 0 failed while forming the cluster: UnknownError: Could not start gRPC server (this task's port is already in use)"
    )
    # worker 1 would wait for worker 0 until the timeout; it is stopped as soon as worker 0 fails.
    assert re.fullmatch(r"worker 1 was stopped while (importing TensorFlow|forming the cluster) because worker 0 failed", problems[1].message)


@pytest.mark.tensorflow
def test_a_short_timeout_kills_every_worker(distfix):
    import subprocess

    result = distfix("doctor", "--probe", "--local", "2", "--timeout", "1", timeout=120)
    assert result.returncode == 1
    stuck = re.findall(r"^error: \[probe\] worker (\d) was still (?:starting|importing TensorFlow) at the timeout", result.stdout, re.M)
    assert stuck == ["0", "1"], result.stdout
    left = subprocess.run(["pgrep", "-f", "fixer/doctor/probe_child.py"], capture_output=True, text=True)
    assert left.stdout == "", "a probe worker outlived the timeout"


def test_a_sigterm_while_a_worker_starts_ends_the_doctor_once_the_worker_is_recorded():
    """The race CI met: SIGTERM inside Popen, after the fork, before the worker was recorded."""
    import os
    import signal

    from fixer.doctor.probe import _SigtermExit

    handler = _SigtermExit()
    previous = signal.signal(signal.SIGTERM, handler)
    recorded = []
    try:
        with pytest.raises(SystemExit) as ended:
            with handler.held():
                os.kill(os.getpid(), signal.SIGTERM)
                recorded.append("worker 0")
        assert recorded == ["worker 0"]
        assert ended.value.code == 128 + signal.SIGTERM
        with pytest.raises(SystemExit):  # outside a start: at once
            os.kill(os.getpid(), signal.SIGTERM)
            recorded.append("worker 1")
        assert recorded == ["worker 0"]
    finally:
        signal.signal(signal.SIGTERM, previous)


@pytest.mark.tensorflow
def test_terminating_the_doctor_kills_its_probe_workers():
    import os
    import signal
    import subprocess
    import sys

    from child_processes import wait_until

    config = _config([f"127.0.0.1:{_free_port()}", f"127.0.0.1:{_free_port()}"])  # worker 1 never comes: a hang
    doctor = subprocess.Popen(
        [sys.executable, "-m", "fixer", "doctor", "--probe", "--timeout", "300", "--tf-config", config],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )
    try:
        wait_until(lambda: subprocess.run(["pgrep", "-f", "fixer/doctor/probe_child.py"], capture_output=True, text=True).stdout,
                   "the probe worker to start")
        doctor.send_signal(signal.SIGTERM)
        assert doctor.wait(timeout=30) == 128 + signal.SIGTERM
        left = subprocess.run(["pgrep", "-f", "fixer/doctor/probe_child.py"], capture_output=True, text=True).stdout
        assert left == "", "a probe worker outlived the doctor"
    finally:
        if doctor.poll() is None:
            doctor.send_signal(signal.SIGTERM)  # lets the doctor kill its worker first
            try:
                doctor.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(doctor.pid, signal.SIGKILL)
                doctor.wait()


def test_documented_example_is_what_the_doctor_prints(distfix):
    """docs/commands/doctor.md's first example, run for real (with free ports in place of 40001/40002)."""
    page = (Path(__file__).resolve().parents[2] / "docs" / "commands" / "doctor.md").read_text(encoding="utf-8")
    block = re.search(r"```text\n\$ distfix doctor --tf-config '(.*?)'\n(.*?)\n\n", page, re.S)
    assert block, "docs/commands/doctor.md lacks the doctor example"
    ports = {"40001": str(_free_port()), "40002": str(_free_port())}
    config, expected = block.group(1), block.group(2)
    for old, new in ports.items():
        config, expected = config.replace(old, new), expected.replace(old, new)
    result = distfix("doctor", "--tf-config", config)
    assert result.returncode == 1
    assert result.stdout.strip() == expected
