"""ember.utils.tensorboard: SummaryWriter, writing TensorBoard event files.

PyTorch's SummaryWriter needs the `tensorboard` package for its protocol buffers; ember writes
the few records it supports itself (_events.py: the TFRecord framing with CRC-32C and the
protobuf encoding of Event and Summary), so it needs nothing installed, and TensorBoard reads
the files. Scalars, several scalars, histograms and text are supported; images, graphs, audio,
embeddings and the other plugins raise NotImplementedError.
"""

from ember.utils.tensorboard.writer import SummaryWriter

__all__ = ["SummaryWriter"]
