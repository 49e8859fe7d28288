"""How much of PyTorch's public API ember has, per namespace.

Run it where both import: the benchmarks' environment has PyPI's PyTorch (benchmarks/setup.sh),
and PYTHONPATH=python puts the ember of this checkout first:

    PYTHONPATH=python .bench-venv/bin/python scripts/api_coverage.py             # the table
    PYTHONPATH=python .bench-venv/bin/python scripts/api_coverage.py --missing nn.functional
    PYTHONPATH=python .bench-venv/bin/python scripts/api_coverage.py --write-docs  # docs/compat.md

A public name is one without a leading underscore whose value is a function, a class or a torch
submodule (re-exported standard-library modules such as `torch.os` do not count); for `Tensor`
it is every public attribute, methods and properties alike, since programs use both. ember has a
name when the matching ember object has an attribute of that name.

Names ember leaves out on purpose are listed, each with its reason, in scripts/api_omissions.txt;
they are reported apart and not counted as missing.
"""

from __future__ import annotations

import argparse
import fnmatch
import importlib
import inspect
import pathlib
import sys
import warnings

ROOT = pathlib.Path(__file__).resolve().parent.parent
OMISSIONS = ROOT / "scripts" / "api_omissions.txt"
DOC = ROOT / "docs" / "compat.md"
BEGIN, END = "<!-- api_coverage:begin -->", "<!-- api_coverage:end -->"

# The namespaces issue 16's acceptance figure is taken over, then the rest that programs import.
CORE = [
    "torch",
    "Tensor",
    "nn",
    "nn.functional",
    "nn.init",
    "nn.utils",
    "optim",
    "optim.lr_scheduler",
    "autograd",
    "utils.data",
]
OTHER = [
    "linalg",
    "fft",
    "special",
    "distributions",
    "distributed",
    "multiprocessing",
    "amp",
    "profiler",
    "utils.checkpoint",
    "fx",
    "cuda",
    "backends",
    "jit",
    "onnx",
    "nn.utils.rnn",
    "nn.utils.parametrize",
    "nn.utils.parametrizations",
    "optim.swa_utils",
    "autograd.functional",
]


def resolve(root, ns: str):
    """The object for a namespace ("nn.functional", "Tensor") under torch or ember, or None."""
    if ns == "torch":
        return root
    obj = root
    for part in ns.split("."):
        nxt = getattr(obj, part, None)
        if nxt is None:
            try:
                nxt = importlib.import_module(f"{obj.__name__}.{part}")
            except Exception:
                return None
        obj = nxt
    return obj


def _foreign(value) -> bool:
    """True for what a torch module merely re-exports: the standard library, typing, and torch
    itself (`torch.nn.init.torch`)."""
    if inspect.ismodule(value):
        return value.__name__ == "torch" or not value.__name__.startswith("torch")
    module = getattr(value, "__module__", None) or ""
    top = module.split(".")[0]
    return top in sys.stdlib_module_names or top in ("typing_extensions", "numpy")


def public_names(ns: str, obj) -> list[str]:
    names = []
    for name in dir(obj):
        if name.startswith("_"):
            continue
        if ns == "Tensor":
            names.append(name)
            continue
        try:
            value = getattr(obj, name)
        except Exception:
            continue
        if not (inspect.ismodule(value) or inspect.isclass(value) or callable(value)):
            continue
        if _foreign(value):
            continue
        names.append(name)
    return sorted(names)


def load_omissions() -> list[tuple[str, str, str]]:
    """(namespace, pattern, reason) from scripts/api_omissions.txt."""
    rules = []
    reason, in_comment = "", False
    for line in OMISSIONS.read_text().splitlines():
        line = line.strip()
        if not line:
            in_comment = False
            continue
        if line.startswith("#"):
            text = line.lstrip("# ").strip()
            reason = f"{reason} {text}" if in_comment else text
            in_comment = True
            continue
        in_comment = False
        ns, pattern = line.split(None, 1)
        rules.append((ns, pattern.strip(), reason))
    return rules


def omitted(ns: str, name: str, rules) -> str | None:
    for rule_ns, pattern, reason in rules:
        if rule_ns == ns and fnmatch.fnmatchcase(name, pattern):
            return reason
    return None


def measure(namespaces, rules):
    warnings.simplefilter("ignore")  # PyTorch's deprecation warnings for names it still has
    import torch

    import ember

    rows = []
    for ns in namespaces:
        t_obj = resolve(torch, ns) if ns != "Tensor" else torch.Tensor
        e_obj = resolve(ember, ns) if ns != "Tensor" else ember.Tensor
        names = public_names(ns, t_obj) if t_obj is not None else []
        have, missing, skipped = [], [], []
        for name in names:
            if e_obj is not None and hasattr(e_obj, name):
                have.append(name)
            elif omitted(ns, name, rules):
                skipped.append(name)
            else:
                missing.append(name)
        rows.append((ns, names, have, missing, skipped))
    return rows


def pct(a: int, b: int, digits: int = 0) -> str:
    return f"{100.0 * a / b:.{digits}f}%" if b else "-"


def table(rows, title: str) -> str:
    out = [
        f"| {title} | PyTorch names | ember has | omitted on purpose | missing | coverage |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    tot = [0, 0, 0, 0]
    for ns, names, have, missing, skipped in rows:
        counted = len(names) - len(skipped)
        out.append(
            f"| `{ns}` | {len(names)} | {len(have)} | {len(skipped)} | {len(missing)} "
            f"| {pct(len(have), counted)} |"
        )
        for i, n in enumerate((len(names), len(have), len(skipped), len(missing))):
            tot[i] += n
    out.append(
        # The omissions' share to a tenth: the acceptance bound is 10%.
        f"| **all** | {tot[0]} | {tot[1]} | {tot[2]} ({pct(tot[2], tot[0], 1)}) | {tot[3]} "
        f"| **{pct(tot[1], tot[0] - tot[2])}** |"
    )
    return "\n".join(out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--missing", metavar="NS", help="print the names ember lacks in NS")
    ap.add_argument("--omitted", metavar="NS", help="print the names omitted on purpose in NS")
    ap.add_argument("--write-docs", action="store_true", help="update the table in compat.md")
    args = ap.parse_args()
    rules = load_omissions()
    if args.missing or args.omitted:
        ns = args.missing or args.omitted
        ((_, _, _, missing, skipped),) = measure([ns], rules)
        for name in missing if args.missing else skipped:
            print(name)
        return 0
    import torch

    text = (
        f"Measured against PyTorch {torch.__version__}.\n\n"
        + table(measure(CORE, rules), "namespace")
        + "\n\nThe rest of what programs import (their own issues cover most of it):\n\n"
        + table(measure(OTHER, rules), "namespace")
    )
    if args.write_docs:
        doc = DOC.read_text()
        head, rest = doc.split(BEGIN, 1)
        _, tail = rest.split(END, 1)
        DOC.write_text(f"{head}{BEGIN}\n{text}\n{END}{tail}")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
