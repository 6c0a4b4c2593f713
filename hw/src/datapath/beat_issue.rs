//! Each traversal beat (TRM 4.9) becomes an IFM unit request (where its
//! activations lie in the IFM block being walked) and a tag (what the MAC
//! beat needs past the IFM unit), both taken in the same cycle; and the
//! IFM unit's settings for the block being walked.

use super::IfmBuffers;
use crate::datapath::{BeatTag, IfmBlockJob, MacBeat, TraversalShape};
use crate::mac_unit::{IfmRequest, IfmSettings};
use crate::op_state::IfmView;
use crate::stream::{StreamIn, StreamOut};
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct BeatIssue {
    pub beats: StreamIn<MacBeat>,
    /// The IFM block being walked.
    pub walked: Signal<In, IfmBlockJob>,
    /// The operation: its traversal shape, IFM view and IFM buffers; a
    /// 16-bit, int32 or signed IFM (`signed` is a Verilog keyword); a max
    /// pool; parallel depthwise (each core takes every other byte).
    pub shape: Signal<In, TraversalShape>,
    pub ifm_view: Signal<In, IfmView>,
    pub ifm_buffers: Signal<In, IfmBuffers>,
    pub wide: Signal<In, Bit>,
    pub int32: Signal<In, Bit>,
    pub signed_ifm: Signal<In, Bit>,
    pub max_pool: Signal<In, Bit>,
    pub interleaved: Signal<In, Bit>,
    pub requests: StreamOut<IfmRequest>,
    pub tags: StreamOut<BeatTag>,
    pub ifm_settings: Signal<Out, IfmSettings>,
    beat: Signal<Local, MacBeat>,
    element_shift: Signal<Local, Bits<8>>,
    ready: Signal<Local, Bit>,
    channels_left: Signal<Local, Bits<16>>,
    channel_mask: Signal<Local, Bits<9>>,
    cores: Signal<Local, Bits<2>>,
}

