"""torch.onnx: programs import it for an optional export step. ember has no ONNX exporter: it
would need the graph capture of torch.fx/export (issue 20) and an ONNX writer. `export` raises
NotImplementedError saying so, so that the import and the rest of a program still work."""

__all__ = ["export", "is_in_onnx_export"]


def export(model, args=(), f=None, *unused_args, **unused_kwargs):
    raise NotImplementedError(
        "ember.onnx.export: ember has no ONNX exporter (it needs graph capture, not built yet); "
        "save the weights with ember.save(model.state_dict(), path) instead"
    )


def is_in_onnx_export() -> bool:
    return False
