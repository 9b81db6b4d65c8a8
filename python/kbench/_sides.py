"""How kbench calls a Python side in a launch (the GPU build, python/src/python_sides.hpp): with torch's
current stream set to kbench's, so that torch ops and Triton launches queue where kbench's events time them.
Without torch (or without a GPU torch can see) the side is called as it is; kbench.current_stream() gives
the stream to other frameworks."""
import sys

_MAX_STREAMS = 64  # kbench's streams live as long as a case: a few per run
_external_streams = {}


def _torch_on_gpu():
    torch = sys.modules.get("torch")
    if torch is None:
        try:
            import torch  # pylint: disable=import-outside-toplevel
        except ImportError:
            return None
    return torch if torch.cuda.is_available() else None


def call_side(side, stream, device, on_device):
    """Calls `side` in kbench's launch on `stream` (a hipStream_t as a number) of `device`."""
    torch = _torch_on_gpu() if on_device else None
    if torch is None:
        side()
        return
    key = (stream, device)
    external = _external_streams.get(key)
    if external is None:
        if len(_external_streams) >= _MAX_STREAMS:
            _external_streams.clear()
        external = _external_streams[key] = torch.cuda.ExternalStream(stream, device=device)
    with torch.cuda.stream(external):
        side()
