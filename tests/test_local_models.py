"""The bundled models run, everywhere, out of process: each generates, a crash or a hang of the model
process fails one answer (the chain still answers from the sources) and the next call restarts it.

Named to run early: a llama.cpp build that crashes on this CPU fails here, loudly, before the long tests.
"""

from __future__ import annotations

import glob
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from assistant.chain import Assistant
from assistant.errors import BackendError
from assistant.llm.llama import LlamaBackend
from assistant.llm.registry import get_backend
from assistant.settings import LLMSettings, Settings
from tests.chat_support import sample_retriever

pytestmark = [pytest.mark.slow, pytest.mark.llm]

SAY_YES = [{"role": "user", "content": "Reply with the single word: yes"}]
COUNT = [{"role": "user", "content": "Count from 1 to 40, one number per line."}]


def _backend(name: str, **settings: object) -> LlamaBackend:
    backend = get_backend(name, LLMSettings.model_validate({"context_window": 2048, **settings}))
    assert isinstance(backend, LlamaBackend)
    return backend


def _amx_code(library: str) -> bool:
    disassembly = subprocess.run(
        ["objdump", "-d", library], capture_output=True, text=True, check=True
    ).stdout
    return any(op in disassembly for op in ("ldtilecfg", "tileloadd", "tdpbssd"))


@pytest.mark.parametrize("name", ["local", "local-small"])
def test_each_bundled_model_loads_and_generates(name: str) -> None:
    backend = _backend(name)
    reply = backend.complete(SAY_YES, max_tokens=8, temperature=0.0)
    assert reply.strip(), f"{name} generated nothing"
    served = backend.load()
    assert served.server is not None and served.server.running()
    assert served.server.pid != os.getpid()  # generation never runs in this process
    assert backend.count_tokens("hello world") == 2


def test_llama_cpp_has_no_amx_code_on_a_cpu_with_amx() -> None:
    if "amx_tile" not in Path("/proc/cpuinfo").read_text():
        pytest.skip("this CPU has no AMX")
    import llama_cpp

    libraries = glob.glob(str(Path(llama_cpp.__file__).parent / "lib" / "libggml-cpu.so"))
    assert libraries, "llama_cpp ships no libggml-cpu.so"
    assert not _amx_code(libraries[0]), "llama.cpp was built with its AMX kernels, which segfault here"


def test_a_crash_mid_answer_fails_that_answer_and_the_next_call_restarts_the_model() -> None:
    backend = _backend("local-small")
    first = backend.load()
    pid = first.server.pid if first.server else None
    stream = backend.stream(COUNT, max_tokens=200, temperature=0.0)
    assert next(stream) and pid is not None
    os.kill(pid, signal.SIGSEGV)  # what llama.cpp's AMX path did
    with pytest.raises(BackendError) as info:
        for _ in stream:
            pass
    assert "SIGSEGV" in str(info.value) and "restarts" in str(info.value)
    assert backend.complete(SAY_YES, max_tokens=8, temperature=0.0).strip()
    assert first.server is not None and first.server.pid != pid and first.server.running()


def test_a_hung_model_is_ended_after_the_timeout_and_restarted() -> None:
    backend = _backend("local-small", timeout=3.0, context_window=1024)  # its own server: another n_ctx
    served = backend.load()
    stream = backend.stream(COUNT, max_tokens=200, temperature=0.0)
    assert next(stream)
    assert served.server is not None
    hung = served.server.pid
    assert hung is not None
    os.kill(hung, signal.SIGSTOP)
    with pytest.raises(BackendError, match="stopped answering for 3 s"):
        for _ in stream:
            pass
    assert backend.complete(SAY_YES, max_tokens=8, temperature=0.0).strip()
    assert served.server.pid != hung


def test_the_chain_answers_from_the_sources_when_the_model_process_dies() -> None:
    backend = _backend("local-small")
    assistant = Assistant(sample_retriever(), backend, Settings())
    question = "What is BrainGFM and how is it pre-trained?"
    events = assistant.stream(question)
    served = backend.load()
    final = None
    for event in events:
        if event.kind == "token" and served.server is not None and served.server.running():
            assert served.server.pid is not None
            os.kill(served.server.pid, signal.SIGKILL)
        if event.kind == "final":
            final = event.answer
    assert final is not None and final.citations, "the fallback answer cites its sources"
    assert final.notice.startswith("The language model failed") and "SIGKILL" in final.notice
    again = assistant.ask(question)
    assert again.grounded and "failed" not in again.notice  # the restarted model answers


def test_the_model_server_ends_with_its_parent(tmp_path: Path) -> None:
    script = tmp_path / "parent.py"
    script.write_text(
        "import sys\n"
        "from assistant.llm.registry import get_backend\n"
        "from assistant.settings import LLMSettings\n"
        "served = get_backend('local-small', LLMSettings(context_window=512)).load()\n"
        "print(served.server.pid, flush=True)\n"
        "import os; os._exit(0)\n"  # no atexit clean-up: the server must notice by itself
    )
    root = Path(__file__).resolve().parent.parent
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, cwd=root, timeout=300, check=True
    )
    child = int(done.stdout.split()[-1])
    for _ in range(100):
        if not _alive(child):
            return
        subprocess.run(["sleep", "0.1"], check=True)
    os.kill(child, signal.SIGKILL)
    pytest.fail("the model server outlived its parent")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    return stat.exists() and stat.read_text().split()[2] != "Z"
