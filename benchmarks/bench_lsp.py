"""Benchmark the language server: first diagnostics, and latency from didChange to publishDiagnostics.

Opens a generated 2,000-line distributed training file in `distfix lsp` (over stdio, with a
small JSON-RPC client written here) and reports the time to its first diagnostics, from the
didOpen and from starting the server process (goal: under 1 s on an idle machine). Then it makes
50 one-character edits, and reports the p50 and p95 of the time between sending each didChange
and receiving its diagnostics, and of the server's CPU time per edit (which, unlike the wall
time, holds on a machine shared with other jobs). The load average is printed with the figures.

    python benchmarks/bench_lsp.py [--lines 2000] [--edits 50]
    python benchmarks/bench_lsp.py --file tf_keras/distribute/distribute_strategy_test.py  # a real file
    python benchmarks/bench_lsp.py --file ... --profile server.prof  # cProfile of the server process
    python benchmarks/bench_lsp.py --file ... --at 2300 --verify  # edit inside a long class; check results

Each edit inserts a comment line at line ``--at`` (0-based; default the first), the next one
deletes it. ``--verify`` compares the diagnostics published for every version with those of a
fresh whole-file check of that version's text (exit status 1 when one differs).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BLOCK = (ROOT / "corpus" / "reduction" / "tfd303_mean_loss" / "before.py").read_text(encoding="utf-8")


def server_cpu_seconds(pid: int) -> float:
    """User + system CPU time of the server process so far (Linux /proc; 10 ms ticks)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def training_file(lines: int) -> str:
    """A long file of distributed training code, with findings, about ``lines`` lines."""
    parts, number = [], 0
    while sum(p.count("\n") for p in parts) < lines:
        block = BLOCK
        for name in ("replica_step", "train_step", "loss_fn"):
            block = block.replace(name, f"{name}_{number}")
        parts.append(block)
        number += 1
    return "".join(parts)


