"""The JMS bodies' byte layouts, apart from the message classes that read and write them.

BytesMessage bodies are java.io.DataOutputStream's encoding (numbers big-endian, strings in
Java's modified UTF-8 behind a 2-byte length); StreamMessage bodies are pgaq's tagged format
(bytes_raw of sys.aq$_jms_stream_message). `pgaq.jms.message` builds bodies with these and
`pgaq.jms.codec` stores them; a change here is a change to what other clients read.
"""

from __future__ import annotations

import struct
from typing import Any

from .errors import MessageFormatException

__all__ = ["STRUCTS", "decode_modified_utf8", "decode_stream", "encode_modified_utf8",
           "encode_stream"]


# -- java.io.DataOutputStream's encoding (BytesMessage bodies) ------------------------------
def encode_modified_utf8(text: str) -> bytes:
    """Java's modified UTF-8 (DataOutputStream.writeUTF without its length): U+0000 as C0 80,
    characters beyond the BMP as their two UTF-16 surrogates, three bytes each."""
    if text.isascii() and "\0" not in text:
        return text.encode("ascii")
    units = text.encode("utf-16-be", "surrogatepass")
    out = bytearray()
    for i in range(0, len(units), 2):
        u = (units[i] << 8) | units[i + 1]
        if 0 < u < 0x80:
            out.append(u)
        elif u < 0x800:
            out += bytes((0xC0 | (u >> 6), 0x80 | (u & 0x3F)))
        else:
            out += bytes((0xE0 | (u >> 12), 0x80 | ((u >> 6) & 0x3F), 0x80 | (u & 0x3F)))
    return bytes(out)


def decode_modified_utf8(data: bytes) -> str:
    """DataInputStream.readUTF's decoding; MessageFormatException for a malformed sequence."""
    if data.isascii():
        return data.decode("ascii")
    units: list[int] = []
    i, n = 0, len(data)
    while i < n:
        c = data[i]
        if c < 0x80:
            units.append(c)
            i += 1
        elif c >> 5 == 0b110 and i + 1 < n and data[i + 1] >> 6 == 0b10:
            units.append(((c & 0x1F) << 6) | (data[i + 1] & 0x3F))
            i += 2
        elif (c >> 4 == 0b1110 and i + 2 < n and data[i + 1] >> 6 == 0b10
              and data[i + 2] >> 6 == 0b10):
            units.append(((c & 0x0F) << 12) | ((data[i + 1] & 0x3F) << 6) | (data[i + 2] & 0x3F))
            i += 3
        else:
            raise MessageFormatException(f"malformed modified UTF-8 at byte {i}", "JMS-161")
    return struct.pack(f">{len(units)}H", *units).decode("utf-16-be", "surrogatepass")


# big-endian, as DataOutputStream writes numbers; ubyte/ushort are the unsigned reads
STRUCTS = {k: struct.Struct(f) for k, f in (("byte", ">b"), ("ubyte", ">B"), ("short", ">h"),
                                            ("ushort", ">H"), ("int", ">i"), ("long", ">q"),
                                            ("float", ">f"), ("double", ">d"))}


# -- StreamMessage bodies -------------------------------------------------------------------
# pgaq's stream body format (bytes_raw of sys.aq$_jms_stream_message): one tagged value after
# another, numbers big-endian as DataOutputStream writes them, strings and byte arrays behind
# a 4-byte length (strings in UTF-8, lone surrogates kept).
_TAGS = {"null": 0, "boolean": 1, "byte": 2, "char": 3, "short": 4, "int": 5, "long": 6,
         "double": 7, "float": 8, "string": 9, "bytes": 10, "null_bytes": 11}
_KIND_OF_TAG = {v: k for k, v in _TAGS.items()}
_FIXED = {"byte": "byte", "short": "short", "int": "int", "long": "long", "double": "double",
          "float": "float", "char": "ushort"}


def encode_stream(items: list[tuple[str, Any]]) -> bytes:
    out = bytearray()
    for kind, value in items:
        if value is None:
            out.append(_TAGS["null_bytes" if kind == "bytes" else "null"])
            continue
        out.append(_TAGS[kind])
        if kind == "boolean":
            out.append(1 if value else 0)
        elif kind == "char":
            out += STRUCTS["ushort"].pack(ord(value))
        elif kind in _FIXED:
            out += STRUCTS[_FIXED[kind]].pack(value)
        else:
            data = value.encode("utf-8", "surrogatepass") if kind == "string" else bytes(value)
            out += struct.pack(">I", len(data)) + data
    return bytes(out)


def decode_stream(data: bytes) -> list[tuple[str, Any]]:
    items: list[tuple[str, Any]] = []
    i, n = 0, len(data)
    try:
        while i < n:
            kind = _KIND_OF_TAG[data[i]]
            i += 1
            if kind == "null":
                items.append(("string", None))
            elif kind == "null_bytes":
                items.append(("bytes", None))
            elif kind == "boolean":
                if i >= n:
                    raise IndexError(i)
                items.append((kind, data[i] != 0))
                i += 1
            elif kind in _FIXED:
                s = STRUCTS[_FIXED[kind]]
                (v,) = s.unpack_from(data, i)
                i += s.size
                items.append((kind, chr(v) if kind == "char" else v))
            else:
                (size,) = struct.unpack_from(">I", data, i)
                i += 4
                if i + size > n:
                    raise IndexError(i)
                chunk = data[i:i + size]
                i += size
                items.append((kind, chunk.decode("utf-8", "surrogatepass") if kind == "string"
                              else bytes(chunk)))
    except (KeyError, IndexError, struct.error, UnicodeDecodeError) as exc:
        raise MessageFormatException(f"not a StreamMessage body (at byte {i})", "JMS-161",
                                     exc) from exc
    return items
