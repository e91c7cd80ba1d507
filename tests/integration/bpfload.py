# SPDX-License-Identifier: MIT
# bpfload.py NAME - load a BPF socket filter named NAME (r0 = 0; exit) and close it, so the
# kernel sends ksymbol and bpf_event side-band records (t367, t604).  Exit 3 with
# "bpf: REASON" when this machine refuses.  x86_64 only: bpf(2) is syscall 321 there.
import ctypes, os, struct, sys
libc = ctypes.CDLL(None, use_errno=True)
insns = struct.pack("<BBhi", 0xb7, 0, 0, 0) + struct.pack("<BBhi", 0x95, 0, 0, 0)  # r0 = 0; exit
code = ctypes.create_string_buffer(insns)
lic = ctypes.create_string_buffer(b"GPL")
# union bpf_attr, BPF_PROG_LOAD: prog_type (1: socket filter), insn_cnt, insns, license,
# log_level, log_size, log_buf, kern_version, prog_flags, prog_name[16]
attr = ctypes.create_string_buffer(struct.pack("<IIQQIIQII16s", 1, 2, ctypes.addressof(code),
                                               ctypes.addressof(lic), 0, 0, 0, 0, 0,
                                               sys.argv[1].encode()[:15]), 128)
fd = libc.syscall(321, 5, attr, 128)
if fd < 0:
    print("bpf: " + os.strerror(ctypes.get_errno()))
    sys.exit(3)
os.close(fd)
