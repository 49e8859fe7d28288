"""SummaryWriter: event files under log_dir, one per writer (TensorBoard's layout)."""

from __future__ import annotations

import os
import socket
import time
from datetime import datetime
from typing import Any

from ember.utils.tensorboard import _events

__all__ = ["SummaryWriter"]

_counter = 0


def _scalar(value: Any) -> float:
    if hasattr(value, "item"):
        return float(value.item())
    return float(value)


class _EventFile:
    def __init__(self, log_dir: str, suffix: str = "") -> None:
        global _counter
        os.makedirs(log_dir, exist_ok=True)
        _counter += 1
        name = (
            f"events.out.tfevents.{int(time.time())}.{socket.gethostname()}."
            f"{os.getpid()}.{_counter}{suffix}"
        )
        self.path = os.path.join(log_dir, name)
        self.file = open(self.path, "ab")  # noqa: SIM115  (held until close())
        self.write(_events.event(time.time(), file_version="brain.Event:2"))
        self.flush()

    def write(self, event: bytes) -> None:
        self.file.write(_events.record(event))

    def flush(self) -> None:
        self.file.flush()

    def close(self) -> None:
        if not self.file.closed:
            self.file.flush()
            self.file.close()


class SummaryWriter:
    """Writes scalars, histograms and text for TensorBoard (torch.utils.tensorboard's API)."""

    def __init__(
        self,
        log_dir: str | None = None,
        comment: str = "",
        purge_step: int | None = None,
        max_queue: int = 10,
        flush_secs: int = 120,
        filename_suffix: str = "",
    ) -> None:
        if not log_dir:
            stamp = datetime.now().strftime("%b%d_%H-%M-%S")
            log_dir = os.path.join("runs", f"{stamp}_{socket.gethostname()}{comment}")
        self.log_dir = str(log_dir)
        self.filename_suffix = filename_suffix
        self.max_queue = max_queue
        self.flush_secs = flush_secs
        self._file = _EventFile(self.log_dir, filename_suffix)
        self._children: dict[str, _EventFile] = {}
        self._pending = 0
        self._last_flush = time.time()

    def get_logdir(self) -> str:
        return self.log_dir

    def _write(
        self, value: bytes, step: int | None, walltime: float | None, file: _EventFile | None = None
    ) -> None:
        target = file or self._file
        target.write(
            _events.event(
                time.time() if walltime is None else walltime,
                0 if step is None else int(step),
                summary=_events.summary(value),
            )
        )
        self._pending += 1
        if self._pending >= self.max_queue or time.time() - self._last_flush > self.flush_secs:
            self.flush()

    def add_scalar(
        self,
        tag: str,
        scalar_value: Any,
        global_step: int | None = None,
        walltime: float | None = None,
        new_style: bool = False,
        double_precision: bool = False,
    ) -> None:
        self._write(_events.scalar_value(tag, _scalar(scalar_value)), global_step, walltime)

    def add_scalars(
        self,
        main_tag: str,
        tag_scalar_dict: dict[str, Any],
        global_step: int | None = None,
        walltime: float | None = None,
    ) -> None:
        """Each scalar in its own run folder, log_dir/<main_tag>_<tag>, as PyTorch does."""
        for tag, value in tag_scalar_dict.items():
            folder = os.path.join(self.log_dir, f"{main_tag.replace('/', '_')}_{tag}")
            child = self._children.get(folder)
            if child is None:
                child = self._children[folder] = _EventFile(folder, self.filename_suffix)
            self._write(
                _events.scalar_value(main_tag, _scalar(value)), global_step, walltime, child
            )

    def add_histogram(
        self,
        tag: str,
        values: Any,
        global_step: int | None = None,
        bins: Any = "tensorflow",
        walltime: float | None = None,
        max_bins: int | None = None,
    ) -> None:
        import numpy as np

        if hasattr(values, "detach"):
            values = values.detach().double().numpy()
        a = np.asarray(values, dtype=np.float64).reshape(-1)
        if a.size == 0:
            raise ValueError("The histogram is empty, please file a bug report.")
        if isinstance(bins, str):
            bins = 30 if bins == "tensorflow" else bins
        counts, edges = np.histogram(a, bins=bins)
        value = _events.histogram_value(
            tag, a.min(), a.max(), a.size, a.sum(), float((a * a).sum()), edges[1:], counts
        )
        self._write(value, global_step, walltime)

    def add_text(
        self,
        tag: str,
        text_string: str,
        global_step: int | None = None,
        walltime: float | None = None,
    ) -> None:
        self._write(_events.text_value(tag + "/text_summary", text_string), global_step, walltime)

    def _unsupported(self, what: str):
        raise NotImplementedError(
            f"ember's SummaryWriter writes scalars, histograms and text; {what} is not supported"
        )

    def add_image(self, *args: Any, **kwargs: Any) -> None:
        self._unsupported("add_image")

    def add_images(self, *args: Any, **kwargs: Any) -> None:
        self._unsupported("add_images")

    def add_figure(self, *args: Any, **kwargs: Any) -> None:
        self._unsupported("add_figure")

    def add_graph(self, *args: Any, **kwargs: Any) -> None:
        self._unsupported("add_graph")

    def add_embedding(self, *args: Any, **kwargs: Any) -> None:
        self._unsupported("add_embedding")

    def add_audio(self, *args: Any, **kwargs: Any) -> None:
        self._unsupported("add_audio")

    def add_hparams(self, *args: Any, **kwargs: Any) -> None:
        self._unsupported("add_hparams")

    def flush(self) -> None:
        self._file.flush()
        for child in self._children.values():
            child.flush()
        self._pending = 0
        self._last_flush = time.time()

    def close(self) -> None:
        self._file.close()
        for child in self._children.values():
            child.close()

    def __enter__(self) -> SummaryWriter:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