impl Logic for BeatIssue {
    #[hdl_gen]
    fn update(&mut self) {
        self.beat.next = self.beats.data.val();
        self.element_shift.next = bit_cast::<8, 16>(self.beat.val().ifm_channel);
        // 16-bit, and parallel depthwise (every other byte): 2 bytes a
        // channel; 32-bit: 4.
        if self.wide.val() | self.interleaved.val() {
            self.element_shift.next = bit_cast::<8, 16>(self.beat.val().ifm_channel) << 1;
        }
        if self.int32.val() {
            self.element_shift.next = bit_cast::<8, 16>(self.beat.val().ifm_channel) << 2;
        }
        // 16-bit parallel depthwise: both cores' 16 channels, two lines.
        if self.wide.val() & self.interleaved.val() {
            self.element_shift.next = bit_cast::<8, 16>(self.beat.val().ifm_channel) << 2;
        }
        self.ready.next = self.requests.ready.val() & self.tags.ready.val();
        self.beats.ready.next = self.ready.val();
        self.requests.valid.next = self.beats.valid.val() & self.ready.val();
        self.requests.data.next.oy = self.beat.val().oy;
        self.requests.data.next.ox = self.beat.val().ox;
        self.requests.data.next.ky = bit_cast::<8, 16>(self.beat.val().ky);
        self.requests.data.next.kx = self.beat.val().kx;
        self.requests.data.next.channel_offset = self.element_shift.val();
        self.requests.data.next.byte = self.beat.val().byte;
        self.tags.valid.next = self.beats.valid.val() & self.ready.val();
        self.tags.data.next.acc_address = self.beat.val().acc_address;
        self.tags.data.next.first = self.beat.val().first;
        self.tags.data.next.byte = self.beat.val().byte;
        self.tags.data.next.skip = self.beat.val().skip;
        self.tags.data.next.group_end = self.beat.val().group_end;
        self.tags.data.next.job_end = self.beat.val().job_end;
        self.tags.data.next.slice_end = self.beat.val().slice_end;
        // A pool's unit weights: the IFM channels of the group that are in
        // the IFM block (REDUCE_SUM, whose 32-bit groups are lanes 0-3; a
        // depthwise-shaped pool's lanes past the OFM depth are never
        // written).
        self.channels_left.next = self.walked.val().channels - self.beat.val().ifm_channel;
        if self.int32.val() & (self.channels_left.val() > 4) {
            self.channels_left.next = 4.into();
        }
        self.channel_mask.next = (bits::<9>(1) << bit_cast::<9, 16>(self.channels_left.val())) - 1;
        self.tags.data.next.unit_lanes = 0xff.into();
        if !self.shape.val().depthwise & (self.channels_left.val() < 8) {
            self.tags.data.next.unit_lanes = self.channel_mask.val().get_bits::<8>(0);
        }
        // The beat's cores: core 0, and core 1 beside it where it has the
        // slice (parallel mode). A core's stream ends with its last block
        // in depth of the spatial block.
        self.cores.next = 1.into();
        if self.beat.val().paired {
            self.cores.next = 3.into();
        }
        self.tags.data.next.cores = self.cores.val();
        self.tags.data.next.stream_ends = 0.into();
        if self.beat.val().block_end & self.walked.val().last_depth {
            self.tags.data.next.stream_ends = 1.into();
        }
        if self.beat.val().paired_block_end & self.walked.val().paired_last_depth {
            self.tags.data.next.stream_ends = self.tags.data.val().stream_ends | 2;
        }

        // The IFM unit reads the job being walked (TRM table 4-136: IB0
        // from 2 KB, IB1 after it; each half of the IFM buffers).
        self.ifm_settings.next.ib_base = self.ifm_buffers.val().start;
        if self.walked.val().ib_half {
            self.ifm_settings.next.ib_base =
                self.ifm_buffers.val().start + self.ifm_buffers.val().half;
        }
        self.ifm_settings.next.ib_width = bit_cast::<8, 16>(self.walked.val().width);
        // TRM table 4-135: ALIGN(channels x bytes, 8), as the IFM fetch packs.
        self.ifm_settings.next.position_bytes =
            ((bit_cast::<8, 16>(self.walked.val().channels) + 7) >> 3) << 3;
        if self.wide.val() {
            self.ifm_settings.next.position_bytes =
                ((bit_cast::<8, 16>(self.walked.val().channels) + 3) >> 2) << 3;
        }
        if self.int32.val() {
            self.ifm_settings.next.position_bytes =
                ((bit_cast::<8, 16>(self.walked.val().channels) + 1) >> 1) << 3;
        }
        self.ifm_settings.next.origin_y = self.walked.val().y0;
        self.ifm_settings.next.origin_x = self.walked.val().x0;
        self.ifm_settings.next.ifm_height = self.shape.val().ifm_height;
        self.ifm_settings.next.ifm_width = self.shape.val().ifm_width;
        self.ifm_settings.next.pad_top = bit_cast::<8, 16>(self.shape.val().pad_top);
        self.ifm_settings.next.pad_left = bit_cast::<8, 16>(self.shape.val().pad_left);
        self.ifm_settings.next.stride_y = self.shape.val().stride_y;
        self.ifm_settings.next.stride_x = self.shape.val().stride_x;
        self.ifm_settings.next.dilation_y = self.shape.val().dilation_y;
        self.ifm_settings.next.dilation_x = self.shape.val().dilation_x;
        self.ifm_settings.next.upscale = self.ifm_view.val().upscale;
        self.ifm_settings.next.wide = self.wide.val();
        self.ifm_settings.next.int32 = self.int32.val();
        self.ifm_settings.next.one_row = self.shape.val().one_row;
        self.ifm_settings.next.signed = self.signed_ifm.val();
        self.ifm_settings.next.zero_point = self.ifm_view.val().zero_point;
        self.ifm_settings.next.pad_minimum = self.max_pool.val();
        self.ifm_settings.next.interleaved = self.interleaved.val();
    }
}
