"""The load benchmark command runs end to end, as docs/throughput.md shows it (tiny settings;
numbers are not asserted)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.load import main, render
from tests.docs.pages import shell_commands

pytestmark = pytest.mark.slow  # minutes of work: make test-fast leaves it out (docs/testing.md)


def test_the_documented_command_reports_the_default_configuration_first_and_tuned_runs_labelled(
    tmp_path: Path, capsys
) -> None:
    (argv,) = shell_commands("throughput.md")
    assert argv[:3] == ["python", "-m", "benchmarks.load"]
    out = tmp_path / "report.json"
    assert main([*argv[3:], "--out", str(out)]) == 0
    report = json.loads(out.read_text())
    assert list(report["runs"]) == ["1_worker", "1_worker tuned"]
    assert report["tuned"] == {"JUDGE_LLM_CONCURRENCY": "8"}
    for row in report["runs"].values():
        assert row["ok"] == 4 and row["errors"] == 0
        assert row["throughput_per_s"] > 0 and row["p50_x_L"] > 0
        assert row["p95_x_L"] >= row["p50_x_L"]
        assert row["service_cpu_ms_per_request"] > 0
        assert row["service_cpu_ms_one_at_a_time"] > 0  # 4 submissions after the load
        assert row["client_cpu_ms_per_request"] > 0
    assert report["image"] == "photo" and report["images"] == 6  # every packaged photo
    assert len(report["load_average"]) == 3
    text = capsys.readouterr().out
    assert text.strip() == render(report)
    assert "closed loop" in text
    assert "the default configuration, then tuned: JUDGE_LLM_CONCURRENCY=8" in text
    assert text.index("1_worker tuned") > text.index("1_worker ")
    assert max(len(line) for line in text.splitlines()) <= 100  # was > 250 wide


def test_repeats_give_each_run_and_the_medians(tmp_path: Path, capsys) -> None:
    out = tmp_path / "report.json"
    argv = ["--clients", "2", "--requests", "2", "--workers", "1", "--checkpoints", "1"]
    argv += ["--batching", "per_modality", "--latency", "0.02", "--repeats", "3"]
    assert main([*argv, "--out", str(out)]) == 0
    report = json.loads(out.read_text())
    assert report["repeats"] == 3 and list(report["runs"]) == ["1_worker"]
    row = report["runs"]["1_worker"]
    assert len(row["each"]) == 3 and row["ok"] == 2 and row["errors"] == 0
    for key in ("throughput_per_s", "service_cpu_ms_per_request", "p95_x_L"):
        values = sorted(one[key] for one in row["each"])
        assert row[key] == pytest.approx(values[1], abs=0.01)  # the median of three
    text = capsys.readouterr().out
    assert all(f"1_worker #{i}" in text for i in (1, 2, 3)) and "1_worker median" in text
    with pytest.raises(SystemExit, match="at least 1"):
        main([*argv[:-2], "--repeats", "0"])


SMALL = ["--requests", "4", "--workers", "1", "--checkpoints", "1", "--batching", "per_modality"]
"""A tiny run: 4 submissions of one checkpoint, one worker."""


def _small_run(tmp_path: Path, *extra: str) -> tuple[dict, dict]:
    """The report and the single run's row of a tiny run with ``extra`` options."""
    out = tmp_path / "report.json"
    assert main([*SMALL, *extra, "--out", str(out)]) == 0
    report = json.loads(out.read_text())
    return report, report["runs"]["1_worker"]


def test_distinct_images_take_turns(tmp_path: Path, capsys) -> None:
    """--images N: N different images, one per submission in turn (the same size of body)."""
    from benchmarks.load import oe_submission

    first, second = (oe_submission(1, side=32, image_seed=s)["images"][0] for s in (1, 2))
    assert first != second and first == oe_submission(1, side=32)["images"][0]
    report, row = _small_run(tmp_path, "--clients", "2", "--latency", "0.02", "--images", "3")
    assert report["images"] == 3
    assert row["ok"] == 4 and row["errors"] == 0
    assert "3 images taking turns" in capsys.readouterr().out
    with pytest.raises(SystemExit, match="at least 1 image"):
        main([*SMALL, "--images", "0"])


def test_a_provider_rate_limit_is_met_and_its_refusals_reported(tmp_path: Path, capsys) -> None:
    """--rate-limit R: the fake refuses calls beyond R a second; every submission is still
    judged (the service backs off and retries) and the report counts the refusals."""
    report, row = _small_run(tmp_path, "--clients", "4", "--latency", "0.05", "--rate-limit", "10")
    assert report["provider_rate_limit_per_s"] == 10
    assert row["ok"] == 4 and row["errors"] == 0
    assert isinstance(row["provider_429s"], int) and row["provider_429s"] >= 0
    text = capsys.readouterr().out
    assert "provider rate limit 10.0/s" in text and "429s" in text
    assert max(len(line) for line in text.splitlines()) <= 100


def test_the_clients_send_the_bodies_in_turn() -> None:
    """Request i carries bodies[i % len(bodies)], in the closed loop and the open loop."""
    import http.server
    import threading

    import uvloop

    from benchmarks.load import _drive

    seen: list[bytes] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:  # the name http.server calls
            seen.append(self.rfile.read(int(self.headers["content-length"])))
            self.send_response(200)
            self.send_header("content-length", "2")
            self.end_headers()
            self.wfile.write(b"{}")

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}"
        for rate in (0.0, 50.0):
            seen.clear()
            latencies, errors = uvloop.run(_drive(url, [b"a", b"b", b"c"], 1, 7, rate))
            assert errors == 0 and len(latencies) == 7
            assert seen == [b"a", b"b", b"c", b"a", b"b", b"c", b"a"]
    finally:
        server.shutdown()


