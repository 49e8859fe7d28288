class Size(tuple):
    """The shape of a tensor: a tuple of ints, printed as ember.Size([2, 3])."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"ember.Size({list(self)})"

    def __getitem__(self, key):
        r = tuple.__getitem__(self, key)
        return Size(r) if isinstance(key, slice) else r

    def __add__(self, other):
        return Size(tuple.__add__(self, tuple(other)))

    def numel(self) -> int:
        n = 1
        for s in self:
            n *= s
        return n
