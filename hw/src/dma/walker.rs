//! Walks one side of a DMA transfer: rows of `len` bytes, grouped into
//! planes, split into AXI bursts and 16-byte beats.

use crate::widgets::ResetReg;
use rust_hdl::prelude::*;

/// The shape of one side of a transfer (TRM 4.6.4-4.6.5 NPU_SET_DMA0_*).
///
/// Row `r` of plane `p` starts at `base + p * plane_stride + r * (len +
/// row_skip)`. A 3D side's planes are `size0 * len + plane_skip` bytes apart;
/// any other side's rows simply continue (`row_skip` 0 makes them packed),
/// so no multiplier is needed: the walker keeps the packed end of the
/// current plane.
#[derive(Clone, Debug, Default, LogicInterface)]
#[join = "TransferShapeSource"]
pub struct TransferShape {
    pub base: Signal<In, Bits<40>>,
    pub len: Signal<In, Bits<32>>,
    /// Rows per plane, at least 1.
    pub rows: Signal<In, Bits<16>>,
    /// Planes, at least 1.
    pub planes: Signal<In, Bits<16>>,
    pub row_skip: Signal<In, Bits<40>>,
    pub plane_skip: Signal<In, Bits<40>>,
    pub three_d: Signal<In, Bit>,
    /// AXI_LIMITn.max_beats: bursts never cross a 64 (0), 128 (1) or 256 (2)
    /// byte boundary; the reserved 3 acts as 0. Every such boundary lies
    /// inside a 4 KB page, so no burst crosses 4 KB either.
    pub max_beats: Signal<In, Bits<2>>,
}

/// The side that gives a [`TransferShape`].
#[derive(Clone, Debug, Default, LogicInterface)]
#[join = "TransferShape"]
pub struct TransferShapeSource {
    pub base: Signal<Out, Bits<40>>,
    pub len: Signal<Out, Bits<32>>,
    pub rows: Signal<Out, Bits<16>>,
    pub planes: Signal<Out, Bits<16>>,
    pub row_skip: Signal<Out, Bits<40>>,
    pub plane_skip: Signal<Out, Bits<40>>,
    pub three_d: Signal<Out, Bit>,
    pub max_beats: Signal<Out, Bits<2>>,
}

/// `start` loads a shape; the walker then presents bursts (`valid`,
/// `address`, `beats_m1`, ...) and, within the burst, the current beat
/// (`beat_*`). `next_burst` skips to the next burst (address issuers);
/// `next_beat` steps one beat (data paths). Use one or the other.
///
/// Each burst is worked out a burst ahead and presented from registers, so
/// its arithmetic does not lengthen the consumer's handshake (a fill
/// walker's lanes decide the aligner's `valid`, issue 36): the next burst
/// moves up as the presented one is taken, without a gap, and the first is
/// presented the second cycle after `start`.
#[derive(LogicBlock, Default)]
pub struct TransferWalker {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    pub start: Signal<In, Bit>,
    pub shape: TransferShape,
    pub next_burst: Signal<In, Bit>,
    pub next_beat: Signal<In, Bit>,
    /// Abandon the transfer: no burst remains.
    pub cancel: Signal<In, Bit>,
    /// A burst is presented.
    pub valid: Signal<Out, Bit>,
    /// A burst remains, presented or not.
    pub busy: Signal<Out, Bit>,
    /// Byte address of the burst's first byte.
    pub address: Signal<Out, Bits<40>>,
    /// AxLEN: beats in the burst - 1.
    pub beats_m1: Signal<Out, Bits<4>>,
    /// This is the transfer's last burst.
    pub last_burst: Signal<Out, Bit>,
    /// Byte lane of the burst's last byte in its last beat.
    pub burst_last_lane: Signal<Out, Bits<4>>,
    /// Byte lanes of the current beat, first to last.
    pub beat_first_lane: Signal<Out, Bits<4>>,
    pub beat_last_lane: Signal<Out, Bits<4>>,
    /// 16-byte line address of the current beat.
    pub beat_line: Signal<Out, Bits<36>>,
    pub beat_last_of_burst: Signal<Out, Bit>,
    pub beat_last: Signal<Out, Bit>,
    // The next burst's arithmetic, from the state below.
    boundary_bytes: Signal<Local, Bits<9>>,
    burst_bytes: Signal<Local, Bits<9>>,
    row_ends: Signal<Local, Bit>,
    burst_end_offset: Signal<Local, Bits<9>>,
    /// The presented burst is done with.
    burst_taken: Signal<Local, Bit>,
    /// The next burst moves up to be presented.
    advance_burst: Signal<Local, Bit>,
    // The presented burst.
    presented: ResetReg<Bit>,
    burst_address: ResetReg<Bits<40>>,
    burst_beats_m1: ResetReg<Bits<4>>,
    burst_last: ResetReg<Bit>,
    burst_lane: ResetReg<Bits<4>>,
    beat: ResetReg<Bits<4>>,
    // The walk from the next burst on; `active`: a burst remains after the
    // presented one.
    active: ResetReg<Bit>,
    current: ResetReg<Bits<40>>,
    row_left: ResetReg<Bits<32>>,
    row_start: ResetReg<Bits<40>>,
    packed_row_start: ResetReg<Bits<40>>,
    rows_left: ResetReg<Bits<16>>,
    planes_left: ResetReg<Bits<16>>,
    len: ResetReg<Bits<32>>,
    rows: ResetReg<Bits<16>>,
    row_stride: ResetReg<Bits<40>>,
    plane_gap: ResetReg<Bits<40>>,
    three_d: ResetReg<Bit>,
    max_beats: ResetReg<Bits<2>>,
}

