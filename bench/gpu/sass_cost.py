#!/usr/bin/env python3
"""sass_cost.py — multiply-pipe cost of each kernel in an sm_90 cubin, without a GPU or a disassembler.

The field products are bound by the integer multiply pipe (docs/design/009-gpu-ntt.md): an IMAD.WIDE or
IMAD.HI holds it about twice as long as an IMAD, IMAD.X or IMAD.MOV. Whether ptxas fused a product's
(lo, hi) halves into one IMAD.WIDE.U32.X or split them into IMAD.X + IMAD.HI.U32.X therefore shows in
the counts. The opcode is the low 9 bits of an instruction's first 64-bit word on sm_90 (0x24 IMAD,
0x25 IMAD.WIDE, 0x27 IMAD.HI); this was read off cuobjdump listings of the same kernels on the H200.

    nvcc -O3 -std=c++17 -gencode arch=compute_90,code=sm_90 -Iinclude -Isrc -cubin -o ntt.cubin src/gpu/ntt.cu
    python3 bench/gpu/sass_cost.py ntt.cubin

FILE may also be an object file, library or program that embeds cubins (nvcc's fatbin, uncompressed): each
CUDA ELF image found in it is reported in turn, so a carried variant program can be checked for the code
it holds (e.g. build-carry-ab/b/test_gpu_msm_pf1).

Prints, per kernel: instructions, IMAD.WIDE, IMAD.HI, other IMAD, cost = 2·(wide + hi) + imad (in IMAD
issue slots), register moves (MOV, and IMAD.MOV.U32: an IMAD whose first factor is RZ, placed on the
multiply pipe; not counted in imad), and the registers a thread and the stack frame bytes (the spill's
home), as `nvcc -Xptxas -v` reports them: read from the cubin's .nv.info attributes (EIATTR_REGCOUNT 0x2f
and EIATTR_FRAME_SIZE 0x11, each a pair (kernel symbol index, value); a kernel's .text section names its
symbol in sh_info). Compare two builds of the same kernel; the absolute numbers include the kernel's
set-up code.
"""
import struct
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


EM_CUDA = 190  # e_machine of a cubin


def is_cuda_elf(data, at=0):
    return data[at : at + 4] == b"\x7fELF" and data[at + 4] == 2 and struct.unpack_from("<H", data, at + 0x12)[0] == EM_CUDA


def embedded_cubins(data):
    """(offset, image) of every 64-bit CUDA ELF image inside data, each cut at its section header table's end."""
    at = data.find(b"\x7fELF")
    while at >= 0:
        if len(data) >= at + 0x40 and is_cuda_elf(data, at):
            shoff = struct.unpack_from("<Q", data, at + 0x28)[0]
            shentsize, shnum = struct.unpack_from("<HH", data, at + 0x3A)
            end = at + shoff + shentsize * shnum
            if shentsize == 64 and end <= len(data):
                yield at, data[at:end]
        at = data.find(b"\x7fELF", at + 1)


def kernels(data):
    """(name, offset, size) of every .text.<kernel> section."""
    for name, h in sections(data):
        if name.startswith(".text.") and h[1] == 1:  # SHT_PROGBITS
            yield name[6:], h[4], h[5]


def report(data):
    """The table for one cubin image; False when it holds no kernel."""
    secs = list(kernels(data))
    if not secs:
        return False
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
    return True


def main(argv):
    if len(argv) != 2:
        sys.stderr.write("usage: sass_cost.py FILE (a cubin, or an object, library or program embedding cubins)\n")
        return 2
    try:
        data = open(argv[1], "rb").read()
    except OSError as e:
        sys.stderr.write(f"sass_cost.py: {argv[1]}: {e.strerror}\n")
        return 1
    try:
        if is_cuda_elf(data):
            found = report(data)
        else:
            found = False
            for at, image in embedded_cubins(data):
                flags = struct.unpack_from("<I", image, 0x30)[0]
                print(f"# cubin at byte {at} (e_flags {flags:#x})")
                found = report(image) or found
    except (struct.error, ValueError, UnicodeDecodeError, IndexError):
        sys.stderr.write(f"sass_cost.py: {argv[1]}: not a readable ELF file\n")
        return 1
    if not found:
        sys.stderr.write(f"sass_cost.py: {argv[1]}: no kernel sections (no cubin in it?)\n")
        return 1
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv))
    except BrokenPipeError:  # output piped into head
        sys.stderr.close()
        sys.exit(0)
