"""examples/fashion_mnist.py: a tiny run (256 images, 2 epochs) and its resume, which must give the
same epoch-2 numbers bitwise; the full default run (>= 91% test accuracy in 3 epochs) only with
EMBER_SLOW_TESTS=1."""

import importlib.util
import io
import os
import pathlib
import struct
import subprocess
import sys

import pytest

import ember

DEBIAN_ROOT = "/usr/share/datasets/fashion-mnist"
EXAMPLE = pathlib.Path(__file__).resolve().parents[2] / "examples" / "fashion_mnist.py"

pytestmark = pytest.mark.skipif(
    not os.path.exists(os.path.join(DEBIAN_ROOT, "t10k-labels-idx1-ubyte.gz")),
    reason="Debian's dataset-fashion-mnist is not installed",
)


@pytest.fixture(scope="module")
def example():
    spec = importlib.util.spec_from_file_location("fashion_mnist_example", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def small_root(tmp_path_factory):
    """The first 256 images of each split as IDX files: a run reads them in no time."""
    from ember.datasets import FashionMNIST

    root = tmp_path_factory.mktemp("fmnist")
    for train, prefix in ((True, "train"), (False, "t10k")):
        ds = FashionMNIST(DEBIAN_ROOT, train=train)
        for kind, t in (("images-idx3", ds.data[:256]), ("labels-idx1", ds.targets[:256])):
            t = t.to(ember.uint8).contiguous()
            header = bytes([0, 0, 8, t.dim()]) + struct.pack(f">{t.dim()}I", *t.shape)
            (root / f"{prefix}-{kind}-ubyte").write_bytes(header + t.numpy().tobytes())
    return str(root)


def run(example, small_root, tmp_path, *flags):
    out = io.StringIO()
    ckpt = str(tmp_path / "ckpt.safetensors")
    threads = ember.get_num_threads()
    try:
        history = example.main(
            ["--data-dir", small_root, "--checkpoint", ckpt, "--plot", "", "--threads", "2"]
            + list(flags),
            out=out,
        )
    finally:
        ember.set_num_threads(threads)
    return history, out.getvalue()


def test_resume_is_bitwise(example, small_root, tmp_path):
    (tmp_path / "a").mkdir()
    full, text = run(example, small_root, tmp_path / "a", "--epochs", "2")
    assert "256 training and 256 test images" in text
    assert "epoch 2/2: test loss" in text and "final test accuracy" in text
    # A StringIO is no terminal: progress comes as plain lines, no carriage returns.
    assert "\r" not in text and "epoch 1/2 [8/8] loss" in text
    assert len(full["test_acc"]) == 2 and full["test_acc"][1] > 0.4

    (tmp_path / "b").mkdir()
    first, _ = run(example, small_root, tmp_path / "b", "--epochs", "1")
    resumed, text = run(example, small_root, tmp_path / "b", "--epochs", "2", "--resume")
    assert "resumed from" in text and "after epoch 1" in text
    for key in ("train_loss", "train_acc", "test_loss", "test_acc"):
        assert resumed[key] == full[key], key  # floats compared exactly

    # The checkpoint holds everything a resume needs.
    ckpt = ember.load(str(tmp_path / "b" / "ckpt.safetensors"))
    assert ckpt["epoch"] == 2
    assert set(ckpt) >= {"model", "optimizer", "scheduler", "rng_state", "history"}
    assert ckpt["scheduler"]["last_epoch"] == 2
    assert abs(ckpt["optimizer"]["param_groups"][0]["lr"] - 1e-3 * 0.7**2) < 1e-12


def test_limit_and_resume_refuses_other_flags(example, small_root, tmp_path):
    history, text = run(example, small_root, tmp_path, "--epochs", "1", "--limit", "64")
    assert "64 training and 64 test images" in text and "epoch 1/1 [2/2]" in text
    with pytest.raises(SystemExit, match="resuming needs the same flags"):
        run(
            example,
            small_root,
            tmp_path,
            "--epochs",
            "2",
            "--limit",
            "64",
            "--resume",
            "--lr",
            "0.01",
        )


def test_data_parallel_run_follows_the_one_process_run(small_root, tmp_path):
    """--nproc 2: two ranks under the launcher, each with half of every batch. Batch norm sees
    16 images per rank instead of 32, so the numbers are close to one process's, not equal."""
    runs = {}
    for nproc in (1, 2):
        out = subprocess.run(
            [
                sys.executable,
                str(EXAMPLE),
                "--data-dir",
                small_root,
                "--plot",
                "",
                "--epochs",
                "2",
                "--out-dir",
                str(tmp_path / str(nproc)),
                "--nproc",
                str(nproc),
            ],
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert out.returncode == 0, out.stdout + out.stderr
        assert out.stdout.count("final test accuracy") == 1, out.stdout  # rank 0 only
        assert ("on each of 2 ranks" in out.stdout) == (nproc == 2), out.stdout
        runs[nproc] = ember.load(str(tmp_path / str(nproc) / "fashion_mnist.ckpt.safetensors"))
    assert runs[2]["epoch"] == 2
    one, two = runs[1]["history"], runs[2]["history"]
    assert two["train_loss"][1] < two["train_loss"][0]
    assert abs(two["train_loss"][0] - one["train_loss"][0]) < 0.1, (one, two)
    # the checkpoint holds the unwrapped model: its keys load into one process's model
    assert set(runs[2]["model"]) == set(runs[1]["model"])


@pytest.mark.skipif(os.environ.get("EMBER_SLOW_TESTS") != "1", reason="EMBER_SLOW_TESTS=1 runs it")
def test_default_run_reaches_91_percent(example, tmp_path):
    history = example.main(["--out-dir", str(tmp_path), "--plot", ""], out=io.StringIO())
    assert len(history["test_acc"]) == 3
    assert history["test_acc"][-1] >= 0.91, history


def test_progress_rewrites_one_line_on_a_terminal(example):
    class Terminal(io.StringIO):
        def isatty(self):
            return True

    stream = Terminal()
    progress = example.Progress(2, 3, 10, stream=stream)
    progress.update(10, 320, 0.5, 0.875, final=True)
    text = stream.getvalue()
    assert text.startswith("\repoch 2/3 [10/10] loss 0.5000 acc 87.50%") and text.endswith("s\n")


def test_missing_data_dir(example, tmp_path):
    with pytest.raises(FileNotFoundError, match="--data-dir"):
        example.main(["--data-dir", str(tmp_path), "--plot", ""], out=io.StringIO())


def test_out_dir_is_made_before_training(example, small_root, tmp_path):
    out_dir = tmp_path / "new" / "deeper"
    history = example.main(
        ["--data-dir", small_root, "--out-dir", str(out_dir), "--plot", "", "--epochs", "1"],
        out=io.StringIO(),
    )
    assert len(history["test_acc"]) == 1
    assert (out_dir / "fashion_mnist.ckpt.safetensors").is_file()


@pytest.mark.parametrize(
    "flags, message",
    [
        (["--epochs", "0"], "--epochs must be at least 1, got 0"),
        (["--batch-size", "-3"], "--batch-size must be at least 1, got -3"),
        (["--threads", "0"], "--threads must be at least 1, got 0"),
        (["--num-workers", "-1"], "--num-workers must be at least 0, got -1"),
        (["--limit", "0"], "--limit must be at least 1, got 0"),
        (["--lr", "0"], "--lr must be positive, got 0.0"),
        (["--lr", "nan"], "--lr must be positive, got nan"),
        (["--data-dir", "/no/such/folder"], "--data-dir '/no/such/folder' is not a folder"),
        (["--checkpoint", "FILE/ckpt.safetensors"], "cannot create its folder"),
        (["--plot", "FILE/plot.png"], "cannot create its folder"),
        (["--checkpoint", "DIR"], "is a folder; give a file name"),
    ],
)
def test_bad_flags_fail_before_training(example, tmp_path, capsys, flags, message):
    (tmp_path / "FILE").write_text("a file, not a folder")
    flags = [f.replace("FILE", str(tmp_path / "FILE")).replace("DIR", str(tmp_path)) for f in flags]
    with pytest.raises(SystemExit) as exc:
        example.main(flags, out=io.StringIO())
    assert exc.value.code == 2  # argparse's usage error, raised before any data are read
    assert message in capsys.readouterr().err
