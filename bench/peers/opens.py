"""Counts the opens of each file of a directory (inotify IN_OPEN) and prints them as JSON on SIGUSR1 (and SIGTERM, then exits).

Every peer's read_file opens the workspace file it reads, so the count per file is the number of
tool executions whatever process runs the tool, without touching any peer's code.
"""
import ctypes, json, os, signal, struct, sys

IN_OPEN = 0x20
libc = ctypes.CDLL("libc.so.6", use_errno=True)
fd = libc.inotify_init()
if fd < 0 or libc.inotify_add_watch(fd, sys.argv[1].encode(), IN_OPEN) < 0:
    sys.exit("inotify: errno %d" % ctypes.get_errno())
counts = {}

def stop(*_):
    sys.stdout.write(json.dumps(counts) + "\n")
    sys.stdout.flush()
    os._exit(0)

def snapshot(*_):
    sys.stdout.write(json.dumps(counts) + "\n")
    sys.stdout.flush()

signal.signal(signal.SIGTERM, stop)
signal.signal(signal.SIGUSR1, snapshot)
sys.stdout.write("ready\n")
sys.stdout.flush()
while True:
    data = os.read(fd, 65536)
    i = 0
    while i < len(data):
        _, _, _, length = struct.unpack_from("iIII", data, i)
        name = data[i + 16:i + 16 + length].rstrip(b"\0").decode()
        i += 16 + length
        if name:
            counts[name] = counts.get(name, 0) + 1
