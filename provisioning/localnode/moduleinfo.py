"""Read and trim the `requires` of a compiled module descriptor (module-info.class, JVMS §4.7.25).

Only what runtime_fit.py needs: the names a module requires, and the same descriptor without some of
them. No Python library edits class files' Module attribute; the format is small and frozen (see
DECISIONS.md D-059).
"""

from __future__ import annotations

import struct

# Constant-pool entry sizes after the tag byte (JVMS §4.4); Utf8 (1) has a length prefix instead.
_SIZES = {3: 4, 4: 4, 5: 8, 6: 8, 7: 2, 8: 2, 9: 4, 10: 4, 11: 4, 12: 4, 15: 3, 16: 2, 17: 4, 18: 4, 19: 2, 20: 2}
_MODULE = 19


class BadClassFile(ValueError):
    pass


class _Descriptor:
    def __init__(self, data: bytes) -> None:
        if data[:4] != b"\xca\xfe\xba\xbe":
            raise BadClassFile("not a class file")
        self.data = data
        self.pool: dict[int, tuple[int, bytes]] = {}
        pos, count = 10, struct.unpack_from(">H", data, 8)[0]
        index = 1
        while index < count:
            tag = data[pos]
            if tag == 1:
                length = struct.unpack_from(">H", data, pos + 1)[0]
                self.pool[index] = (tag, data[pos + 3:pos + 3 + length])
                pos += 3 + length
            elif tag in _SIZES:
                self.pool[index] = (tag, data[pos + 1:pos + 1 + _SIZES[tag]])
                pos += 1 + _SIZES[tag]
            else:
                raise BadClassFile(f"unknown constant-pool tag {tag}")
            index += 2 if tag in (5, 6) else 1
        # access_flags, this_class, super_class, then interfaces, fields and methods: all empty here.
        pos += 6
        for _ in range(3):
            if struct.unpack_from(">H", data, pos)[0]:
                raise BadClassFile("not a module descriptor (it has interfaces, fields or methods)")
            pos += 2
        self.attributes_at = pos
        self.module_at = self._find_module_attribute()

    def utf8(self, index: int) -> str:
        return self.pool[index][1].decode("utf-8")

    def _find_module_attribute(self) -> int:
        pos = self.attributes_at + 2
        for _ in range(struct.unpack_from(">H", self.data, self.attributes_at)[0]):
            name, length = struct.unpack_from(">HI", self.data, pos)
            if self.utf8(name) == "Module":
                return pos
            pos += 6 + length
        raise BadClassFile("no Module attribute")

    def requires(self) -> list[tuple[str, bytes]]:
        """(module name, the 6-byte entry) for each `requires`, in order."""
        first = self.module_at + 6 + 6  # attribute header, then module name, flags and version
        count = struct.unpack_from(">H", self.data, first)[0]
        entries = []
        for n in range(count):
            entry = self.data[first + 2 + 6 * n:first + 8 + 6 * n]
            tag, value = self.pool[struct.unpack_from(">H", entry)[0]]
            if tag != _MODULE:
                raise BadClassFile("a requires entry does not name a module")
            entries.append((self.utf8(struct.unpack(">H", value)[0]), entry))
        return entries


def requires(data: bytes) -> list[str]:
    return [name for name, _ in _Descriptor(data).requires()]


def without_requires(data: bytes, names: set[str]) -> bytes:
    """The descriptor with the `requires` of `names` left out; everything else byte for byte."""
    desc = _Descriptor(data)
    entries = desc.requires()
    kept = [entry for name, entry in entries if name not in names]
    start = desc.module_at
    length = struct.unpack_from(">I", data, start + 2)[0]
    count_at = start + 12
    body = (data[start + 6:count_at] + struct.pack(">H", len(kept)) + b"".join(kept)
            + data[count_at + 2 + 6 * len(entries):start + 6 + length])
    return data[:start + 2] + struct.pack(">I", len(body)) + body + data[start + 6 + length:]
