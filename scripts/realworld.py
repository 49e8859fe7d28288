"""Run real PyTorch programs, unchanged, with `torch` aliased to ember (and with PyTorch too).

The programs are public repositories' files, brought to ../.mirror by the `fetch` look-up; none of
their code is in this project. Each is extracted from its snapshot into build/realworld/, run in
its own folder with a few steps' worth of arguments, and reported with its result and first error:

    PYTHONPATH=python .venv/bin/python scripts/realworld.py                  # ember only
    PYTHONPATH=python .venv/bin/python scripts/realworld.py --torch .bench-venv/bin/python
    PYTHONPATH=python .venv/bin/python scripts/realworld.py --only makemore -v  # one, with output
    ... --write-docs    # the table into docs/compat.md

With --torch, ember runs every program in PyTorch's random stream (EMBER_RNG=mt19937, Note [Random
streams] in ember/core/generator.cpp), and for each seeded program (its source, or a module of its
repository that it imports, calls manual_seed) the losses both sides print are compared: the first
ten numbers printed after the word "loss" (or, in a program that never prints it, the first ten
numbers it prints) must agree to 1e-4 relative, or to the last digit printed.

Under ember, a meta-path hook maps `torch` and every `torch.<x>` to `ember` and `ember.<x>`: the
very same module objects, so `import torch.nn as nn` gives `ember.nn`. A module ember lacks fails
as `No module named 'ember.<x>'`, the program's first error. scripts/realworld_standins/ holds
the stand-ins for what cannot come from here (torchvision's datasets, matplotlib's windows).
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import importlib.abc
import importlib.util
import os
import pathlib
import re
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
STANDINS = ROOT / "scripts" / "realworld_standins"
WORK = ROOT / "build" / "realworld"
DOC = ROOT / "docs" / "compat.md"
BEGIN, END = "<!-- realworld:begin -->", "<!-- realworld:end -->"


# --- the child side: run one program -------------------------------------------------------------
class TorchAlias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """`torch` and `torch.<x>` are `ember` and `ember.<x>`, the same module objects."""

    def find_spec(self, name, path=None, target=None):
        if name == "torch" or name.startswith("torch."):
            return importlib.util.spec_from_loader(name, self)
        return None

    def create_module(self, spec):
        module = importlib.import_module("ember" + spec.name[len("torch") :])
        self._spec = getattr(module, "__spec__", None)
        return module

    def exec_module(self, module):
        module.__spec__ = self._spec  # importlib set the torch spec on ember's module


def run_program(side: str, program: str, args: list[str]) -> None:
    sys.path.insert(0, str(STANDINS))
    sys.path.insert(0, os.path.dirname(os.path.abspath(program)))
    if side == "ember":
        sys.meta_path.insert(0, TorchAlias())
    sys.argv = [program, *args]
    import runpy

    runpy.run_path(program, run_name="__main__")


# --- the corpus ----------------------------------------------------------------------------------
@dataclasses.dataclass
class Program:
    repo: str  # owner/name, as fetched
    path: str  # in the repository
    args: tuple = ()
    setup: object = None  # callable(folder) that writes a small stand-in dataset
    steps: str = ""  # what the arguments cut the program down to
    data_size: int = 0  # images per stand-in dataset, for programs with fixed long loops
    pythonpath: tuple = ()  # folders of the repository its imports need (a package at its root)


def _names_txt(folder: pathlib.Path) -> None:
    import random

    rng = random.Random(0)
    letters = "abcdefghijklmnopqrstuvwxyz"
    names = {"".join(rng.choice(letters) for _ in range(rng.randint(3, 9))) for _ in range(2000)}
    (folder / "names.txt").write_text("\n".join(sorted(names)) + "\n")


def _shakespeare_char(folder: pathlib.Path) -> None:
    import pickle

    import numpy as np

    data = folder / "data" / "shakespeare_char"
    data.mkdir(parents=True, exist_ok=True)
    text = (ROOT / "README.md").read_text() * 4  # any text will do: it is the character level
    chars = sorted(set(text))
    stoi = {c: i for i, c in enumerate(chars)}
    ids = np.array([stoi[c] for c in text], dtype=np.uint16)
    n = int(0.9 * len(ids))
    ids[:n].tofile(data / "train.bin")
    ids[n:].tofile(data / "val.bin")
    meta = {"vocab_size": len(chars), "itos": dict(enumerate(chars)), "stoi": stoi}
    (data / "meta.pkl").write_bytes(pickle.dumps(meta))


def _tiny_text(folder: pathlib.Path) -> None:
    """input.txt: some English to train a character-level model on (tinyshakespeare's place)."""
    (folder / "input.txt").write_text((ROOT / "README.md").read_text() * 3)


def _wikitext2(folder: pathlib.Path) -> None:
    data = folder / "data" / "wikitext-2"
    data.mkdir(parents=True, exist_ok=True)
    words = (ROOT / "README.md").read_text().split()
    for name, part in (
        ("train", words[:3000]),
        ("valid", words[3000:3600]),
        ("test", words[3600:4200]),
    ):
        lines = [" ".join(part[i : i + 12]) for i in range(0, len(part), 12)]
        (data / f"{name}.txt").write_text("\n".join(lines) + "\n")


NANOGPT = (
    "config/train_shakespeare_char.py",
    "--device=cpu",
    "--compile=False",
    "--max_iters=4",
    "--eval_interval=2",
    "--eval_iters=2",
    "--log_interval=1",
    "--block_size=64",
    "--batch_size=8",
    "--n_layer=2",
    "--n_head=2",
    "--n_embd=64",
    "--dtype=float32",
)

JC = "jcjohnson/pytorch-examples"
MZ = "MorvanZhou/PyTorch-Tutorial"
YJ = "yunjey/pytorch-tutorial"
PE = "pytorch/examples"

CORPUS = [
    Program(JC, "tensor/two_layer_net_tensor.py"),
    Program(JC, "autograd/two_layer_net_autograd.py"),
    Program(JC, "autograd/two_layer_net_custom_function.py"),
    Program(JC, "nn/two_layer_net_nn.py"),
    Program(JC, "nn/two_layer_net_optim.py"),
    Program(JC, "nn/two_layer_net_module.py"),
    Program(JC, "nn/dynamic_net.py"),
    Program(MZ, "tutorial-contents/201_torch_numpy.py"),
    Program(MZ, "tutorial-contents/202_variable.py"),
    Program(MZ, "tutorial-contents/203_activation.py"),
    Program(MZ, "tutorial-contents/301_regression.py"),
    Program(MZ, "tutorial-contents/302_classification.py"),
    Program(MZ, "tutorial-contents/303_build_nn_quickly.py"),
    Program(MZ, "tutorial-contents/304_save_reload.py"),
    Program(MZ, "tutorial-contents/305_batch_train.py"),
    Program(MZ, "tutorial-contents/306_optimizer.py"),
    Program(MZ, "tutorial-contents/401_CNN.py"),
    Program(MZ, "tutorial-contents/402_RNN_classifier.py"),
    Program(MZ, "tutorial-contents/403_RNN_regressor.py"),
    Program(MZ, "tutorial-contents/404_autoencoder.py"),
    Program(MZ, "tutorial-contents/406_GAN.py"),
    Program(MZ, "tutorial-contents/406_conditional_GAN.py"),
    Program(MZ, "tutorial-contents/501_why_torch_dynamic_graph.py"),
    Program(MZ, "tutorial-contents/503_dropout.py"),
    Program(MZ, "tutorial-contents/504_batch_normalization.py"),
    Program(YJ, "tutorials/01-basics/linear_regression/main.py"),
    Program(YJ, "tutorials/01-basics/logistic_regression/main.py"),
    Program(YJ, "tutorials/01-basics/feedforward_neural_network/main.py"),
    Program(YJ, "tutorials/02-intermediate/convolutional_neural_network/main.py"),
    Program(YJ, "tutorials/02-intermediate/recurrent_neural_network/main.py"),
    Program(YJ, "tutorials/02-intermediate/bidirectional_recurrent_neural_network/main.py"),
    Program(
        YJ,
        "tutorials/02-intermediate/deep_residual_network/main.py",
        data_size=20,
        steps="80 epochs of 1 batch of 20",
    ),
    Program(
        YJ,
        "tutorials/03-advanced/generative_adversarial_network/main.py",
        data_size=100,
        steps="200 epochs of 1 batch",
    ),
    Program(YJ, "tutorials/03-advanced/variational_autoencoder/main.py"),
    Program(PE, "mnist/main.py", ("--epochs=1", "--dry-run"), steps="1 batch"),
    Program(PE, "mnist_rnn/main.py", ("--epochs=1", "--dry-run"), steps="1 batch"),
    Program(PE, "mnist_forward_forward/main.py", ("--epochs=2",), steps="2 epochs"),
    Program(PE, "regression/main.py"),
    Program(PE, "time_sequence_prediction/generate_sine_wave.py"),
    Program(PE, "vae/main.py", ("--epochs=1",), steps="1 epoch"),
    Program(
        PE, "word_language_model/main.py", ("--epochs=1", "--dry-run"), _wikitext2, steps="1 batch"
    ),
    Program(
        PE,
        "word_language_model/main.py",
        ("--epochs=1", "--model=Transformer", "--lr=5", "--dry-run"),
        _wikitext2,
        steps="1 batch",
    ),
    Program(PE, "time_sequence_prediction/train.py", ("--steps=1",), steps="1 LBFGS step"),
    Program(
        PE,
        "dcgan/main.py",
        (
            "--dataset=fake",
            "--dry-run",
            "--batchSize=8",
            "--workers=0",
            "--imageSize=64",
            "--niter=1",
            "--manualSeed=1",  # otherwise a seed from the unseeded `random`: not deterministic
        ),
        steps="1 batch",
    ),
    Program(
        "karpathy/makemore",
        "makemore.py",
        ("--max-steps=20", "-n", "0"),
        _names_txt,
        steps="20 steps",
    ),
    Program("karpathy/nanoGPT", "train.py", NANOGPT, _shakespeare_char, steps="4 iterations"),
    Program("karpathy/ng-video-lecture", "bigram.py", steps="as written (3000 steps)"),
    Program(
        "karpathy/minGPT",
        "projects/adder/adder.py",
        ("--trainer.max_iters=20",),
        pythonpath=(".",),
        steps="20 iterations",
    ),
    Program(
        "karpathy/minGPT",
        "projects/chargpt/chargpt.py",
        ("--trainer.max_iters=20", "--model.model_type=gpt-nano", "--trainer.num_workers=0"),
        _tiny_text,
        pythonpath=(".",),
        steps="20 iterations of gpt-nano",
    ),
    Program(
        "karpathy/nanoGPT",
        "sample.py",
        (
            "--init_from=resume",
            "--out_dir=out-shakespeare-char",
            "--device=cpu",
            "--compile=False",
            "--num_samples=2",
            "--max_new_tokens=20",
            "--dtype=float32",
        ),
        steps="the checkpoint train.py saved",
    ),
]


# --- the parent side: extract, run, report -------------------------------------------------------
def snapshot(repo: str, mirror: pathlib.Path, side: str) -> tuple[pathlib.Path, str]:
    """The repository's snapshot extracted into build/realworld/<side>/, and its commit: each
    side has its own copy, since programs write files that others read (a checkpoint)."""
    gitdir = mirror / repo.replace("/", "+") / "repo"
    if not gitdir.exists():
        raise FileNotFoundError(f"{gitdir}: fetch github:{repo} first (the search tool's fetch)")
    commit = subprocess.run(
        ["git", "--git-dir", str(gitdir), "rev-parse", "HEAD"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    folder = WORK / side / repo.replace("/", "+")
    stamp = folder / ".commit"
    if not stamp.exists() or stamp.read_text() != commit:
        subprocess.run(["rm", "-rf", str(folder)], check=True)
        folder.mkdir(parents=True)
        extract(gitdir, folder)
        stamp.write_text(commit)
    return folder, commit


def extract(gitdir: pathlib.Path, folder: pathlib.Path) -> None:
    """Every file of HEAD that the snapshot holds (its largest files may be absent: skipped)."""
    git = ["git", "--git-dir", str(gitdir)]
    listing = subprocess.run(
        [*git, "ls-tree", "-r", "-z", "HEAD"], check=True, capture_output=True
    ).stdout.split(b"\0")
    entries = [e.split(b"\t", 1) for e in listing if e]
    blobs = [(meta.split()[2], path.decode()) for meta, path in entries if b" blob " in meta]
    batch = subprocess.run(
        [*git, "cat-file", "--batch"],
        check=True,
        capture_output=True,
        input=b"".join(sha + b"\n" for sha, _ in blobs),
    ).stdout
    pos = 0
    for _, path in blobs:
        end = batch.index(b"\n", pos)
        header = batch[pos:end].split()
        pos = end + 1
        if header[-1] == b"missing":
            continue
        size = int(header[2])
        target = folder / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(batch[pos : pos + size])
        pos += size + 1


def first_error(stderr: str) -> str:
    lines = [line for line in stderr.strip().splitlines() if line.strip()]
    for line in reversed(lines):
        head = line.split(":", 1)[0]
        if head.endswith(("Error", "Exception", "Interrupt", "Exit")) or head == "Killed":
            return line.strip()[:160]
    return lines[-1].strip()[:160] if lines else ""


# --- the seeded-loss comparison ------------------------------------------------------------------
LOSS = re.compile(r"loss[^0-9\n]{0,16}?(-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)", re.IGNORECASE)
NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?(?![\w])")
LOSSES_COMPARED, LOSS_RTOL = 10, 1e-4
SEEDS = re.compile(r"^[^#\n]*\bmanual_seed\s*\(", re.MULTILINE)  # a call, not a comment


def is_seeded(folder: pathlib.Path, prog: Program) -> bool:
    """The program seeds PyTorch's generator: manual_seed in its source or in a module of its
    repository that it imports (minGPT's set_seed)."""
    source = (folder / prog.path).read_text(errors="replace")
    if SEEDS.search(source):
        return True
    for name in re.findall(r"^\s*(?:from|import)\s+([\w.]+)", source, re.MULTILINE):
        for base in (folder / prog.path).parent, *(folder / p for p in prog.pythonpath):
            for cand in (
                (base / name.replace(".", "/")).with_suffix(".py"),
                base / name.replace(".", "/") / "__init__.py",
            ):
                if cand.exists() and SEEDS.search(cand.read_text(errors="replace")):
                    return True
    return False


def printed_losses(stdout: str) -> list[str]:
    found = LOSS.findall(stdout) or NUMBER.findall(stdout)
    return found[:LOSSES_COMPARED]


def last_digit(text: str) -> float:
    """One unit of the last digit printed: 0.0123 -> 1e-4, 1.5e-03 -> 1e-4."""
    mantissa, _, exp = text.lower().partition("e")
    decimals = len(mantissa.partition(".")[2])  # "5." (NumPy's float 5) has none
    return 10.0 ** (int(exp or 0) - decimals)


def compare_losses(mine: list[str], theirs: list[str]) -> str:
    if not theirs:
        return "no losses printed"
    if len(mine) != len(theirs):
        return f"**differ**: {len(mine)} numbers printed, PyTorch {len(theirs)}"
    worst = 0.0
    for k, (a, b) in enumerate(zip(mine, theirs)):
        x, y = float(a), float(b)
        bound = max(LOSS_RTOL * max(abs(x), abs(y)), last_digit(a), last_digit(b))
        if abs(x - y) > bound:
            return f"**differ** at number {k + 1}: {a} vs {b}"
        worst = max(worst, abs(x - y) / max(abs(y), 1e-12))
    return f"agree ({len(mine)} numbers, max rel {worst:.0e})"


def run_one(
    python: str,
    side: str,
    prog: Program,
    folder: pathlib.Path,
    timeout: float,
    verbose: bool,
    stream: str = "",
):
    path = folder / prog.path
    env = dict(os.environ, MPLBACKEND="Agg", PYTHONHASHSEED="0")
    if stream:
        env["EMBER_RNG"] = stream
    if prog.data_size:
        env["REALWORLD_DATA_SIZE"] = str(prog.data_size)
    extra = [str(folder / p) for p in prog.pythonpath]
    env["PYTHONPATH"] = os.pathsep.join([*extra, str(ROOT / "python"), env.get("PYTHONPATH", "")])
    cmd = [python, str(ROOT / "scripts" / "realworld.py"), "--exec", side, str(path), *prog.args]
    start = time.monotonic()
    try:
        proc = subprocess.run(
            cmd, cwd=path.parent, env=env, capture_output=True, text=True, timeout=timeout
        )
        rc, out, err = proc.returncode, proc.stdout, proc.stderr
    except subprocess.TimeoutExpired as e:
        rc, out, err = -1, e.stdout or "", f"TimeoutExpired: over {timeout:.0f} s"
        out = out.decode() if isinstance(out, bytes) else out
    secs = time.monotonic() - start
    if verbose:
        print(out[-3000:], err[-6000:], sep="\n", file=sys.stderr)
    return rc == 0, secs, "" if rc == 0 else first_error(err), printed_losses(out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--exec", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    ap.add_argument(
        "--torch",
        metavar="PYTHON",
        help="also run each program with this Python's PyTorch (e.g. .bench-venv/bin/python)",
    )
    ap.add_argument("--mirror", default=str(ROOT.parent / ".mirror"))
    ap.add_argument("--only", help="run the programs whose repo/path contains this")
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--write-docs", action="store_true")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    if args.exec:
        side, program, *rest = args.exec
        run_program(side, program, rest)
        return 0

    if args.torch:
        args.torch = os.path.abspath(args.torch)  # the programs run in their own folders
    progs = [p for p in CORPUS if not args.only or args.only in f"{p.repo}/{p.path}"]
    rows, passed, torch_passed, both, seeded, agreed = [], 0, 0, 0, 0, 0
    stream = "mt19937" if args.torch else ""  # PyTorch's numbers, to compare losses with
    for prog in progs:
        folder, commit = snapshot(prog.repo, pathlib.Path(args.mirror), "ember")
        if prog.setup is not None:
            prog.setup((folder / prog.path).parent)
        ok, secs, err, losses = run_one(
            sys.executable, "ember", prog, folder, args.timeout, args.verbose, stream
        )
        passed += ok
        torch_cell = loss_cell = ""
        if args.torch:
            loss_cell = "not seeded" if not is_seeded(folder, prog) else ""
            folder, _ = snapshot(prog.repo, pathlib.Path(args.mirror), "torch")
            if prog.setup is not None:
                prog.setup((folder / prog.path).parent)
            t_ok, t_secs, t_err, t_losses = run_one(
                args.torch, "torch", prog, folder, args.timeout, False
            )
            torch_passed += t_ok
            both += t_ok and ok
            torch_cell = f"pass ({t_secs:.1f} s)" if t_ok else f"fail: `{t_err}`"
            if not loss_cell:
                loss_cell = compare_losses(losses, t_losses) if ok and t_ok else "did not run"
                seeded += loss_cell != "no losses printed" and ok and t_ok
                agreed += loss_cell.startswith("agree")
        cell = f"pass ({secs:.1f} s)" if ok else f"**fail**: `{err}`"
        rows.append((prog, commit, cell, torch_cell, loss_cell))
        print(
            f"{'PASS' if ok else 'FAIL'} {prog.repo}/{prog.path} {secs:.1f}s {err} {loss_cell}",
            flush=True,
        )

    head = "| repository | commit | program | steps | ember |"
    sep = "|---|---|---|---|---|"
    if args.torch:
        head, sep = head + " PyTorch | seeded losses |", sep + "---|---|"
    lines = [head, sep]
    for prog, commit, cell, torch_cell, loss_cell in rows:
        line = f"| {prog.repo} | {commit[:10]} | `{prog.path}` | {prog.steps or 'as written'} "
        line += f"| {cell} |" + (f" {torch_cell} | {loss_cell} |" if args.torch else "")
        lines.append(line)
    summary = f"ember runs {passed} of {len(rows)} programs unchanged"
    if args.torch:
        summary += (
            f"; PyTorch runs {torch_passed}, and of those ember runs {both} "
            f"({100.0 * both / max(torch_passed, 1):.0f}%); of the {seeded} seeded programs that "
            f"print losses and run on both sides, {agreed} agree with PyTorch"
        )
    peer = ""
    if args.torch:
        version = subprocess.run(
            [args.torch, "-c", "import torch; print(torch.__version__)"],
            capture_output=True,
            text=True,
        ).stdout.strip()
        peer = f", PyTorch {version}"
    when = f"Run on {time.strftime('%Y-%m-%d')} ({os.cpu_count()} cores{peer}), "
    when += f"`--timeout {args.timeout:.0f}`:\n\n"
    text = when + "\n".join(lines) + f"\n\n{summary}.\n"
    if args.write_docs:
        doc = DOC.read_text()
        pre, rest = doc.split(BEGIN, 1)
        _, post = rest.split(END, 1)
        DOC.write_text(f"{pre}{BEGIN}\n{text}{END}{post}")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
