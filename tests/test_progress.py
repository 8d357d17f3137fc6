"""A training shows its progress in a kernel of the series' JupyterLab (POSATTN_PROGRESS names its
parent: `make lab` passes its own process id), as one line updated in place and blanked at the
end; anywhere else it shows nothing, so nbval and `make notebooks` see the outputs as saved, even
when started from a terminal of that JupyterLab (the setting is inherited, the parent differs)."""

import os

import pytest
from jupyter_client.manager import KernelManager

TRAIN = ("import posattn.experiments as ex\n"
         "r = ex.who_bites_whom(None, seeds=[0, 1], steps=20)\n"
         "print('trained', len(r['train_accuracy']))")


def run_in_a_kernel(tmp_path, code: str, progress: str | None) -> list[dict]:
    """The messages a kernel of this environment publishes while it runs code."""
    env = {k: v for k, v in os.environ.items() if k != "POSATTN_PROGRESS"}
    env |= {"POSATTN_PROGRESS": progress} if progress is not None else {}
    manager = KernelManager(kernel_name="python3", connection_file=str(tmp_path / "kernel.json"))
    manager.start_kernel(env=env)
    client = manager.client()
    client.start_channels()
    client.wait_for_ready(timeout=60)
    published = []
    try:
        reply = client.execute_interactive(code, timeout=120, output_hook=published.append)
        assert reply["content"]["status"] == "ok", reply["content"]
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)
    return [msg for msg in published if msg["msg_type"] not in {"status", "execute_input"}]


def test_a_training_in_the_series_lab_shows_steps_then_blanks_its_line(tmp_path):
    messages = run_in_a_kernel(tmp_path, TRAIN, str(os.getpid()))  # this process: the parent
    kinds = [msg["msg_type"] for msg in messages]
    assert kinds[0] == "display_data" and kinds[-1] == "stream", kinds
    line = messages[0]["content"]["transient"]["display_id"]
    updates = [msg["content"] for msg in messages if msg["msg_type"] == "update_display_data"]
    assert updates and all(u["transient"]["display_id"] == line for u in updates)
    said = [u["data"].get("text/plain", "") for u in updates]
    assert said[0].startswith("training 2 models side by side: step 1 of 20"), said
    assert updates[-1]["data"] == {}  # blank at the end
    assert messages[-1]["content"]["text"] == "trained 2\n"


@pytest.mark.parametrize("setting", [None, "1", str(os.getppid())], ids=["unset", "1", "another"])
def test_elsewhere_a_training_shows_nothing_but_its_own_outputs(tmp_path, setting):
    messages = run_in_a_kernel(tmp_path, TRAIN, setting)
    assert [(msg["msg_type"], msg["content"].get("text")) for msg in messages] == [
        ("stream", "trained 2\n")]
