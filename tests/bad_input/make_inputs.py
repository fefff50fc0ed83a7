"""Writes the binary inputs of tests/bad_input/ (checked in; cargo test needs no Python).

Needs only numpy (any recent version; the pinned JAX venv has it):
    /work/jaxenv/bin/python tests/bad_input/make_inputs.py
"""

import io
import os
import zipfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def npy_bytes(a):
    buf = io.BytesIO()
    np.save(buf, a)
    return buf.getvalue()


def write_zip(name, members):
    """An uncompressed .npz with the members in the given order."""
    with zipfile.ZipFile(os.path.join(HERE, name), "w", zipfile.ZIP_STORED) as z:
        for member, array in members:
            z.writestr(member, npy_bytes(array))


# A version 1.0 header claiming 10^11 float32 elements, over 16 bytes of data.
text = b"{'descr': '<f4', 'fortran_order': False, 'shape': (100000000000,), }"
text += b" " * (-(10 + len(text) + 1) % 64) + b"\n"
with open(os.path.join(HERE, "huge_header.npy"), "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + len(text).to_bytes(2, "little") + text + bytes(16))

# arr_1 stored before arr_0: numpy.load binds by name, so must xlac.
write_zip(
    "swapped_members.npz",
    [
        ("arr_1.npy", np.array([4, 5, 6], np.float32)),
        ("arr_0.npy", np.array([1, 2], np.float32)),
    ],
)
np.savez(os.path.join(HERE, "empty.npz"))
write_zip("only_arr_0.npz", [("arr_0.npy", np.array([1, 2], np.float32))])