def test_the_images_are_photographs_as_png_or_jpeg_or_the_synthetic_gradient() -> None:
    from benchmarks.load import bodies_for

    def images(bodies: list[bytes]) -> list[str]:
        return [json.loads(b)["submission"]["images"][0] for b in bodies]

    png = images(bodies_for(1, "per_modality"))
    jpeg = images(bodies_for(1, "per_modality", "jpeg", 2))
    synthetic = images(bodies_for(1, "per_modality", "synthetic"))
    assert len(png) == 6 and len(set(png)) == 6
    assert all(u.startswith("data:image/png;base64,iVBORw0KGgo") for u in png)
    assert len(jpeg) == 2 and all(u.startswith("data:image/jpeg;base64,/9j/") for u in jpeg)
    assert len(synthetic) == 1 and synthetic[0].startswith("data:image/png;base64,")
    with pytest.raises(SystemExit, match="6 photos are packaged, asked for 7"):
        bodies_for(1, "per_modality", "photo", 7)


def test_a_service_started_elsewhere_is_driven_and_its_cpu_read_from_its_pid(
    tmp_path: Path, capsys
) -> None:
    """--service-url: nothing is started; --service-pid: that process tree's CPU."""
    import os

    from benchmarks.load import start_service
    from tests.fakes.provider import spawn_fake_provider, stop_process

    fake, provider_url = spawn_fake_provider(latency=0.02)
    proc, url = start_service(1, provider_url, tmp_path)
    try:
        out = tmp_path / "report.json"
        argv = ["--service-url", url, "--service-pid", str(proc.pid), "--latency", "0.02"]
        argv += ["--clients", "2", "--requests", "4", "--checkpoints", "1", "--images", "1"]
        assert main([*argv, "--one-at-a-time", "0", "--out", str(out)]) == 0
    finally:
        os.killpg(proc.pid, 15)
        proc.wait(timeout=30)
        stop_process(fake)
    report = json.loads(out.read_text())
    assert report["service_url"] == url and list(report["runs"]) == ["service"]
    row = report["runs"]["service"]
    assert row["ok"] == 4 and row["errors"] == 0 and row["service_cpu_ms_per_request"] > 0
    assert row["provider_cpu_ms_per_request"] is None  # not started here: not measured
    assert row["service_cpu_ms_one_at_a_time"] is None
    assert f"the service at {url} (started elsewhere)" in capsys.readouterr().out
    with pytest.raises(SystemExit, match="--service-pid goes with --service-url"):
        main(["--service-pid", "1"])


def test_the_service_inherits_the_callers_judge_variables_under_the_benchmarks_own() -> None:
    """A configured service can be benchmarked: every ``JUDGE_*`` variable of the caller
    (admin keys included) reaches ``judge serve``; the benchmark's model, endpoint, key, data
    folder and ``--tuned`` values win; ``REDIS_URL`` does not pass; the report lists the
    inherited names (never their values)."""
    from benchmarks.load import inherited, service_env

    caller = {
        "JUDGE_SERVE_ADMIN_KEYS": "admin-secret",
        "JUDGE_SERVE_RATE_LIMIT_PER_MINUTE": "0",
        "JUDGE_MODEL": "openai/real-model",
        "JUDGE_DATA_DIR": "/somewhere/else",
        "JUDGE_LLM_CONCURRENCY": "4",
        "REDIS_URL": "redis://127.0.0.1:6379/0",
        "PATH": "/usr/bin",
    }
    env = service_env(
        "http://127.0.0.1:9/v1",
        Path("/tmp/bench-data"),
        tuned={"JUDGE_LLM_CONCURRENCY": "512"},
        environ=caller,
    )
    assert env["JUDGE_SERVE_ADMIN_KEYS"] == "admin-secret"
    assert env["JUDGE_SERVE_RATE_LIMIT_PER_MINUTE"] == "0"
    assert env["PATH"] == "/usr/bin"
    assert env["JUDGE_MODEL"] == "openai/fake-judge"
    assert env["JUDGE_API_BASE"] == "http://127.0.0.1:9/v1"
    assert env["JUDGE_DATA_DIR"] == "/tmp/bench-data"
    assert env["JUDGE_LLM_CONCURRENCY"] == "512"
    assert "REDIS_URL" not in env
    assert caller["JUDGE_MODEL"] == "openai/real-model"  # the caller's mapping is not changed
    names = inherited(caller)
    assert names == [
        "JUDGE_LLM_CONCURRENCY",
        "JUDGE_SERVE_ADMIN_KEYS",
        "JUDGE_SERVE_RATE_LIMIT_PER_MINUTE",
    ]
    report = {"inherited_env": names, "runs": {}, "clients": 1, "requests": 1}
    report |= {"latency_L_s": 0.1, "checkpoints": 1, "batching": "per_modality", "rate_per_s": 0}
    report |= {"body_bytes": 1, "model": "openai/fake-judge", "load_average": [0, 0, 0]}
    text = render(report)
    assert "inherited from this shell: JUDGE_LLM_CONCURRENCY JUDGE_SERVE_ADMIN_KEYS" in text
    assert "admin-secret" not in text
