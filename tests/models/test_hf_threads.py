"""torch's threads hold up beside other processes (issue 43): lexbench's in-process models
wait passively (libgomp is told so before torch loads, unless the user chose) and use the
cores the process may run on; `--threads` and the user's own variables win.

What the passive wait saves is measured, not asserted here
(measurements/performance/thread_contention.py, docs/performance.md): these tests check that libgomp
itself runs with the settings."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import lexbench
from lexbench.models.hf_threads import (
    available_cores,
    cgroup_cpu_limit,
    quiet_waits,
    thread_count,
)

SRC = str(Path(lexbench.__file__).resolve().parents[1])
CLEARED = ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT", "KMP_BLOCKTIME", "OMP_NUM_THREADS")
# Loads the packaged model as a run does, then says how many threads torch has.
LOAD = (
    "import sys\n"
    "from lexbench.models.hf import HFCausalLM, HFOptions\n"
    "HFCausalLM.from_spec('smollm2-135m', HFOptions(threads=int(sys.argv[1]) or None))\n"
    "import torch\n"
    "print(torch.get_num_threads())\n"
)


def _load(threads: int = 0, **environment: str) -> tuple[int, str]:
    """(torch's threads, libgomp's settings as it printed them) in a fresh process."""
    env = {k: v for k, v in os.environ.items() if k not in CLEARED}
    env.update(environment, OMP_DISPLAY_ENV="VERBOSE", PYTHONPATH=SRC)
    done = subprocess.run(
        [sys.executable, "-c", LOAD, str(threads)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    return int(done.stdout.split()[-1]), done.stderr


@pytest.fixture(scope="module")
def packaged_model(user_cache_root):
    from lexbench.models.hf_files import packaged_smollm2_gguf

    try:
        packaged_smollm2_gguf()
    except FileNotFoundError as error:
        pytest.skip(str(error))


@pytest.mark.slow
def test_the_model_loads_with_threads_that_wait_passively(packaged_model):
    threads, settings = _load()
    # libgomp's own report: its spin before sleeping is 0 (was its default, 300000).
    assert "GOMP_SPINCOUNT = '0'" in settings, settings
    assert threads == available_cores()


@pytest.mark.slow
def test_the_users_choices_win(packaged_model):
    threads, settings = _load(threads=1, GOMP_SPINCOUNT="300000")
    assert "GOMP_SPINCOUNT = '300000'" in settings  # their wait stands
    assert threads == 1  # --threads


def test_a_wait_variable_set_by_the_user_is_their_choice():
    for name in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT", "KMP_BLOCKTIME"):
        environ = {name: "1"}
        assert quiet_waits(environ) == {} and environ == {name: "1"}
    environ: dict[str, str] = {}
    quiet_waits(environ)
    assert environ == {"OMP_WAIT_POLICY": "PASSIVE", "KMP_BLOCKTIME": "0"}


def test_thread_count():
    assert thread_count(4, {}) == 4
    assert thread_count(None, {"MKL_NUM_THREADS": "2"}) is None  # torch reads it itself
    assert thread_count(None, {"OMP_NUM_THREADS": "1"}) is None
    assert thread_count(None, {}) == available_cores()


def test_a_cgroup_quota_caps_the_cores(tmp_path):
    (tmp_path / "cpu.max").write_text("150000 100000\n")
    assert cgroup_cpu_limit(tmp_path) == 2  # 1.5 cores: 2 threads
    (tmp_path / "cpu.max").write_text("100000 100000\n")
    assert available_cores(tmp_path) == 1
    (tmp_path / "cpu.max").write_text("max 100000\n")
    assert cgroup_cpu_limit(tmp_path) is None
    (tmp_path / "cpu.max").write_text("garbage\n")
    assert cgroup_cpu_limit(tmp_path) is None
    assert cgroup_cpu_limit(tmp_path / "absent") is None