impl Logic for TransferWalker {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            presented,
            burst_address,
            burst_beats_m1,
            burst_last,
            burst_lane,
            active,
            current,
            row_left,
            row_start,
            packed_row_start,
            rows_left,
            planes_left,
            beat,
            len,
            rows,
            row_stride,
            plane_gap,
            three_d,
            max_beats
        );
        self.presented.rst_n.next = self.rst_n.val();
        self.burst_address.rst_n.next = self.rst_n.val();
        self.burst_beats_m1.rst_n.next = self.rst_n.val();
        self.burst_last.rst_n.next = self.rst_n.val();
        self.burst_lane.rst_n.next = self.rst_n.val();
        self.active.rst_n.next = self.rst_n.val();
        self.current.rst_n.next = self.rst_n.val();
        self.row_left.rst_n.next = self.rst_n.val();
        self.row_start.rst_n.next = self.rst_n.val();
        self.packed_row_start.rst_n.next = self.rst_n.val();
        self.rows_left.rst_n.next = self.rst_n.val();
        self.planes_left.rst_n.next = self.rst_n.val();
        self.beat.rst_n.next = self.rst_n.val();
        self.len.rst_n.next = self.rst_n.val();
        self.rows.rst_n.next = self.rst_n.val();
        self.row_stride.rst_n.next = self.rst_n.val();
        self.plane_gap.rst_n.next = self.rst_n.val();
        self.three_d.rst_n.next = self.rst_n.val();
        self.max_beats.rst_n.next = self.rst_n.val();

        // Bytes from the current address to the next max_beats boundary.
        if self.max_beats.q.val() == 1 {
            self.boundary_bytes.next =
                bits::<9>(128) - bit_cast::<9, 40>(self.current.q.val() & 127);
        } else if self.max_beats.q.val() == 2 {
            self.boundary_bytes.next =
                bits::<9>(256) - bit_cast::<9, 40>(self.current.q.val() & 255);
        } else {
            self.boundary_bytes.next = bits::<9>(64) - bit_cast::<9, 40>(self.current.q.val() & 63);
        }
        self.row_ends.next = self.row_left.q.val() <= bit_cast::<32, 9>(self.boundary_bytes.val());
        self.burst_bytes.next = self.boundary_bytes.val();
        if self.row_ends.val() {
            self.burst_bytes.next = bit_cast::<9, 32>(self.row_left.q.val());
        }
        // Offset of the burst's last byte within its 256-byte window.
        self.burst_end_offset.next =
            bit_cast::<9, 40>(self.current.q.val() & 255) + self.burst_bytes.val() - 1;

        // The presented burst and its current beat.
        self.valid.next = self.presented.q.val();
        self.busy.next = self.presented.q.val() | self.active.q.val();
        self.address.next = self.burst_address.q.val();
        self.beats_m1.next = self.burst_beats_m1.q.val();
        self.last_burst.next = self.burst_last.q.val();
        self.burst_last_lane.next = self.burst_lane.q.val();
        self.beat_first_lane.next = 0.into();
        if self.beat.q.val() == 0 {
            self.beat_first_lane.next = bit_cast::<4, 40>(self.burst_address.q.val());
        }
        self.beat_last_of_burst.next = self.beat.q.val() == self.burst_beats_m1.q.val();
        self.beat_last_lane.next = 15.into();
        if self.beat_last_of_burst.val() {
            self.beat_last_lane.next = self.burst_lane.q.val();
        }
        self.beat_line.next = bit_cast::<36, 40>(self.burst_address.q.val() >> 4)
            + bit_cast::<36, 4>(self.beat.q.val());
        self.beat_last.next = self.beat_last_of_burst.val() & self.burst_last.q.val();

        self.burst_taken.next = self.presented.q.val() & self.next_burst.val();
        if self.presented.q.val() & self.next_beat.val() {
            self.beat.d.next = self.beat.q.val() + 1;
            if self.beat_last_of_burst.val() {
                self.beat.d.next = 0.into();
                self.burst_taken.next = true;
            }
        }
        if self.burst_taken.val() {
            self.presented.d.next = false;
        }
        self.advance_burst.next =
            self.active.q.val() & (!self.presented.q.val() | self.burst_taken.val());
        if self.advance_burst.val() {
            self.presented.d.next = true;
            self.burst_address.d.next = self.current.q.val();
            self.burst_beats_m1.d.next = bit_cast::<4, 9>(
                (self.burst_end_offset.val() >> 4)
                    - bit_cast::<9, 40>((self.current.q.val() & 255) >> 4),
            );
            self.burst_last.d.next = self.row_ends.val()
                & (self.rows_left.q.val() == 1)
                & (self.planes_left.q.val() == 1);
            self.burst_lane.d.next = bit_cast::<4, 9>(self.burst_end_offset.val());
        }

        if self.advance_burst.val() {
            if !self.row_ends.val() {
                self.current.d.next =
                    self.current.q.val() + bit_cast::<40, 9>(self.burst_bytes.val());
                self.row_left.d.next =
                    self.row_left.q.val() - bit_cast::<32, 9>(self.burst_bytes.val());
            } else if self.rows_left.q.val() != 1 {
                // Next row of this plane.
                self.current.d.next = self.row_start.q.val() + self.row_stride.q.val();
                self.row_start.d.next = self.row_start.q.val() + self.row_stride.q.val();
                self.packed_row_start.d.next =
                    self.packed_row_start.q.val() + bit_cast::<40, 32>(self.len.q.val());
                self.row_left.d.next = self.len.q.val();
                self.rows_left.d.next = self.rows_left.q.val() - 1;
            } else if self.planes_left.q.val() != 1 {
                // Next plane: after the packed plane and the gap (3D), or
                // simply the next row.
                self.current.d.next = self.row_start.q.val() + self.row_stride.q.val();
                if self.three_d.q.val() {
                    self.current.d.next = self.packed_row_start.q.val() + self.plane_gap.q.val();
                }
                self.row_start.d.next = self.current.d.val();
                self.packed_row_start.d.next = self.current.d.val();
                self.row_left.d.next = self.len.q.val();
                self.rows_left.d.next = self.rows.q.val();
                self.planes_left.d.next = self.planes_left.q.val() - 1;
            } else {
                self.active.d.next = false;
            }
        }

        if self.cancel.val() {
            self.active.d.next = false;
            self.presented.d.next = false;
        }
        if self.start.val() {
            self.active.d.next = true;
            self.current.d.next = self.shape.base.val();
            self.row_start.d.next = self.shape.base.val();
            self.packed_row_start.d.next = self.shape.base.val();
            self.row_left.d.next = self.shape.len.val();
            self.rows_left.d.next = self.shape.rows.val();
            self.planes_left.d.next = self.shape.planes.val();
            self.beat.d.next = 0.into();
            self.len.d.next = self.shape.len.val();
            self.rows.d.next = self.shape.rows.val();
            self.row_stride.d.next =
                bit_cast::<40, 32>(self.shape.len.val()) + self.shape.row_skip.val();
            self.plane_gap.d.next =
                bit_cast::<40, 32>(self.shape.len.val()) + self.shape.plane_skip.val();
            self.three_d.d.next = self.shape.three_d.val();
            self.max_beats.d.next = self.shape.max_beats.val();
        }
    }
}
