# Ethos-U65-class NPU in rust-hdl: generate, lint, synthesise, test.
#   make          generate the Verilog, lint it, build the C API, run the demo jobs and network on the RTL
#   make synth    yosys synthesis of both configurations (8 minutes on 2 cores)
#   make timing   worst paths in ns and areas in a 0.18 um library, against a 32x32 multiply
#   make test     run the whole test suite (RTL through Verilator, golden model)
#   make coverage the testbench's tests and a fuzz shard with RTL code coverage (build/coverage)
# Targets install Verilator, yosys and OpenSTA from Debian when they are missing.

# Every configuration and block npu-gen emits (`npu-gen --list-configs`,
# `--list-blocks`): the committed files of verilog-out/, checked fresh by
# check-verilog.
MODULES := $(basename $(notdir $(wildcard verilog-out/*.v)))
# The configurations (their blocks are inside them); `synth-blocks` also
# synthesises every block on its own, for its own figures.
CONFIGS := $(filter npu_%,$(MODULES))
BLOCKS  := $(filter-out npu_%,$(MODULES))
CARGO   ?= cargo

.PHONY: all deps verilog check-verilog lint synth synth-blocks timing timing-blocks formal formal-selftest test runner-alone coverage coverage-full bench sim waves demo fuzz capi

all: deps verilog lint capi demo

deps:
	@scripts/install-deps.sh

verilog:
	$(CARGO) run -q -p npu-gen -- --all --out verilog-out
	$(CARGO) run -q -p npu-gen -- --registers docs/registers.md --c-headers capi/include

# Fails when verilog-out/, docs/registers.md or the C headers (capi/include)
# differ from what `make verilog` writes.
check-verilog:
	@rm -rf build/fresh && mkdir -p build/fresh/include
	@$(CARGO) run -q -p npu-gen -- --all --out build/fresh > /dev/null
	@$(CARGO) run -q -p npu-gen -- --registers build/fresh/registers.md --c-headers build/fresh/include
	@diff -r -q -x registers.md -x include build/fresh verilog-out && diff -q build/fresh/registers.md docs/registers.md \
		&& diff -r -q build/fresh/include capi/include \
		|| { echo "verilog-out/, docs/registers.md or capi/include is stale: run make verilog and commit"; exit 1; }
	@echo "verilog-out/, docs/registers.md and capi/include are up to date"

lint: deps
	@for m in $(MODULES); do \
		verilator --lint-only -Wall scripts/lint.vlt --top-module $$m verilog-out/$$m.v || exit 1; \
		echo "lint: $$m clean (waivers with reasons in scripts/lint.vlt)"; \
	done

# Formal proofs (SymbiYosys, scripts/formal/run.py) on blocks of verilog-out/:
# the toolchain goes to build/formal-venv (scripts/formal/setup.sh); not part
# of `make test`. formal-selftest checks each property fails on a broken copy.
formal:
	@scripts/formal/setup.sh
	@python3 scripts/formal/run.py

formal-selftest:
	@scripts/formal/setup.sh
	@python3 scripts/formal/run.py --selftest

# The C API: libnpu.so and libnpu.a (target/release) with capi/include/npu.h
# and npu_regs.h, and the example that runs a job folder through it.
capi: deps
	$(CARGO) build -q --release -p npu-capi
	@mkdir -p build/capi
	cc -std=c11 -O2 -Wall -Wextra -Werror -I capi/include capi/examples/run_job.c \
		-L target/release -lnpu -Wl,-rpath,$(CURDIR)/target/release -o build/capi/run_job
	@echo "capi: target/release/libnpu.so, target/release/libnpu.a, build/capi/run_job"

# Both configurations, each module synthesised once (the configurations share
# most of theirs) in yosys runs spread over the cores (scripts/synth.py).
synth: deps
	@python3 scripts/synth.py $(CONFIGS)

synth-blocks: deps
	@python3 scripts/synth.py $(BLOCKS)

# The worst register-to-register path of each configuration, of each of its
# blocks and of every block emitted on its own, in ns in OSU's 0.18 um cells
# (OpenSTA), with cell area and flops, beside a 32x32 multiply's
# (scripts/timing.sh; generic gate levels where the library or OpenSTA is
# missing); fails above 1.5x the multiply, and as synth does on latches and
# combinational loops (CI runs it in place of synth). timing-blocks: the
# blocks emitted on their own only.
timing: deps
	@scripts/timing.sh

empty :=
space := $(empty) $(empty)
timing-blocks: deps
	@scripts/timing.sh '^($(subst $(space),|,$(strip $(BLOCKS))))$$'

test: deps
	$(CARGO) test --workspace
	@$(MAKE) -s runner-alone

# RTL code coverage: the testbench crate's tests (every block's bench and the
# NPU's own tests, the random suites at the sizes of COVERAGE_JOBS) and a
# shard of the fuzz campaign of seed 57057, with coverage builds of both
# configurations and the blocks (NPU_COVERAGE, tb/src/verilator/coverage.rs),
# merged into build/coverage: summary.md (per area and Rust struct, each point
# of Rust source once), modules.md (per module of each design),
# uncovered.txt (each point no design reached: its Verilog line and the Rust
# update it comes from), coverage.info (lcov), merged.dat and annotated/
# (verilator_coverage). Waivers with reasons in scripts/coverage-waivers.txt.
# 24 minutes on 2 cores with fresh coverage builds (11 cached); `make coverage-full` runs every test of the
# workspace at full size (the drivers, the networks, the CLI; 1.5 hours).
# Not part of `make test`.
COVERAGE_DIR  := $(CURDIR)/build/coverage
COVERAGE_FUZZ ?= 300
# The tests run with coverage (cargo test's selection), e.g. `-p npu-tb --test dma`.
COVERAGE_TESTS ?= -p npu-tb
COVERAGE_JOBS ?= CONV_JOBS=40 CONV_PARALLEL_JOBS=6 POOL_JOBS=40 ELEMENTWISE_JOBS=40 \
	CHAIN_JOBS=8 DEPENDENT_JOBS=6 TWO_PRODUCER_JOBS=4
coverage: deps
	@rm -rf $(COVERAGE_DIR) && mkdir -p $(COVERAGE_DIR)/data
	$(COVERAGE_JOBS) NPU_COVERAGE=$(COVERAGE_DIR)/data nice -n 10 $(CARGO) test $(COVERAGE_TESTS) -q --no-fail-fast
	NPU_COVERAGE=$(COVERAGE_DIR)/data nice -n 10 $(CARGO) run -q -p npu-sim -- fuzz \
		--count $(COVERAGE_FUZZ) --seed 57057 --shard 1/4 --save build/coverage/fuzz --quiet
	verilator_coverage -write $(COVERAGE_DIR)/merged.dat -write-info $(COVERAGE_DIR)/coverage.info \
		--annotate $(COVERAGE_DIR)/annotated --annotate-min 1 $(COVERAGE_DIR)/data/*.dat > $(COVERAGE_DIR)/annotate.log
	$(CARGO) run -q -p npu-tb --bin npu-coverage -- $(COVERAGE_DIR)/data \
		--waivers scripts/coverage-waivers.txt --out $(COVERAGE_DIR)

coverage-full:
	@$(MAKE) coverage COVERAGE_TESTS=--workspace COVERAGE_FUZZ=1200 COVERAGE_JOBS=

# The runner without its RTL feature: neither rust-hdl nor the hardware crates
# in its dependency tree, and it runs a job on the golden model.
runner-alone:
	@if $(CARGO) tree -p npu-sim --no-default-features -e normal --prefix none | grep -qE '^(rust-hdl|npu-hw|npu-tb) '; then \
		echo "npu-sim without its rtl feature depends on rust-hdl or the hardware crates"; exit 1; fi
	@rm -rf build/runner-alone && mkdir -p build && cp -r model/tests/fixtures/jobs/conv_3x3_i8_df build/runner-alone
	@$(CARGO) run -q -p npu-sim --no-default-features -- run build/runner-alone -q > build/runner-alone.log \
		|| { cat build/runner-alone.log; exit 1; }
	@$(CARGO) run -q -p npu-sim --no-default-features -- check model/tests/fixtures/networks/residual_add/model_vela.tflite \
		> build/runner-alone-check.log || { cat build/runner-alone-check.log; exit 1; }
	@echo "runner-alone: npu-sim builds, runs a job and checks a stream without its rtl feature, rust-hdl or the hardware crates"

bench: deps
	$(CARGO) bench -p npu-tb --bench harness
	$(CARGO) bench -p npu-tb --bench weight_decoder
	$(CARGO) bench -p npu-tb --bench dma
	$(CARGO) bench -p npu-sim --bench networks
	$(CARGO) bench -p npu-model --bench check
	$(CARGO) bench -p npu-sim --bench checker_slack
	$(CARGO) bench -p npu-tb --bench conv
	$(CARGO) bench -p npu-tb --bench elementwise
	$(CARGO) bench -p npu-tb --bench output_unit
	$(CARGO) bench -p npu-capi --bench device
	@# yosys cells and flops per block, from the last `make synth` (8 minutes;
	@# run it first for figures of the current Verilog).
	@for m in $(CONFIGS); do \
		stat=build/synth/$$m/stat.json; \
		if [ ! -f $$stat ]; then echo "$$m: no synthesis yet (make synth)"; \
		elif [ $$stat -ot verilog-out/$$m.v ]; then echo "$$m: the last synthesis is older than verilog-out/$$m.v (make synth)"; \
		else echo "$$m, from the last make synth:"; python3 scripts/synth_summary.py $$m $$stat; fi; \
	done

# The bundled demo: DMA jobs, convolutions, pools and elementwise operations (Vela-made,
# TFLite-interpreter expected outputs) run on the RTL, outputs compared with the expected bytes;
# then the demo network (conv, depthwise, residual ADD, pools, LUT activation, fully connected)
# on the RTL, and a float32 network whose QUANTIZE and DEQUANTIZE Vela left on the CPU (the host
# runs them). Each run prints its per-layer table (cycles, MAC utilisation, AXI bytes per port).
DEMO_JOBS := $(wildcard model/tests/fixtures/jobs/dma_*) \
	$(addprefix model/tests/fixtures/jobs/,conv_3x3_i8_df dw_3x3_i8 conv_1x1_i16_df tconv_3x3_same_i8 \
		maxpool_3x3_same_i8 avgpool_3x3_same_i8 tanh_i16 exp_i8 add_i8 mul_u8_scalar sub_i8_bcast_first)
DEMO_NET  := model/tests/fixtures/networks/demo
FLOAT_NET := model/tests/fixtures/networks/float_io
demo: deps
	@for j in $(DEMO_JOBS); do $(CARGO) run -q --release -p npu-sim -- run $$j --model rtl || exit 1; done
	@echo "demo network on the RTL:"
	@mkdir -p build
	@$(CARGO) run -q --release -p npu-sim -- tflite $(DEMO_NET)/model_vela.tflite \
		--input $(DEMO_NET)/input.bin --output build/demo_output.bin --expected $(DEMO_NET)/expected.bin \
		--model rtl --report build/demo_layers.csv
	@echo "float32 network (QUANTIZE and DEQUANTIZE on the host) on the RTL:"
	@$(CARGO) run -q --release -p npu-sim -- tflite $(FLOAT_NET)/model_vela.tflite \
		--input $(FLOAT_NET)/input.bin --output build/float_io_output.bin \
		--expected $(FLOAT_NET)/expected.bin --model rtl

# Differential fuzzing of the golden model against the RTL: make fuzz [COUNT=10000] [SEED=n]
fuzz: deps
	$(CARGO) run -q --release -p npu-sim -- fuzz --count $(or $(COUNT),10000) $(if $(SEED),--seed $(SEED))

# Run a job folder: make sim JOB=path/to/job [MODEL=golden|rtl] [VCD=out.vcd | FST=out.fst]
sim:
	$(CARGO) run -q --release -p npu-sim -- run $(JOB) --model $(or $(MODEL),golden) $(if $(VCD),--vcd $(VCD)) $(if $(FST),--fst $(FST))

# A job's waveform on the RTL: make waves JOB=path/to/job [VCD=build/waves.vcd | FST=f.fst]
# (a VCD whose name ends .fst is an FST too)
waves: deps
	$(CARGO) run -q --release -p npu-sim -- run $(JOB) --model rtl $(if $(FST),--fst $(FST),--vcd $(or $(VCD),build/waves.vcd))
