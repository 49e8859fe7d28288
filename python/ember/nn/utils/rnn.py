"""Variable-length sequences: PackedSequence, pad_sequence, pack_(padded_)sequence and back."""

__all__: list[str] = []