class Client:
    """Just enough JSON-RPC over stdio to talk to the server."""

    def __init__(self, profile: Path | None = None) -> None:
        profiler = ["-m", "cProfile", "-o", str(profile.resolve())] if profile else []
        self.process = subprocess.Popen(
            [sys.executable, *profiler, "-m", "fixer", "lsp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=ROOT
        )
        self.next_id = 0

    def send(self, method: str, params: dict, request: bool = False) -> int | None:
        message = {"jsonrpc": "2.0", "method": method, "params": params}
        if request:
            self.next_id += 1
            message["id"] = self.next_id
        body = json.dumps(message).encode()
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()
        return message.get("id")

    def receive(self) -> dict:
        length = 0
        while True:
            line = self.process.stdout.readline().strip()
            if not line:
                break
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        return json.loads(self.process.stdout.read(length))

    def wait_for(self, predicate) -> dict:
        while True:
            message = self.receive()
            if predicate(message):
                return message


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=2000)
    parser.add_argument("--edits", type=int, default=50)
    parser.add_argument("--file", type=Path, help="open this file instead of a generated one")
    parser.add_argument("--profile", type=Path, help="run the server under cProfile, writing its stats here")
    parser.add_argument("--at", type=int, default=0, help="the 0-based line the edits insert and delete a comment at")
    parser.add_argument("--verify", action="store_true", help="compare each version's diagnostics with a fresh check")
    args = parser.parse_args()
    text = args.file.read_text(encoding="utf-8") if args.file else training_file(args.lines)
    uri = (ROOT / "bench_lsp_document.py").as_uri()
    started = time.perf_counter()
    client = Client(args.profile)
    request = client.send("initialize", {"processId": None, "rootUri": ROOT.as_uri(), "capabilities": {}}, request=True)
    client.wait_for(lambda m: m.get("id") == request)
    client.send("initialized", {})
    opened, open_cpu = time.perf_counter(), server_cpu_seconds(client.process.pid)
    client.send("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}})
    first = client.wait_for(lambda m: m.get("method") == "textDocument/publishDiagnostics")
    first_at = time.perf_counter()
    first_cpu = server_cpu_seconds(client.process.pid) - open_cpu
    latencies, cpu = [], []
    lines = text.splitlines(keepends=True)
    edited = "".join([*lines[: args.at], "# edit\n", *lines[args.at :]])
    published = [(text, first["params"]["diagnostics"])]
    for version in range(2, args.edits + 2):
        at = {"line": args.at, "character": 0}
        if version % 2 == 0:
            change = {"range": {"start": at, "end": at}, "text": "# edit\n"}
        else:
            change = {"range": {"start": at, "end": {"line": args.at + 1, "character": 0}}, "text": ""}
        start, cpu_start = time.perf_counter(), server_cpu_seconds(client.process.pid)
        client.send("textDocument/didChange", {"textDocument": {"uri": uri, "version": version}, "contentChanges": [change]})
        message = client.wait_for(
            lambda m: m.get("method") == "textDocument/publishDiagnostics" and m["params"].get("version") == version
        )
        published.append((edited if version % 2 == 0 else text, message["params"]["diagnostics"]))
        latencies.append((time.perf_counter() - start) * 1000)
        cpu.append((server_cpu_seconds(client.process.pid) - cpu_start) * 1000)
        time.sleep(0.1)  # a person types; the debounce is not what is measured
    request = client.send("shutdown", None, request=True)
    client.wait_for(lambda m: m.get("id") == request)
    client.send("exit", None)
    client.process.wait(timeout=10)
    latencies.sort()
    p95 = latencies[max(0, int(round(0.95 * len(latencies))) - 1)]
    print(f"load average: {' '.join(f'{v:.1f}' for v in os.getloadavg())}")
    print(f"document: {text.count(chr(10))} lines, {len(first['params']['diagnostics'])} diagnostics; {args.edits} edits")
    print(
        f"first diagnostics: {(first_at - opened) * 1000:.0f} ms after didOpen (server CPU {first_cpu * 1000:.0f} ms), "
        f"{(first_at - started) * 1000:.0f} ms after starting the server"
    )
    print(f"didChange -> publishDiagnostics: p50 {statistics.median(latencies):.0f} ms, p95 {p95:.0f} ms, max {latencies[-1]:.0f} ms")
    cpu.sort()
    cpu_p95 = cpu[max(0, int(round(0.95 * len(cpu))) - 1)]
    print(f"server CPU per edit (holds on a loaded machine): p50 {statistics.median(cpu):.0f} ms, p95 {cpu_p95:.0f} ms")
    if args.verify:
        differ = verify(published, uri)
        print(f"diagnostics of {len(published) - differ} of {len(published)} versions equal a fresh check's")
        sys.exit(1 if differ else 0)


def verify(published: list[tuple[str, list[dict]]], uri: str) -> int:
    """How many of the published versions' diagnostics differ from a fresh whole-file check of
    their text (run here, as the server would, with the same configuration and project root)."""
    sys.path.insert(0, str(ROOT))
    from pygls.protocol import default_converter

    from fixer.config import load_config
    from fixer.engine import check_source
    from fixer.lsp.convert import diagnostic, uri_path
    from fixer.textmap import TextMap
    from fixer.tf.importers import project_roots

    path = uri_path(uri)
    converter = default_converter()
    fresh: dict[str, list[dict]] = {}
    differ = 0
    for text, diagnostics in published:
        if text not in fresh:
            with project_roots((str(ROOT),), live=True):
                findings = check_source(str(path), text, load_config(path.parent)).findings
            textmap = TextMap(text)
            fresh[text] = json.loads(json.dumps(converter.unstructure([diagnostic(f, textmap) for f in findings])))
        differ += fresh[text] != diagnostics
    return differ


if __name__ == "__main__":
    main()
