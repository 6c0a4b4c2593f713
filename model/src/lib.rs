//! Golden functional model of the NPU.
//!
//! - [`cmdstream`]: command-stream decoder, encoder, disassembler, assembler.
//! - [`payload`]: the Ethos-U driver payload (`COP1`).
//! - [`npu`]: [`npu::Npu`], the model: the command-stream interpreter (STOP/IRQ,
//!   DMA, the dispatch of kernel operations).
//! - [`state`]: what operations act on (NPU_SET_* values, memory, shared buffer,
//!   run statistics) and what they record.
//! - [`ops`]: the operators of TRM 4.8 and the output unit of TRM 3.3.7.
//! - [`fixed`]: the output unit's fixed-point scaling and rounding modes.
//! - [`tensor`]: feature-map element types, layouts and tile addressing.
//! - [`job`]: job folders (JOBS.md) and the [`job::Backend`] trait.
//! - [`weights`]: the weight-stream codec (TRM 4.7).
//! - [`tflite`]: Vela-compiled TensorFlow Lite networks, laid out as the
//!   Ethos-U driver does and run on any [`job::Backend`].
//! - [`report`]: the per-layer report of a run.
//! - [`coverage`]: functional coverage of the programmers' model, collected
//!   as the model runs.
//!
//! # Semantics the TRM leaves open, as the model (and so the RTL) implements them
//!
//! Each was chosen so that Vela's command streams give TensorFlow Lite's
//! results; the fixture jobs and `tests/operators*.rs` check them.
//! - A command the NPU refuses stops the model as it stops the RTL:
//!   STATUS.cmd_parse_error, IRQ, QREAD at the command. That is a value with
//!   bits outside its command's fields (see `npu_arch::command`), a
//!   parameter outside the TRM's range, an NPU_OP_DMA_START whose descriptor
//!   cannot run, a forbidden operator combination. An access outside a
//!   region is a bus error with the RTL's STATUS.faulting_channel/interface.
//!   Streams whose result is UNPREDICTABLE or that reach outside the job's
//!   memory are refused before running ([`job::Job::check`]).
//! - Every IFM/IFM2 element has its zero point subtracted on reading
//!   (padding and inserted upscale zeros read as exactly the zero point); the
//!   OFM zero point is added after scaling.
//! - The IFM height/width a kernel reads are derived from the OFM size,
//!   strides, dilated kernel and padding: `(ofm - 1) * stride + kernel -
//!   pad_before - pad_after`; positions outside are padding.
//! - Per-channel scaling: `acc + bias` wrapped to the accumulator width, then
//!   `scale * 2^-shift` with the OFM rounding mode; TFL rounding is
//!   TFLite's `MultiplyByQuantizedMultiplier` exactly ([`fixed::scale`]).
//! - s5.10 accumulators (NPU_SET_ACC_FORMAT 2) are refused
//!   (STATUS.cmd_parse_error, as the RTL does): the TRM names the format but
//!   not its rounding, summation order or overflow (and Vela never selects
//!   it). Elementwise operations use no accumulators and ignore the format. Pooling and REDUCE_SUM with it,
//!   and int40 with max pool or padded average pool, break TRM 4.8.2 tables
//!   4-122/4-125.
//! - Max pool and average pool with padding do not scale; a padded average
//!   divides by the number of non-padding elements, rounding half away from
//!   zero (TFLite). Average pool without padding and REDUCE_SUM use the
//!   global or per-channel scale.
//! - For 32-bit OFMs of pooling and elementwise operations only the shift of
//!   OFM_SCALE applies (TRM 4.6.5); convolutions scale normally.
//! - ADD/SUB: IFM scale mode 0 multiplies each operand by its 16-bit scale;
//!   modes 1/2 scale one operand by `(x << L) * OPA_SCALE * 2^-(shift + L)`
//!   (L = 20 for 8-bit, 15 for 16-bit IFMs; TFL or natural rounding per
//!   IFM_PRECISION\[15:14\]) and shift the other left by L - 1, matching
//!   TFLite's quantized ADD and Vela's advanced scaling.
//! - MIN/MAX work on zero-point-corrected operands and do not scale; LRELU
//!   scales negative inputs only.
//! - SHR and SHL shift operand A by operand B; the TRM gives no range for
//!   the amount, so a negative one shifts by 0. SHR is `A / 2^B` rounded
//!   with the OFM rounding mode (double rounding of a power of two is
//!   TFLite's RoundingDivideByPOT: ties away from zero), then OFM_SCALE
//!   (only its shift for an int32 OFM); SHL is `A * 2^B` saturated to int32,
//!   not scaled. CLZ counts the leading zeros of the 32-bit pattern: 32 for
//!   0, 0 for negative values.
//! - LUTs live in each core's last 2 KB of shared buffer: 8-bit tables are
//!   indexed by value minus the clip type's minimum (256 bytes, or 256
//!   32-bit words for an int32 OFM, as Vela's int8 softmax uses), 16-bit
//!   tables hold 512 base/slope words interpolated over 7 fraction bits.
//!   With a LUT, the clip range and ACTIVATION_MIN/MAX bound the table
//!   index, not the looked-up value.
//! - SHR also writes int16 OFMs (table 4-124 lists int8, uint8 and int32),
//!   as Vela's int16 softmax does.
//! - tanh/sigmoid (NPU_SET_ACTIVATION 3/4) read the scaled value as a real
//!   number in units of 1/0x3000 (Vela programs OFM_SCALE to make it so) and
//!   interpolate TFLite's 256-entry sigmoid table (TRM 3.3.7.3: one
//!   hardwired table for both, with interpolation), rounding once to the
//!   activation type's fixed point ([`fixed::tanh_fixed`]). The TRM allows
//!   them for int8, uint8 and int16 (4.8.2) but does not say which fixed
//!   point the result has; the model uses the one TensorFlow Lite fixes for
//!   these operators' outputs, to which the OFM zero point is added: int16
//!   1/32768 (TFLite's int16 TANH/LOGISTIC exactly), 8-bit tanh 1/128, 8-bit
//!   sigmoid 1/256. Vela programmed them so before it moved 8-bit
//!   tanh/sigmoid to LUTs (its ACTIVATION_MIN/MAX of +-1.0 in TFLite's OFM
//!   quantization) and its API still emits them (generate_ofm_scaling_for_
//!   pooling). TFLite's own 8-bit kernels use LUTs made in float: with
//!   Vela's scaling they differ by one on inputs whose exact result lies
//!   within the table's error of a rounding tie (18 of 30720 over 60 input
//!   scales from 0.002 to 0.25), elsewhere they agree.
//! - LUT DMA: NPU_SET_DMA0_DST_REGION bits 0-1 are the core mask; Vela
//!   writes 3 on one-core configurations too, so a missing core's bit is
//!   ignored.
//! - DMA 2D/3D: on a strided side row r of plane p starts at
//!   `p * (LEN * SIZE0 + SKIP1) + r * (LEN + SKIP0)`; a 1D side is packed.
//! - Kernel decomposition (NPU_SET_KERNEL_STRIDE bit 5, 4x4 instead of 8x8
//!   sub-kernels) changes only the weight order of TRM 4.7.5: the partial
//!   sums of all sub-kernels meet in the same integer accumulator, so a
//!   convolution's result does not depend on it, and pooling ignores it.
//! - Parallel mode: core k computes output channels k, k + 2, ... from
//!   WEIGHT(k)/SCALE(k) streams with an OFM block depth of
//!   `ceil((depth - k) / 2)`.

pub mod address_space;
pub mod check;
pub mod cmdstream;
pub mod compare;
pub mod coverage;
pub mod device;
pub mod driver;
pub mod fixed;
pub mod floor;
pub mod footprint;
pub mod job;
pub mod job_folder;
pub mod npu;
pub mod ops;
pub mod payload;
pub mod report;
pub mod schedule;
pub mod state;
pub mod tensor;
pub mod tflite;
pub mod weights;
