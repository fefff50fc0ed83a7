"""Writes the fuzz seeds of the `ifrt_proxy_request` target (src/fuzz/targets.rs): one
IfrtRequest per file, protobuf encoded by hand (field numbers from XLA's ifrt_service.proto).
Run from this folder: python3 make_seeds.py"""


def varint(n):
    out = b""
    while True:
        b, n = n & 0x7F, n >> 7
        if n:
            out += bytes([b | 0x80])
        else:
            return out + bytes([b])


def key(field, wire):
    return varint(field << 3 | wire)


def ld(field, b):
    return key(field, 2) + varint(len(b)) + b


def vi(field, n):
    return key(field, 0) + varint(n)


def fx(field, n):
    return key(field, 1) + n.to_bytes(8, "little")


META = ld(1, fx(1, 7))


def dtype(kind):
    return vi(1, kind)


def shape(dims):
    return ld(1, b"".join(varint(d) for d in dims))


def single(device):
    return ld(1, ld(1, b"xla::ifrt::SingleDeviceSharding") + ld(2, vi(1, device)))


HLO = ld(1, ld(1, b"xla::ifrt::HloSharding")
         + ld(2, ld(1, ld(1, varint(0) + varint(1)))
              + ld(2, vi(1, 3) + ld(3, varint(2)) + ld(4, varint(0) + varint(1)))))

SEEDS = {
    "init": META + ld(2, b""),
    "make_array": META + ld(4, ld(1, dtype(11)) + ld(2, shape([2, 3])) + ld(3, single(0))
                            + fx(4, 5) + fx(6, 9)),
    "make_array_hlo": META + ld(4, ld(1, dtype(4)) + ld(2, shape([4])) + ld(3, HLO) + fx(4, 5)),
    "compile": META + ld(13, ld(1, ld(1, b"xla::ifrt::XlaProgram") + ld(2, b"ML\xefR\x00garbage"))),
    "execute": META + ld(15, fx(1, 1) + ld(2, (1).to_bytes(8, "little"))),
    "check_future": META + ld(3, fx(1, 123)),
    "delete_array": META + ld(9, ld(2, (5).to_bytes(8, "little"))),
    "copy_arrays": META + ld(24, ld(1, (5).to_bytes(8, "little")) + ld(2, varint(1))),
    "default_assignment": META + ld(19, fx(1, 1) + fx(2, 2)),
}

if __name__ == "__main__":
    for name, data in SEEDS.items():
        with open(f"{name}.ifrtreq", "wb") as f:
            f.write(data)
