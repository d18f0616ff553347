#!/usr/bin/env python3
"""sass_cost.py — multiply-pipe cost of each kernel in an sm_90 cubin, without a GPU or a disassembler.

The field products are bound by the integer multiply pipe (docs/design/009-gpu-ntt.md): an IMAD.WIDE or
IMAD.HI holds it about twice as long as an IMAD, IMAD.X or IMAD.MOV. Whether ptxas fused a product's
(lo, hi) halves into one IMAD.WIDE.U32.X or split them into IMAD.X + IMAD.HI.U32.X therefore shows in
the counts. The opcode is the low 9 bits of an instruction's first 64-bit word on sm_90 (0x24 IMAD,
0x25 IMAD.WIDE, 0x27 IMAD.HI); this was read off cuobjdump listings of the same kernels on the H200.

    nvcc -O3 -std=c++17 -gencode arch=compute_90,code=sm_90 -Iinclude -Isrc -cubin -o ntt.cubin src/gpu/ntt.cu
    python3 bench/gpu/sass_cost.py ntt.cubin

Prints, per kernel: instructions, IMAD.WIDE, IMAD.HI, other IMAD, cost = 2·(wide + hi) + imad (in IMAD
issue slots), register moves (MOV, and IMAD.MOV.U32: an IMAD whose first factor is RZ, placed on the
multiply pipe; not counted in imad), and the registers a thread and the stack frame bytes (the spill's
home), as `nvcc -Xptxas -v` reports them: read from the cubin's .nv.info attributes (EIATTR_REGCOUNT 0x2f
and EIATTR_FRAME_SIZE 0x11, each a pair (kernel symbol index, value); a kernel's .text section names its
symbol in sh_info). Compare two builds of the same kernel; the absolute numbers include the kernel's
set-up code.
"""
import re
import struct
import subprocess
import sys

OPS = {0x24: "imad", 0x25: "wide", 0x27: "hi"}
MOV, RZ = 0x002, 0xFF  # MOV's opcode; register 255 is RZ (read off the same listings)


def sections(data):
    """(name, header) of every section of a 64-bit little-endian ELF file; header = (name offset, type, flags,
    addr, offset, size, link, info, align, entsize)."""
    shoff = struct.unpack_from("<Q", data, 0x28)[0]
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    headers = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    names = headers[shstrndx][4]
    for h in headers:
        yield data[names + h[0] : data.index(b"\0", names + h[0])].decode(), h


def kernel_attrs(data):
    """{symbol index: (registers, frame bytes)} from the .nv.info section of a cubin."""
    regs, frame = {}, {}
    for name, h in sections(data):
        if name != ".nv.info":
            continue
        p, end = h[4], h[4] + h[5]
        while p + 4 <= end:
            fmt, attr = data[p], data[p + 1]
            if fmt == 4:  # EIFMT_SVAL: 16-bit size, then the value
                size = struct.unpack_from("<H", data, p + 2)[0]
                if attr in (0x2F, 0x11) and size == 8:
                    sym, val = struct.unpack_from("<II", data, p + 4)
                    (regs if attr == 0x2F else frame)[sym] = val
                p += 4 + size
            elif fmt == 3:  # EIFMT_HVAL: a 16-bit value
                p += 4
            elif fmt in (1, 2):  # EIFMT_NVAL (none), EIFMT_BVAL (one byte)
                p += 2 if fmt == 1 else 4
            else:
                break
    return {sym: (regs[sym], frame.get(sym, 0)) for sym in regs}


def section_syms(data):
    """{kernel name: symbol index} from the sh_info of each .text.<kernel> section."""
    return {name[6:]: h[7] for name, h in sections(data) if name.startswith(".text.")}


def kernels(path):
    """(name, offset, size) of every .text.<kernel> section, from readelf."""
    out = subprocess.run(["readelf", "-SW", path], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        m = re.search(r"\]\s+\.text\.(\S+)\s+PROGBITS\s+\S+\s+([0-9a-f]+)\s+([0-9a-f]+)", line)
        if m:
            yield m.group(1), int(m.group(2), 16), int(m.group(3), 16)


def main(argv):
    if len(argv) != 2:
        sys.stderr.write("usage: sass_cost.py FILE.cubin\n")
        return 2
    try:
        data = open(argv[1], "rb").read()
        secs = list(kernels(argv[1]))
    except OSError as e:
        sys.stderr.write(f"sass_cost.py: {argv[1]}: {e.strerror}\n")
        return 1
    except subprocess.CalledProcessError:
        sys.stderr.write(f"sass_cost.py: {argv[1]}: not an ELF file (readelf refused it)\n")
        return 1
    if not secs:
        sys.stderr.write(f"sass_cost.py: {argv[1]}: no kernel sections (not a cubin?)\n")
        return 1
    try:
        attrs, syms = kernel_attrs(data), section_syms(data)
    except (struct.error, ValueError, UnicodeDecodeError):  # not the layout read above: print the counts without them
        attrs, syms = {}, {}
    print(f"{'kernel':48s} {'instr':>6s} {'wide':>5s} {'hi':>5s} {'imad':>5s} {'cost':>6s} {'moves':>6s} {'regs':>5s} "
          f"{'frame':>6s}")
    for name, off, size in sorted(secs):
        n = {"imad": 0, "wide": 0, "hi": 0, "moves": 0}
        for i in range(off, off + size - 15, 16):
            word = struct.unpack_from("<Q", data, i)[0]
            op = word & 0x1FF
            if op == MOV or (op == 0x24 and (word >> 24) & 0xFF == RZ):
                n["moves"] += 1  # MOV, or IMAD.MOV.U32 (an IMAD whose first factor is RZ)
            elif op in OPS:
                n[OPS[op]] += 1
        cost = 2 * (n["wide"] + n["hi"]) + n["imad"]
        r, f = attrs.get(syms.get(name), ("?", "?"))
        print(f"{name[:48]:48s} {size // 16:6d} {n['wide']:5d} {n['hi']:5d} {n['imad']:5d} {cost:6d} {n['moves']:6d} "
              f"{r:>5} {f:>6}")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv))
    except BrokenPipeError:  # output piped into head
        sys.stderr.close()
        sys.exit(0)
